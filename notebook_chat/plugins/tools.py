"""ToolPlugin: runs the model's tool calls, pausing the ones a human must approve.

Approval is data, not a blocked call: a call that needs approval gets status ``awaiting-approval`` in its assistant
message's ``state["tool_calls"]`` and the turn pauses once the other calls of the batch finished. ``tool.resume`` and
``tool.reject`` decide one call each; the first decision wins, and the turn continues once nothing awaits.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any

from ..engine import Message, PausedTurn, Plugin, PluginContext, PluginError, RecordError, ToolCall
from ..engine.conversation import AWAITING, ToolCallState, awaiting_call_ids, utc_now
from ..engine.history import OUTCOME_UNKNOWN, UNKNOWN_TOOL_NAME, arguments_object_or_none, normalize_arguments
from ..engine.messages import tool_result_message
from ..engine.notices import Notice
from ..engine.plugin import ToolProvider
from ..persistence import capture_snapshot, check_paused_turn, check_restorable
from ..persistence.approval_ledger import ApprovalLedger, Decision, arguments_sha256
from .tool_definition import Tool, ToolResult, as_tool

TOOL_RESUME = "tool.resume"
TOOL_REJECT = "tool.reject"

DENIED_BY_USER = "Denied by the user."
ARGUMENTS_INCOMPLETE = ("arguments incomplete: the reply reached the output-token limit before this call's "
                        "arguments were complete, so it was not run")
ALREADY_DECIDED = "already decided in an earlier kernel — outcome unknown"
ALREADY_RAN = "already run in an earlier kernel"
MALFORMED_CALL = "not run: the call was malformed ({problem}); call the tool again with JSON-object arguments"
EDITED_NOTE_PREFIX = "[The user edited the arguments before approving;"
"""Starts the model-facing first line of an edited call's result (the widget shows its own sentence instead)."""
CANCELLED_BY_USER = "Cancelled by the user: the turn was stopped before this call was approved."
ShouldPause = Callable[[ToolCall, PluginContext], "bool | Awaitable[bool]"]


class ToolError(PluginError):
    """Tools are misconfigured (duplicate names, tool calls where none are allowed)."""


async def _maybe_await(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value


class ToolPlugin(Plugin):
    name = "tools"
    priority = 10

    def __init__(
        self,
        tools: Iterable[Tool | Callable[..., Any]] = (),
        *,
        should_pause: ShouldPause | None = None,
        max_tool_rounds: int | None = None,
        on_limit_exceeded: Callable[[PluginContext], Any] | None = None,
        before_call_tools: Callable[[list[ToolCall], PluginContext], Any] | None = None,
        on_tool_call_start: Callable[[ToolCall, PluginContext], Any] | None = None,
        on_tool_call_end: Callable[[ToolCall, ToolResult, PluginContext], Any] | None = None,
        ledger: ApprovalLedger | None = None,
    ) -> None:
        self._tools: dict[str, Tool] = {}
        for item in tools:
            self.add_tool(item)
        self.should_pause = should_pause
        self.max_tool_rounds = max_tool_rounds
        self.on_limit_exceeded = on_limit_exceeded
        self.before_call_tools = before_call_tools
        self.on_tool_call_start = on_tool_call_start
        self.on_tool_call_end = on_tool_call_end
        self.ledger = ledger
        """Where every started call is noted durably before it runs (exactly once across closed tabs)."""
        self._ctx: PluginContext | None = None

    # -- tools ------------------------------------------------------------------------------------------------
    def add_tool(self, item: Tool | Callable[..., Any]) -> Tool:
        """Registers a tool at runtime (it carries its own handler)."""
        tool = as_tool(item)
        if tool.name in self._tools:
            raise ToolError(f"two tools are named {tool.name!r}")
        self._tools[tool.name] = tool
        return tool

    def remove_tool(self, name: str) -> None:
        self._tools.pop(name, None)

    def tool_summaries(self) -> dict[str, dict[str, Any]]:
        """``{name: {"description", "approval"}}`` of the tools the model can call now (for the widget's cards and
        its empty state); empty before the engine started or when the provided tools can't be resolved."""
        ctx = getattr(self, "_ctx", None)
        try:
            tools = self.resolve_tools(ctx) if ctx is not None else dict(self._tools)
        except Exception:
            tools = dict(self._tools)
        return {name: {"description": tool.description, "approval": bool(tool.approval)}
                for name, tool in tools.items()}

    def resolve_tools(self, ctx: PluginContext) -> dict[str, Tool]:
        """Own tools plus those of every :class:`ToolProvider` plugin; duplicate names are an error."""
        resolved = dict(self._tools)
        for plugin in ctx.state_plugins():
            if plugin is self or not isinstance(plugin, ToolProvider):
                continue
            for item in plugin.provide_tools(ctx) or ():
                tool = as_tool(item)
                if tool.name in resolved:
                    raise ToolError(f"two tools are named {tool.name!r} (one from plugin {plugin.name!r})")
                resolved[tool.name] = tool
        return resolved

    def commands(self) -> dict[str, Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]]:
        return {TOOL_RESUME: self._resume, TOOL_REJECT: self._reject}

    # -- hooks ----------------------------------------------------------------------------------------------------
    def on_init(self, ctx: PluginContext) -> None:
        self._ctx = ctx

    def on_load(self, ctx: PluginContext) -> None:
        """A stored conversation was loaded: restore its paused turn when it still matches the messages."""
        data = ctx.restored_paused_turn
        if data is not None:
            self._restore(ctx, data)

    async def on_turn_start(self, ctx: PluginContext) -> None:
        ctx.custom_context["tool_round_count"] = 0
        ctx.custom_context.pop("tool_closing", None)

    async def on_before_request(self, ctx: PluginContext) -> None:
        if ctx.custom_context.get("tool_closing"):
            ctx.body.pop("tools", None)
            ctx.body["tool_choice"] = "none"
            return
        tools = self.resolve_tools(ctx)
        if tools:
            ctx.body["tools"] = [tool.schema() for tool in tools.values()]

    async def on_after_request(self, ctx: PluginContext) -> None:
        message = ctx.assistant_message
        calls = list(message.get("tool_calls") or []) if message is not None else []
        if message is None or not calls:
            return
        if ctx.custom_context.get("tool_closing"):
            raise ToolError("the model called tools in the closing request, where tools are not allowed")
        rounds = int(ctx.custom_context.get("tool_round_count", 0)) + 1
        ctx.custom_context["tool_round_count"] = rounds
        entries = message.setdefault("state", {}).setdefault("tool_calls", {})
        if self.max_tool_rounds is not None and rounds > self.max_tool_rounds:
            await self._close_rounds(ctx, message, calls, entries)
            return
        tools = self.resolve_tools(ctx)
        if self.before_call_tools is not None:
            await _maybe_await(self.before_call_tools(calls, ctx))
        to_run: list[tuple[ToolCall, Tool | None]] = []
        truncated = ctx.finish_reason == "length"
        for call in calls:
            if truncated and arguments_object_or_none(call["function"]["arguments"] or "{}") is None:
                entries[call["id"]] = {"status": "failed", "error": "arguments incomplete"}
                call["function"]["arguments"] = normalize_arguments(call["function"]["arguments"])  # rule 3
                message["state"]["arguments_incomplete"] = True
                self._append_result(ctx, message, call["id"], ARGUMENTS_INCOMPLETE)
                continue
            problem = _malformed(call)
            if problem is not None:  # never offered, never run: the model hears why and may call again
                entries[call["id"]] = {"status": "failed", "error": problem}
                call["function"]["name"] = call["function"]["name"] or UNKNOWN_TOOL_NAME
                call["function"]["arguments"] = normalize_arguments(call["function"]["arguments"])  # rule 3
                self._append_result(ctx, message, call["id"], MALFORMED_CALL.format(problem=problem))
                continue
            tool = tools.get(call["function"]["name"])
            if tool is not None and await self._needs_approval(tool, call, ctx):
                entries[call["id"]] = {"status": AWAITING}
            else:
                entries[call["id"]] = {"status": "running"}
                to_run.append((call, tool))
        ctx.set_processing_state("calling-tools")
        ctx.notify()
        await asyncio.gather(*(self._execute(ctx, message, call, tool, "auto") for call, tool in to_run))
        self._settle(ctx, message)

    async def on_turn_abort(self, ctx: PluginContext) -> None:
        message = self._paused_message(ctx)
        if message is not None:
            for call_id, entry in message["state"]["tool_calls"].items():
                if entry.get("status") == AWAITING:
                    entry["status"] = "denied"
                    entry["reason"] = "cancelled by user"
                    self._append_result(ctx, message, call_id, CANCELLED_BY_USER)
            ctx.notify()

    # -- commands ---------------------------------------------------------------------------------------------
    def _decision_target(self, payload: dict[str, Any]) -> tuple[PluginContext, Message, ToolCall] | dict[str, Any]:
        """The paused call a decision is about, or the ``missing`` outcome when nothing awaits under that id."""
        ctx = self._context()
        found = self._awaiting(ctx, payload.get("tool_call_id"))
        if found is None:
            return {"status": "missing", "tool_call_id": payload.get("tool_call_id")}
        return ctx, *found

    async def _resume(self, payload: dict[str, Any]) -> dict[str, Any]:
        target = self._decision_target(payload)
        if isinstance(target, dict):
            return target
        ctx, message, call = target
        call_id = call["id"]
        tool = self.resolve_tools(ctx).get(call["function"]["name"])  # may raise: the turn stays paused
        if tool is None:
            return {"status": "unavailable", "tool_call_id": call_id,
                    "error": Notice("tools.unregistered", name=call["function"]["name"])}
        problem = tool.unavailable(call["function"]["arguments"]) if tool.unavailable is not None else None
        if problem:
            return {"status": "unavailable", "tool_call_id": call_id, "error": problem}
        edited = payload.get("arguments")
        if edited is not None:
            problem = _arguments_problem(edited)
            if problem:
                return {"status": "invalid-arguments", "tool_call_id": call_id, "error": problem}
        entry = message["state"]["tool_calls"][call_id]
        entry["status"] = "running"
        _record_decision(entry, payload)
        if edited is not None:
            text = edited if isinstance(edited, str) else json.dumps(edited, ensure_ascii=False)
            if text != call["function"]["arguments"]:
                entry["original_arguments"] = call["function"]["arguments"]
                entry["arguments_edited"] = text
                call["function"]["arguments"] = text
        ctx.notify()

        async def work() -> None:
            await self._execute(ctx, message, call, tool, "approved")
            self._settle(ctx, message)

        await ctx.resume_with(work)
        return {"status": "resumed", "tool_call_id": call_id}

    async def _reject(self, payload: dict[str, Any]) -> dict[str, Any]:
        target = self._decision_target(payload)
        if isinstance(target, dict):
            return target
        ctx, message, call = target
        call_id = call["id"]
        reason = payload.get("reason")
        entry = message["state"]["tool_calls"][call["id"]]
        entry["status"] = "denied"
        _record_decision(entry, payload)
        text = DENIED_BY_USER
        if isinstance(reason, str) and reason.strip():
            entry["reason"] = reason.strip()
            text = f"{DENIED_BY_USER} Reason: {reason.strip()}"
        self._append_result(ctx, message, call["id"], text)
        if awaiting_call_ids([message]):
            ctx.notify()  # still paused (the autosave keeps the stored snapshot in step)
            return {"status": "denied", "tool_call_id": call_id}

        async def work() -> None:
            self._settle(ctx, message)

        await ctx.resume_with(work)
        return {"status": "denied", "tool_call_id": call_id}

    # -- snapshots ----------------------------------------------------------------------------------------------
    def export_paused_turn(self, ctx: PluginContext) -> PausedTurn | None:
        message = self._paused_message(ctx)
        if message is None or not awaiting_call_ids([message]):
            return None
        return capture_snapshot(message, custom_context=ctx.custom_context,
                                tool_round_count=int(ctx.custom_context.get("tool_round_count", 0)),
                                paused_at=self._paused_at(message))

    def _restore(self, ctx: PluginContext, data: Mapping[str, Any]) -> None:
        try:
            snapshot = check_paused_turn(data)
        except (RecordError, ValueError) as error:
            self._refuse(ctx, Notice("tools.paused_unreadable", error=error))
            return
        check = check_restorable(snapshot, ctx.messages, ctx.turns)
        if not check.ok:
            self._refuse(ctx, Notice("tools.paused_not_restored", reason=check.reason))
            return
        index = check.assistant_index
        if index is not None and self._settle_known_calls(ctx, snapshot["turn_id"], index):
            return
        context = dict(snapshot["custom_context"])
        context["tool_round_count"] = snapshot["tool_round_count"]
        ctx.restore_paused_turn(snapshot["turn_id"], context)

    def _settle_known_calls(self, ctx: PluginContext, turn_id: str, index: int) -> bool:
        """Awaiting calls the approval ledger saw start in an earlier kernel (the tab closed before the notebook was
        saved) get a result instead of being offered again. True when none is left awaiting."""
        if self.ledger is None:
            return False
        message = ctx.messages[index]
        try:
            known = self.ledger.entries()
        except OSError:
            return False
        settled = []
        entries = message["state"]["tool_calls"]
        for call in message.get("tool_calls") or []:
            entry = entries.get(call["id"])
            found = known.get((turn_id, call["id"]))
            if entry is None or entry.get("status") != AWAITING or found is None:
                continue
            if found.arguments_sha256 != arguments_sha256(call["function"]["arguments"]):
                continue
            entries[call["id"]] = {**entry, "status": "cancelled", "reason": "decided in an earlier kernel"}
            text = ALREADY_DECIDED if found.outcome is None else f"{ALREADY_RAN} ({found.outcome}); result not kept"
            self._insert_result(ctx, index, call, text)
            settled.append(call["id"])
        if not settled:
            return False
        remaining = awaiting_call_ids([message])
        ctx.set_notice(Notice("tools.already_decided", n=len(settled), ids=", ".join(settled)))
        return not remaining

    def _insert_result(self, ctx: PluginContext, index: int, call: ToolCall, text: str) -> None:
        messages = ctx.messages
        end = index + 1
        while end < len(messages) and messages[end].get("role") == "tool":
            end += 1
        result = tool_result_message(call["id"], text, tool_name=call["function"]["name"])
        result["state"] = {"turn_id": (messages[index].get("state") or {}).get("turn_id")}
        messages.insert(end, result)

    @staticmethod
    def _paused_at(message: Message) -> str:
        state = message.setdefault("state", {})
        if "paused_at" not in state:
            state["paused_at"] = utc_now()
        return str(state["paused_at"])

    @staticmethod
    def _refuse(ctx: PluginContext, reason: Notice) -> None:
        ctx.set_notice(Notice("tools.not_restored", reason=reason))

    # -- running calls ----------------------------------------------------------------------------------------
    async def _needs_approval(self, tool: Tool, call: ToolCall, ctx: PluginContext) -> bool:
        if tool.approval:
            return True
        if self.should_pause is None:
            return False
        return bool(await _maybe_await(self.should_pause(call, ctx)))

    async def _execute(self, ctx: PluginContext, message: Message, call: ToolCall, tool: Tool | None,
                       decision: Decision) -> None:
        entry = message["state"]["tool_calls"][call["id"]]
        entry["status"] = "running"
        if self.on_tool_call_start is not None:
            await _maybe_await(self.on_tool_call_start(call, ctx))
        if tool is None:
            result = ToolResult.failure(f"unknown tool {call['function']['name']!r}: no tool of that name exists")
        else:
            turn_id = str(ctx.turn_id)
            self._note(ctx, "record_start", turn_id, call["id"],
                       entry.get("original_arguments", call["function"]["arguments"]), decision)
            try:
                result = await tool.invoke(call["function"]["arguments"])
            except asyncio.CancelledError:
                entry["status"] = "cancelled"
                self._append_result(ctx, message, call["id"], OUTCOME_UNKNOWN)
                self._note(ctx, "record_outcome", turn_id, call["id"], "cancelled")
                raise
            self._note(ctx, "record_outcome", turn_id, call["id"], "success" if result.ok else "failed")
        entry["status"] = "success" if result.ok else "failed"
        if result.error:
            entry["error"] = result.error
        content = result.content
        if entry.get("arguments_edited") is not None:
            ran_with = call["function"]["arguments"]
            content = f"{EDITED_NOTE_PREFIX} it ran with {ran_with}]\n{content}"
        self._append_result(ctx, message, call["id"], content, display=result.display)
        if self.on_tool_call_end is not None:
            await _maybe_await(self.on_tool_call_end(call, result, ctx))

    def _note(self, ctx: PluginContext, method: str, *args: Any) -> None:
        """Write to the approval ledger; a ledger that can't be written is said once and doesn't stop the tool."""
        if self.ledger is None:
            return
        try:
            getattr(self.ledger, method)(*args)
        except OSError as error:
            ctx.set_notice(Notice("tools.ledger_unwritable", path=self.ledger.path, error=error))
            self.ledger = None

    def _settle(self, ctx: PluginContext, message: Message) -> None:
        """After a call finished: pause if calls await a human, continue when all are done."""
        statuses = [entry.get("status") for entry in message["state"]["tool_calls"].values()]
        if "running" in statuses:
            return
        if AWAITING in statuses:
            ctx.pause()
        elif not message["state"].get("arguments_incomplete"):  # cut off: the turn ends max-tokens (Continue)
            ctx.request_next()

    async def _close_rounds(self, ctx: PluginContext, message: Message, calls: list[ToolCall],
                            entries: dict[str, Any]) -> None:
        limit = f"cancelled: the limit of {self.max_tool_rounds} tool rounds per turn was reached"
        for call in calls:
            entries[call["id"]] = {"status": "cancelled", "reason": "max_tool_rounds"}
            self._append_result(ctx, message, call["id"], limit)
        if self.on_limit_exceeded is not None:
            await _maybe_await(self.on_limit_exceeded(ctx))
        ctx.custom_context["tool_closing"] = True
        ctx.request_next()

    def _append_result(self, ctx: PluginContext, message: Message, call_id: str, content: str,
                       display: dict[str, Any] | None = None) -> None:
        name = next((c["function"]["name"] for c in message.get("tool_calls") or [] if c["id"] == call_id), None)
        result = tool_result_message(call_id, content, tool_name=name)
        result.setdefault("state", {})["turn_id"] = (message.get("state") or {}).get("turn_id")
        if display:
            result.setdefault("metadata", {})["display"] = display
        ctx.append_message(result)

    # -- lookups --------------------------------------------------------------------------------------------------
    def _context(self) -> PluginContext:
        if self._ctx is None:
            raise PluginError("ToolPlugin is not attached to an engine")
        return self._ctx

    def _paused_message(self, ctx: PluginContext) -> Message | None:
        for message in reversed(ctx.messages):
            if message.get("role") != "assistant":
                continue
            state = message.get("state") or {}
            if state.get("turn_id") == ctx.turn_id and state.get("tool_calls"):
                found: Message = message
                return found
        return None

    def _awaiting(self, ctx: PluginContext, call_id: Any) -> tuple[Message, ToolCall] | None:
        if not isinstance(call_id, str) or not ctx.can_resume:
            return None
        message = self._paused_message(ctx)
        if message is None or call_id not in awaiting_call_ids([message]):
            return None
        call = next((c for c in message.get("tool_calls") or [] if c["id"] == call_id), None)
        return (message, call) if call is not None else None


def _malformed(call: ToolCall) -> str | None:
    """Why a finished call can't be offered or run (no tool name; arguments that are not one JSON object)."""
    if not call["function"]["name"]:
        return "it has no tool name"
    if arguments_object_or_none(call["function"]["arguments"] or "{}") is None:
        return "its arguments are not a JSON object"
    return None


def _arguments_problem(arguments: Any) -> str | None:
    if isinstance(arguments, dict):
        return None
    if not isinstance(arguments, str):
        return Notice("tools.arguments_not_object")
    try:
        value = json.loads(arguments)
    except ValueError as error:
        return Notice("tools.edited_not_json", error=error)
    return None if isinstance(value, dict) else Notice("tools.edited_not_object")


def _record_decision(entry: ToolCallState, payload: dict[str, Any]) -> None:
    """Who decided (``"user"`` from the widget, ``"code"`` from ``chat.approve``/``deny``) and when (epoch s)."""
    by = payload.get("by")
    entry["decided_by"] = by if by in ("user", "code") else "code"
    entry["decided_at"] = round(time.time(), 3)
