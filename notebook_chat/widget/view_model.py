"""Engine messages → what the browser draws. Tool results fold into their call's card; hidden messages stay out."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ..engine import Message, MessageEngine
from ..engine.conversation import MAX_TOOL_RESULT_CHARS
from ..engine.usage import usage_of
from ..plugins import SkillPlugin, continue_offer
from ..plugins.tools import EDITED_NOTE_PREFIX
from .message_views import MessageViews
from .message_views import tool_results as tool_results
from .recovery import retry_offer

STOPPED_REASON = "cancelled by user"
"""The reason ToolPlugin records on a call still awaiting approval when the turn is stopped."""


def pretty_arguments(arguments: str, *, streaming: bool) -> str:
    if streaming:
        return arguments
    try:
        return json.dumps(json.loads(arguments or "{}"), indent=2, ensure_ascii=False)
    except ValueError:
        return arguments


def message_view(message: Message, results: dict[str, Message]) -> dict[str, Any]:
    state = message.get("state") or {}
    metadata = message.get("metadata") or {}
    loading = bool(message.get("loading"))
    view: dict[str, Any] = {
        "id": message.get("id"), "role": message.get("role"), "content": message.get("content") or "",
        "hidden": bool(metadata.get("hidden")), "loading": loading,
    }
    if message.get("reasoning_content"):
        view["reasoning_content"] = message["reasoning_content"]
        view["thinking"] = bool(state.get("thinking"))
    if state.get("error"):
        view["error"] = state["error"]
    if metadata.get("injected"):
        view["injected"] = True
    usage = usage_of(message)
    if usage:
        view["usage"] = usage
    if metadata.get("left_out_turns"):
        view["left_out_turns"] = metadata["left_out_turns"]
    if message.get("role") == "user" and metadata.get("mentions"):
        view["mentions"] = mention_chips(metadata["mentions"])
    calls = message.get("tool_calls")
    if calls:
        entries = state.get("tool_calls") or {}
        view["tool_calls"] = [_call_view(call, entries.get(call["id"]) or {}, results.get(call["id"]), loading)
                              for call in calls]
    return view


def mention_chips(mentions: Any) -> list[dict[str, Any]]:
    """One chip per recorded mention (stored metadata is untrusted: odd entries are left out)."""
    if not isinstance(mentions, list):
        return []
    return [{"name": m["name"][:100], "label": str(m.get("label") or "")[:200], "temp": m.get("temp") is True}
            for m in mentions[:50] if isinstance(m, dict) and isinstance(m.get("name"), str)]


def _call_view(call: Any, entry: Mapping[str, Any], result: Message | None, loading: bool) -> dict[str, Any]:
    status = entry.get("status") or ("running" if loading else "pending")
    view: dict[str, Any] = {
        "id": call["id"], "name": call["function"]["name"],
        "arguments": pretty_arguments(call["function"]["arguments"], streaming=loading), "status": status,
    }
    if entry.get("arguments_edited") is not None:
        view["edited_arguments"] = view["arguments"]
        view["arguments"] = pretty_arguments(entry.get("original_arguments") or "", streaming=False)
    if entry.get("error"):
        view["error"] = entry["error"]
    if entry.get("reason"):
        view["reason"] = entry["reason"]
    if status == "denied" and entry.get("reason") == STOPPED_REASON and "decided_by" not in entry:
        view["stopped"] = True  # the turn was stopped while the call awaited a decision
    if entry.get("decided_by") in ("user", "code"):
        view["decided_by"] = entry["decided_by"]
    if isinstance(entry.get("decided_at"), (int, float)):
        view["decided_at"] = entry["decided_at"]
    if result is not None:
        content = result.get("content") or ""
        if entry.get("arguments_edited") is not None and isinstance(content, str) \
                and content.startswith(EDITED_NOTE_PREFIX):
            content = content.partition("\n")[2]  # the note is for the model; the card says it its own way
        view["result"] = content
        metadata = result.get("metadata") or {}
        if metadata.get("display"):
            view["display"] = metadata["display"]
        truncated = metadata.get("truncated")
        if truncated or (isinstance(content, str) and len(content) > MAX_TOOL_RESULT_CHARS):
            view["truncated"] = truncated or {"chars": len(content)}  # stored cut to the limit, with a note
    return view


def conversation_view(engine: MessageEngine, tools: dict[str, dict[str, Any]] | None = None,
                      memo: MessageViews | None = None) -> dict[str, Any]:
    """The full view (docs/widget-protocol.md). Status goes as codes; the browser owns their wording.
    ``tools``: ``{name: {"description", "approval"}}`` — cards show a tool's description. ``memo``: the views of
    the earlier messages kept from the last call (the same view, built from what changed)."""
    views, usage = (memo if memo is not None else MessageViews()).views(engine.messages, message_view)
    state = engine.state
    offer = continue_offer(engine)
    return {
        "messages": views,
        "status": {"request_state": state.request_state, "processing_state": state.processing_state,
                   "error": state.error},
        "continue_offer": {"message_id": offer["message_id"], "reason": offer["reason"]} if offer else None,
        "retry_offer": retry_offer_view(engine),
        "usage_total": usage,
        "notice": state.notice,
        "tools": tools or {},
    }


def retry_offer_view(engine: MessageEngine) -> dict[str, Any] | None:
    offer = retry_offer(engine)
    return {"message_id": offer["message_id"], "reason": offer["reason"]} if offer else None


def skills_view(plugin: SkillPlugin) -> dict[str, Any] | None:
    """The skill chips: every available skill, whether it is active, and whether the user may toggle it."""
    if not plugin.available:
        return None
    active = set(plugin.active)
    return {"mode": plugin.mode, "toggle": plugin.mode != "always", "items": [
        {"name": name, "description": plugin.skill(name).description, "active": name in active}
        for name in plugin.available]}
