"""MessageEngine: runs chat turns against a provider, one at a time, with plugins on a fixed hook grid."""

from __future__ import annotations

import asyncio
import inspect
import warnings
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any, Literal

from . import history
from . import request as request_builder
from .budget import ContextBudget
from .commands import CommandBus, CommandResult
from .context import PluginContext
from .conversation import (
    ConversationRecord,
    EndReason,
    Message,
    PausedTurn,
    TurnEntry,
    close_turn,
    new_turn_entry,
    utc_now,
)
from .errors import EngineWarning, NotebookChatError, PluginError, ProviderError, TurnBlocked
from .messages import new_id, tool_result_message, user_message
from .notices import Notice
from .plugin import PausedTurnExporter, Plugin, StatefulPlugin, UserCommandProvider, overrides
from .provider import CancelHandle, HasContextWindow, Provider, RedactsSecrets
from .restored import settle_restored
from .state import EngineEvent, EngineState
from .stream_merge import StreamAccumulator
from .usage import total_usage
from .user_commands import UserCommands

Subscriber = Callable[[EngineEvent], None]
Decision = Literal["pause", "next"]


class MessageEngine:
    def __init__(
        self,
        provider: Provider,
        *,
        plugins: Iterable[Plugin] = (),
        initial_messages: Iterable[Message] = (),
        request_message_fields: Iterable[str] | None = None,
        request_message_fields_exclude: Iterable[str] = ("state", "metadata", "loading"),
    ) -> None:
        """``plugins`` are all the engine has (it installs none itself); ``initial_messages`` seed a new
        conversation (a system prompt). A stored conversation is loaded with :meth:`load`."""
        self.provider = provider
        self.state = EngineState(messages=[dict(m) for m in initial_messages])  # type: ignore[misc]
        self.turns: list[TurnEntry] = []
        self.title: str | None = None
        """The conversation's name when the user gave one (stored in the record)."""
        self.created_at: str = utc_now()
        self.restored_paused_turn: Mapping[str, Any] | None = None
        self.restored_plugin_states: Mapping[str, Any] = {}
        self.current_turn: list[Message] = []
        self.custom_context: dict[str, Any] = {}
        self.request_body: dict[str, Any] | None = None
        self.last_finish_reason: str | None = None
        self.budget = ContextBudget()
        self._request_fields = tuple(request_message_fields) if request_message_fields is not None else None
        self._request_exclude = tuple(request_message_fields_exclude)
        self._subscribers: list[Subscriber] = []
        self._accumulator: StreamAccumulator | None = None
        self._last_assistant: Message | None = None
        self._decisions: set[Decision] = set()
        self._cancel: CancelHandle | None = None
        self._turn_task: asyncio.Task[None] | None = None
        self._abort_detail: str | None = None
        self._resuming = False
        self._resume_works: set[asyncio.Task[None]] = set()
        self._injected: list[tuple[int, int, list[Message]]] = []
        self._call_ids: set[str] = set()
        self._call_ids_scanned = 0
        self._call_ids_of: list[Message] | None = None
        self._plugins = self._order(plugins)
        self._contexts = {id(p): PluginContext(self, p) for p in self._plugins}
        self._chunk_plugins = [p for p in self._plugins if overrides(p, "on_completion_chunk")]
        self.commands = CommandBus()
        for plugin in self._plugins:
            self.commands.register(plugin.name, plugin.commands())
        self.user_commands = UserCommands()
        """The commands plugins add to the widget's "/" menu (``UserCommandProvider``)."""
        for plugin in self._plugins:
            if isinstance(plugin, UserCommandProvider):
                self.user_commands.register(plugin.name, plugin.user_commands())
        for plugin in self._plugins:
            self._run_sync_hook(plugin, "on_init")

    # -- construction ----------------------------------------------------------------------------------------------
    @staticmethod
    def _order(plugins: Iterable[Plugin]) -> list[Plugin]:
        chosen = list(plugins)
        seen: set[str] = set()
        for plugin in chosen:
            if plugin.name in seen:
                raise PluginError(f"two plugins are named {plugin.name!r}")
            seen.add(plugin.name)
        return sorted(chosen, key=lambda p: -p.priority)  # stable: registration order within a priority

    def _run_sync_hook(self, plugin: Plugin, hook: str) -> None:
        result: object = getattr(plugin, hook)(self._contexts[id(plugin)])
        if result is not None:
            if inspect.iscoroutine(result):
                result.close()
            raise PluginError(f"{plugin.name}.{hook} must return None (it is synchronous, setters only)")

    # -- loading ---------------------------------------------------------------------------------------------------
    def load(self, record: ConversationRecord | Mapping[str, Any]) -> None:
        """Replace this engine's conversation — messages, turn log, paused turn — in place (validated by the caller,
        e.g. ``persistence.read_record``). Subscribers, plugins and their contexts stay; every plugin's ``on_load``
        runs once (ToolPlugin restores the paused turn there); then a turn left open is marked interrupted and
        unanswered tool calls get an "outcome unknown" result. Nothing runs. Refused while a turn is running."""
        if self.state.is_processing:
            raise NotebookChatError(Notice("engine.load_while_running"))
        self.state.messages = [dict(m) for m in record.get("messages") or ()]  # type: ignore[misc]
        self.turns = [dict(t) for t in record.get("turns") or ()]  # type: ignore[misc]
        title = record.get("title")
        self.title = title if isinstance(title, str) and title else None
        self.created_at = str(record.get("created_at") or (self.turns[0]["started_at"] if self.turns else None)
                              or record.get("updated_at") or utc_now())
        self.state.request_state = "idle"
        self.state.processing_state = None
        self.state.turn_id = None
        self.state.error = None
        self.state.notice = None
        self.current_turn = []
        self.custom_context = {}
        self._injected = []
        self._last_assistant = None
        self.last_finish_reason = None
        paused: PausedTurn | None = record.get("paused_turn")
        states = record.get("plugins")
        self.restored_paused_turn = paused
        self.restored_plugin_states = states if isinstance(states, Mapping) else {}
        try:
            for plugin in self._plugins:
                if overrides(plugin, "on_load"):
                    self._run_sync_hook(plugin, "on_load")
        finally:
            self.restored_paused_turn = None
            self.restored_plugin_states = {}
        if not self.state.is_paused:
            self._settle_restored_history()
        self.notify()

    def _settle_restored_history(self) -> None:
        """Nothing is running after a load: a turn left open was interrupted, and every unanswered tool call gets a
        result saying its outcome is unknown (it may have run); the notice says what was repaired. No tool runs."""
        if self.turns and self.turns[-1].get("end_reason") is None:
            close_turn(self.turns[-1], "interrupted", None)
        for message in self.state.messages:
            if message.get("loading"):
                message["loading"] = False
        settled, repaired = settle_restored(self.state.messages)
        self.state.messages = settled
        if repaired:
            self.state.notice = (Notice("notice.joined", first=self.state.notice, second=repaired)
                                 if self.state.notice else repaired)

    # -- reading ---------------------------------------------------------------------------------------------------
    @property
    def messages(self) -> list[Message]:
        if self._accumulator is not None:
            self._accumulator.materialize()
        return self.state.messages

    @property
    def last_assistant(self) -> Message | None:
        if self._accumulator is not None:
            self._accumulator.materialize()
        return self._last_assistant

    @property
    def streaming_message(self) -> Message | None:
        return self._last_assistant

    @property
    def plugins(self) -> list[Plugin]:
        return list(self._plugins)

    def plugin(self, name: str) -> Plugin | None:
        return next((p for p in self._plugins if p.name == name), None)

    def subscribe(self, callback: Subscriber) -> Callable[[], None]:
        self._subscribers.append(callback)

        def unsubscribe() -> None:
            if callback in self._subscribers:
                self._subscribers.remove(callback)

        return unsubscribe

    def notify(self) -> None:
        self._emit(EngineEvent("state"))

    def _emit(self, event: EngineEvent) -> None:
        for callback in list(self._subscribers):
            callback(event)

    # -- public actions --------------------------------------------------------------------------------------------
    async def send_message(self, text: str, **metadata: Any) -> None:
        text = text.strip()
        if not text:
            warnings.warn("empty message: no turn started", EngineWarning, stacklevel=2)
            return
        await self.send(user_message(text, **metadata))

    async def send(self, *messages: Message) -> None:
        if not self.state.can_start_turn:
            warnings.warn(f"a turn is {self.state.request_state}: message not sent", EngineWarning, stacklevel=2)
            return
        if not messages:
            warnings.warn("send() needs at least one message", EngineWarning, stacklevel=2)
            return
        self._begin_turn([{"id": new_id(), **m} if "id" not in m else dict(m) for m in messages])  # type: ignore[misc]
        await self._drive(self._run_new_turn)

    async def abort(self, detail: str = "user") -> None:
        """Stop the running turn (partial reply kept) or end a paused one (awaiting calls are denied by plugins)."""
        task = self._turn_task
        if self.state.is_processing and task is not None and not task.done():
            self._abort_detail = detail
            if self._cancel is not None:
                self._cancel.cancel()
            task.cancel()
            await asyncio.wait([task])
        elif self.state.is_paused:
            self._abort_detail = detail
            await self._finish_aborted()
            self._run_finally()

    async def dispatch_command(self, name: str, payload: Mapping[str, Any] | None = None) -> CommandResult:
        return await self.commands.dispatch(name, payload)

    def export_record(self, saved_messages: list[Message] | None = None) -> ConversationRecord:
        """The conversation as plain JSON: messages (temp units dropped), turn log, paused-turn snapshot.

        ``saved_messages``: the messages as ``request.for_saving(self.messages)`` gives them, from a caller that
        keeps them up to date itself (the autosave, at a cost that does not grow with the conversation)."""
        paused = None
        if self.state.is_paused:
            for plugin in self._plugins:
                if isinstance(plugin, PausedTurnExporter):
                    paused = plugin.export_paused_turn(self._contexts[id(plugin)])
                    break
        record: ConversationRecord = {
            "version": 1,
            "messages": request_builder.for_saving(self.messages) if saved_messages is None else saved_messages,
            "turns": [turn.copy() for turn in self.turns],
            "paused_turn": paused,
            "updated_at": utc_now(),
            "created_at": self.created_at,
        }
        if self.title is not None:
            record["title"] = self.title
        states = self._plugin_states()
        if states:
            record["plugins"] = states
        return record

    def _plugin_states(self) -> dict[str, Any]:
        """What plugins keep in the record (``StatefulPlugin.export_state``), by plugin name."""
        states: dict[str, Any] = {}
        for plugin in self._plugins:
            if isinstance(plugin, StatefulPlugin):
                state = plugin.export_state(self._contexts[id(plugin)])
                if state is not None:
                    states[plugin.name] = state
        return states

    # -- used by contexts ----------------------------------------------------------------------------------------
    def decide(self, decision: Decision) -> None:
        self._decisions.add(decision)
        if decision == "pause" and self.state.is_processing:
            self.set_processing_state("pausing")

    def set_notice(self, notice: str | None) -> None:
        """The one user-visible notice (a sentence that is not an error); a new turn clears it."""
        if self.state.notice != notice:
            self.state.notice = notice
            self.notify()

    def set_processing_state(self, processing_state: str) -> None:
        if self.state.processing_state != processing_state:
            self.state.processing_state = processing_state
            self.notify()

    def append_message(self, message: Message) -> Message:
        if "id" not in message:
            message["id"] = new_id()
        self.state.messages.append(message)
        if self.state.turn_id is not None and self.state.request_state in ("processing", "paused"):
            self.current_turn.append(message)
        self.notify()
        return message

    def inject_unit(self, plugin: Plugin, unit: list[Message]) -> None:
        messages = self.state.messages
        user_index = self._current_user_index()
        for _, _, old in self._injected:
            for message in old:
                if message in messages:
                    messages.remove(message)
        self._injected.append((-plugin.priority, len(self._injected), unit))
        self._injected.sort(key=lambda entry: (entry[0], entry[1]))
        block = [m for _, _, u in self._injected for m in u]
        messages[user_index + 1:user_index + 1] = block
        self.current_turn[1:1] = [m for m in unit if m not in self.current_turn]
        self.notify()

    def _current_user_index(self) -> int:
        first = self.current_turn[0] if self.current_turn else None
        for index in range(len(self.state.messages) - 1, -1, -1):
            if self.state.messages[index] is first:
                return index
        return len(self.state.messages) - 1

    def restore_paused_turn(self, turn_id: str, custom_context: dict[str, Any]) -> None:
        self.state.turn_id = turn_id
        self.custom_context = dict(custom_context)
        self.current_turn = [m for m in self.state.messages if (m.get("state") or {}).get("turn_id") == turn_id]
        self.state.request_state = "paused"
        self.state.processing_state = None
        if not self.turns or self.turns[-1].get("id") != turn_id:
            self.turns.append(new_turn_entry(turn_id))
        self.notify()

    @property
    def can_resume(self) -> bool:
        return self.state.is_paused or (self.state.is_processing and self._resuming)

    async def resume_with(self, work: Callable[[], Awaitable[None]]) -> bool:
        if self.state.is_processing and self._resuming:
            task = asyncio.ensure_future(work())
            self._resume_works.add(task)
            task.add_done_callback(self._resume_works.discard)
            await asyncio.wait([task])
            task.result()
            return True
        if not self.state.is_paused:
            return False
        self._resuming = True
        self._decisions.clear()
        self._set_state("processing", "calling-tools")

        async def resume() -> None:
            await self._serial("on_turn_resume")
            first = asyncio.ensure_future(work())
            self._resume_works.add(first)
            first.add_done_callback(self._resume_works.discard)
            while self._resume_works:
                self._decisions.clear()
                await asyncio.gather(*self._resume_works)
            self._resuming = False
            await self._after_decisions()

        await self._drive(resume)
        return True

    # -- the turn ----------------------------------------------------------------------------------------------
    def _begin_turn(self, messages: list[Message]) -> None:
        turn_id = new_id("turn")
        self.state.turn_id = turn_id
        self.state.error = None
        self.state.notice = None
        self.custom_context = {}
        self._injected = []
        self.current_turn = []
        self._abort_detail = None
        self.last_finish_reason = None
        self.turns.append(new_turn_entry(turn_id))
        self.state.request_state = "processing"
        self.state.processing_state = "requesting"
        for message in messages:
            self.state.messages.append(message)
            self.current_turn.append(message)
        self.notify()

    async def _drive(self, body: Callable[[], Awaitable[None]]) -> None:
        task = asyncio.ensure_future(self._guarded(body))
        self._turn_task = task
        try:
            await asyncio.shield(task)
        except asyncio.CancelledError:
            if not task.done():  # our caller was cancelled (cell interrupted, widget closed): end the turn too
                self._abort_detail = self._abort_detail or "disposed"
                if self._cancel is not None:
                    self._cancel.cancel()
                task.cancel()
                await asyncio.wait([task])
            raise

    async def _guarded(self, body: Callable[[], Awaitable[None]]) -> None:
        try:
            await body()
        except asyncio.CancelledError:
            self._abort_detail = self._abort_detail or "disposed"
            await self._finish_aborted()
        except TurnBlocked as blocked:
            await self._finish("completed", "blocked", blocked.reason)
        except BaseException as error:
            await self._finish_error(error)
            raise
        finally:
            self._resuming = False
            self._resume_works.clear()
            self._run_finally()

    async def _run_new_turn(self) -> None:
        await self._serial("on_turn_start")
        await self._run_requests()

    async def _run_requests(self) -> None:
        while True:
            self._decisions.clear()
            await self._request_once()
            if not await self._after_decisions(final=False):
                return

    async def _after_decisions(self, *, final: bool = True) -> bool:
        """Pause, or ask for the next request, or end the turn. True when another request should follow."""
        if "pause" in self._decisions:
            await self._pause()
            return False
        if "next" in self._decisions:
            if final:
                await self._run_requests()
                return False
            return True
        reason: EndReason = "max-tokens" if self.last_finish_reason == "length" else "completed"
        await self._finish("completed", reason, None)
        return False

    async def _request_once(self) -> None:
        self.set_processing_state("requesting")
        self.request_body = {}
        try:
            await self._serial("on_before_request")
            body = self.request_body
            if "messages" not in body:
                body["messages"] = self.messages
            body["messages"] = request_builder.sanitize(body["messages"], self._request_fields, self._request_exclude)
        finally:
            self.request_body = None
        window = self.provider.context_window if isinstance(self.provider, HasContextWindow) else None
        fitted = self.budget.fit(body["messages"], window)
        body["messages"] = fitted.messages
        assistant: Message = {"id": new_id(), "role": "assistant", "content": "", "loading": True,
                              "state": {"turn_id": self.state.turn_id}}
        if fitted.left_out_turns:
            assistant["metadata"] = {"left_out_turns": fitted.left_out_turns}
        self.append_message(assistant)
        self._last_assistant = assistant
        cancel = self._cancel = CancelHandle()
        accumulator = self._accumulator = StreamAccumulator(assistant, self._appended(assistant["id"]),
                                                            taken_ids=self._tool_call_ids())
        try:
            result = await self.provider(body, cancel)
            self.set_processing_state("completing")
            if isinstance(result, dict):
                accumulator.add_completion(result)
            else:
                await self._consume(result, accumulator)
            if cancel.cancelled:  # the stop reached the provider first and its stream ended quietly
                raise asyncio.CancelledError
        except BaseException as error:
            assistant.setdefault("state", {})["interrupted"] = True
            if isinstance(error, ProviderError):
                assistant["state"]["error"] = self._error_text(error)
            raise
        finally:
            self._close_reply(assistant, accumulator)
        await self._concurrent("on_after_request")

    def _tool_call_ids(self) -> set[str]:
        """Every tool-call id in the conversation, scanning only the messages added since the last request (the list
        is rescanned when it was replaced or shrank; an id that left it only makes a new id more cautious)."""
        messages = self.state.messages
        if messages is not self._call_ids_of or len(messages) < self._call_ids_scanned:
            self._call_ids, self._call_ids_scanned, self._call_ids_of = set(), 0, messages
        for message in messages[self._call_ids_scanned:]:
            for call in message.get("tool_calls") or ():
                self._call_ids.add(call["id"])
        self._call_ids_scanned = len(messages)
        return self._call_ids

    async def _consume(self, stream: Any, accumulator: StreamAccumulator) -> None:
        chunk_plugins = self._chunk_plugins
        contexts = self._contexts
        try:
            async for chunk in stream:
                accumulator.add_chunk(chunk)
                for plugin in chunk_plugins:
                    plugin.on_completion_chunk(contexts[id(plugin)], chunk)
        finally:
            close = getattr(stream, "aclose", None)
            if close is not None:
                await close()

    def _appended(self, message_id: str) -> Callable[[str, str], None]:
        emit = self._emit

        def appended(field: str, text: str) -> None:
            emit(EngineEvent("message", message_id, field, text))

        return appended

    def _close_reply(self, assistant: Message, accumulator: StreamAccumulator) -> None:
        accumulator.close()
        self._accumulator = None
        self._call_ids.update(call["id"] for call in assistant.get("tool_calls") or ())  # scanned while empty
        assistant["loading"] = False
        self.last_finish_reason = accumulator.finish_reason
        assistant["state"]["finish_reason"] = accumulator.finish_reason
        if accumulator.usage:
            assistant.setdefault("metadata", {})["usage"] = accumulator.usage
            self.budget.observe(accumulator.usage)
        empty = not assistant.get("content") and not assistant.get("tool_calls") and not assistant.get(
            "reasoning_content")
        if empty and assistant["state"].get("interrupted"):
            self.state.messages.remove(assistant)
            if assistant in self.current_turn:
                self.current_turn.remove(assistant)
            self._last_assistant = None
        self.notify()

    async def _pause(self) -> None:
        self.set_processing_state("pausing")
        await self._serial("on_turn_pause")
        self._set_state("paused", None)

    # -- endings ---------------------------------------------------------------------------------------------
    async def _finish(self, request_state: Literal["completed"], reason: EndReason, detail: str | None) -> None:
        self._end_turn_log(reason, detail)
        self._set_state(request_state, None)
        await self._serial("on_turn_end")

    async def _finish_aborted(self) -> None:
        detail = self._abort_detail or "user"
        self._end_turn_log("aborted", detail)
        await self._serial("on_turn_abort")
        self._answer_open_calls()
        self._set_state("aborted", None)

    def _error_text(self, error: BaseException) -> str:
        """What is stored and shown for ``error``: without the provider's secrets."""
        text = error.message if isinstance(error, ProviderError) else f"{type(error).__name__}: {error}"
        return self.provider.redact(text) if isinstance(self.provider, RedactsSecrets) else text

    async def _finish_error(self, error: BaseException) -> None:
        message = self._error_text(error)
        self.state.error = message
        self._end_turn_log("error", message)
        self._answer_open_calls()
        self._set_state("error", None)
        for plugin in self._plugins:
            if overrides(plugin, "on_error"):
                await plugin.on_error(self._contexts[id(plugin)], error)

    def _answer_open_calls(self) -> None:
        """History rule 8: an interrupted turn leaves no call unanswered in the live history. Each call of
        this turn without a result gets ``OUTCOME_UNKNOWN`` right after its block and status ``cancelled`` on its
        card; arguments cut off mid-stream become the ``{"_raw": ...}`` object every request and save would send."""
        messages = self.state.messages
        for message in [m for m in self.current_turn if m.get("role") == "assistant" and m.get("tool_calls")]:
            position = next((i for i in range(len(messages) - 1, -1, -1) if messages[i] is message), None)
            if position is None:
                continue
            end = position + 1
            answered = set()
            while end < len(messages) and messages[end].get("role") == "tool":
                answered.add(messages[end].get("tool_call_id"))
                end += 1
            entries = message.setdefault("state", {}).setdefault("tool_calls", {})
            for call in message["tool_calls"]:
                function = call["function"]
                if history.arguments_object_or_none(function.get("arguments")) is None:
                    function["arguments"] = history.normalize_arguments(function.get("arguments"))
                if call["id"] in answered:
                    continue
                result = tool_result_message(call["id"], history.OUTCOME_UNKNOWN, tool_name=function.get("name"))
                result["state"] = {"turn_id": self.state.turn_id}
                result.setdefault("metadata", {})["synthetic"] = True
                messages.insert(end, result)
                self.current_turn.append(result)
                end += 1
                entry = entries.setdefault(call["id"], {"status": "cancelled"})
                entry["status"] = "cancelled"
                entry["reason"] = "interrupted"

    def _end_turn_log(self, reason: EndReason, detail: str | None) -> None:
        if self.turns and self.turns[-1].get("id") == self.state.turn_id and self.turns[-1]["end_reason"] is None:
            close_turn(self.turns[-1], reason, detail)
            usage = total_usage(self.current_turn)
            if usage:
                self.turns[-1]["usage"] = usage  # type: ignore[typeddict-item]

    def _run_finally(self) -> None:
        for plugin in self._plugins:
            if overrides(plugin, "on_finally"):
                plugin.on_finally(self._contexts[id(plugin)])

    def _set_state(self, request_state: Any, processing_state: str | None) -> None:
        self.state.request_state = request_state
        self.state.processing_state = processing_state
        self.notify()

    # -- hook runners ------------------------------------------------------------------------------------------
    async def _serial(self, hook: str) -> None:
        for plugin in self._plugins:
            if overrides(plugin, hook):
                await getattr(plugin, hook)(self._contexts[id(plugin)])

    async def _concurrent(self, hook: str) -> None:
        calls = [getattr(p, hook)(self._contexts[id(p)]) for p in self._plugins if overrides(p, hook)]
        if calls:
            await asyncio.gather(*calls)
