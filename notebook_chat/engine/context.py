"""What a plugin sees and may do: one context per plugin, bound to the engine."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

from .conversation import Message, ToolCall, TurnEntry
from .errors import HistoryError, PluginError
from .messages import new_id, new_tool_call_id
from .state import EngineState

if TYPE_CHECKING:
    from .engine import MessageEngine
    from .plugin import Plugin


class PluginContext:
    def __init__(self, engine: MessageEngine, plugin: Plugin) -> None:
        self._engine = engine
        self.plugin = plugin

    @property
    def engine(self) -> MessageEngine:
        """The engine itself, for plugins whose commands start turns (Continue)."""
        return self._engine

    # -- reading -----------------------------------------------------------------------------------------------
    @property
    def state(self) -> EngineState:
        return self._engine.state

    @property
    def messages(self) -> list[Message]:
        return self._engine.messages

    @property
    def turn_id(self) -> str | None:
        return self._engine.state.turn_id

    @property
    def current_turn(self) -> list[Message]:
        """The messages added in this turn (user message first)."""
        return self._engine.current_turn

    @property
    def custom_context(self) -> dict[str, Any]:
        """JSON-serializable scratch space shared by plugins; reset per new turn, kept across pause/resume."""
        return self._engine.custom_context

    @property
    def body(self) -> dict[str, Any]:
        """The request being built (inside ``on_before_request``); ``messages`` is filled in after the hooks."""
        body = self._engine.request_body
        if body is None:
            raise PluginError("ctx.body exists only while a request is being prepared")
        return body

    @property
    def assistant_message(self) -> Message | None:
        """The assistant message of the latest request (materialized: O(reply length))."""
        return self._engine.last_assistant

    @property
    def streaming_message(self) -> Message | None:
        """The assistant message being streamed, without materializing its text (O(1); text may lag)."""
        return self._engine.streaming_message

    @property
    def finish_reason(self) -> str | None:
        return self._engine.last_finish_reason

    @property
    def turns(self) -> list[TurnEntry]:
        return self._engine.turns

    @property
    def restored_paused_turn(self) -> Mapping[str, Any] | None:
        """Inside ``on_load``: the loaded record's paused-turn snapshot (untrusted until checked); else None."""
        return self._engine.restored_paused_turn

    @property
    def restored_state(self) -> Any:
        """Inside ``on_load``: this plugin's entry of the loaded record's ``plugins`` (untrusted JSON, or None)."""
        return self._engine.restored_plugin_states.get(self.plugin.name)

    def state_plugins(self) -> list[Plugin]:
        """Every plugin of the engine, in hook order."""
        return self._engine.plugins

    def plugin_named(self, name: str) -> Plugin | None:
        return self._engine.plugin(name)

    # -- steering the turn ---------------------------------------------------------------------------------------
    def request_next(self) -> None:
        """Ask for another request in this turn; a pause by any plugin wins."""
        self._engine.decide("next")

    def pause(self) -> None:
        """Enter ``pausing``; the engine publishes ``paused`` after every ``on_turn_pause`` hook."""
        self._engine.decide("pause")

    def set_request_state(self, request_state: str, processing_state: str | None = None) -> None:
        if request_state == "paused":
            self.pause()
        elif request_state == "processing" and processing_state:
            self.set_processing_state(processing_state)
        else:
            raise PluginError(f"plugins may only pause or set a processing state, not {request_state!r}")

    def set_processing_state(self, processing_state: str) -> None:
        self._engine.set_processing_state(processing_state)

    @property
    def can_resume(self) -> bool:
        """True while a decision may resume the turn: it is paused, or a resume is already running."""
        return self._engine.can_resume

    async def resume_with(self, work: Callable[[], Awaitable[None]]) -> bool:
        """Run ``work`` inside the paused turn (resume hooks first); False when there is no paused turn."""
        return await self._engine.resume_with(work)

    # -- changing messages ---------------------------------------------------------------------------------------
    def append_message(self, message: Message) -> Message:
        return self._engine.append_message(message)

    def notify(self) -> None:
        self._engine.notify()

    def inject_tool_result(self, name: str, arguments: dict[str, Any] | str, result: str, *,
                           temp: bool = False) -> str:
        """Add a tool call and its result as if the model had asked for it; returns the new tool-call id."""
        if isinstance(arguments, dict):
            arguments = json.dumps(arguments, ensure_ascii=False)
        call_id = new_tool_call_id()
        call: ToolCall = {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}
        assistant: Message = {"id": new_id(), "role": "assistant", "content": None, "tool_calls": [call],
                              "metadata": {"injected": True}}
        tool: Message = {"id": new_id(), "role": "tool", "tool_call_id": call_id, "content": result,
                         "metadata": {"injected": True, "tool_name": name}}
        if temp:
            assistant["temp"] = True
            tool["temp"] = True
        self._engine.inject_unit(self.plugin, [assistant, tool])
        return call_id

    def inject_unit(self, messages: list[Message]) -> None:
        """Inject a prepared unit (assistant(tool_calls) + one result per call), temp as a whole or not at all."""
        temps = {bool(m.get("temp")) for m in messages}
        if len(temps) > 1:
            raise HistoryError("an injected unit must be temp as a whole: some of its messages are temp, some not")
        self._engine.inject_unit(self.plugin, messages)

    # -- setters for on_load ---------------------------------------------------------------------------------------
    def set_notice(self, notice: str | None) -> None:
        self._engine.set_notice(notice)

    def restore_paused_turn(self, turn_id: str, custom_context: dict[str, Any]) -> None:
        self._engine.restore_paused_turn(turn_id, custom_context)
