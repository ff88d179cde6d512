"""The UI-free message engine. Imports nothing from Jupyter."""

from .commands import CommandBus, CommandResult
from .context import PluginContext
from .engine import MessageEngine
from .errors import (
    CommandError,
    EngineWarning,
    HistoryError,
    NotebookChatError,
    PluginError,
    ProviderError,
    TurnBlocked,
)
from .messages import Message, ToolCall, new_id, new_tool_call_id, user_message
from .plugin import Plugin
from .provider import CancelHandle, Provider
from .state import EngineEvent, EngineState

__all__ = [
    "CancelHandle", "CommandBus", "CommandError", "CommandResult", "EngineEvent", "EngineState", "EngineWarning",
    "HistoryError", "Message", "MessageEngine", "NotebookChatError", "Plugin", "PluginContext", "PluginError",
    "Provider", "ProviderError", "ToolCall", "TurnBlocked", "new_id", "new_tool_call_id", "user_message",
]
