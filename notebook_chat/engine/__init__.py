"""The UI-free message engine. Imports nothing from Jupyter."""

from .commands import CommandBus, CommandResult
from .context import PluginContext
from .conversation import ConversationRecord, Message, PausedTurn, ToolCall, ToolCallState, TurnEntry
from .engine import MessageEngine
from .errors import (
    CommandError,
    EngineWarning,
    HistoryError,
    NotebookChatError,
    PluginError,
    ProviderError,
    RecordError,
    TurnBlocked,
)
from .messages import new_id, new_tool_call_id, user_message
from .plugin import Plugin, UserCommandProvider
from .provider import CancelHandle, Provider
from .state import EngineEvent, EngineState
from .user_commands import UserCommand

__all__ = [
    "CancelHandle",
    "CommandBus",
    "CommandError",
    "CommandResult",
    "ConversationRecord",
    "EngineEvent",
    "EngineState",
    "EngineWarning",
    "HistoryError",
    "Message",
    "MessageEngine",
    "NotebookChatError",
    "PausedTurn",
    "Plugin",
    "PluginContext",
    "PluginError",
    "Provider",
    "ProviderError",
    "RecordError",
    "ToolCall",
    "ToolCallState",
    "TurnBlocked",
    "TurnEntry",
    "UserCommand",
    "UserCommandProvider",
    "new_id",
    "new_tool_call_id",
    "user_message",
]
