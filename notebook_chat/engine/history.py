"""History invariants (DESIGN.md "History invariants"): check them; repair a history so providers accept it.

Pure functions over OpenAI-Chat-shaped messages. `validate` reports every violation; `prepare_for_request`
builds a new provider-ready list before each request; `repair` applies the same fixes but keeps engine fields
(save and restore); `drop_temp` removes provider-only (temp) messages and re-checks pairing.

Repair decisions, in one place:

- Roles: ``developer`` is read as ``system``; any other unknown role is dropped.
- System: the first system message becomes the system prompt at index 0; every later system message stays
  where it was, as a user message whose text starts with ``SYSTEM_NOTE_PREFIX`` (position and wording kept,
  the cached prompt prefix unchanged).
- Pairing: a tool result belongs to the most recent call with its id. Results separated from their call move
  back into the call's block; results without a call, or for a call already answered, are dropped (the first
  answer wins). Every unanswered call gets a result ``OUTCOME_UNKNOWN`` after the call's existing results;
  no tool is ever re-run.
- Ids: an empty id becomes ``call_<message index>_<call index>``; a repeated id becomes ``<id>_<n>`` (its
  results follow it).
- Arguments: missing or blank → ``"{}"``; a JSON-object string is kept byte for byte; anything else (invalid
  JSON, ``"[1]"``, ``"3"``) → ``{"_raw": "<original text>"}`` so the model still sees what it sent; a dict
  is dumped. A call without a name is named ``UNKNOWN_TOOL_NAME``.
- Empty assistant messages (no content, no tool calls) are dropped; an empty ``tool_calls`` list is removed. A
  reply that only reasoned (``reasoning_content``, nothing else: stopped or failed while it thought) is kept by
  `repair` (saved and restored, so its reasoning still shows) and dropped by `prepare_for_request` (a provider
  refuses an assistant message with no content and no calls).
- Temp units: if any member of a call unit is not temp, the whole unit becomes non-temp (nothing is lost).
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from notebook_chat.engine.conversation import ENGINE_ONLY_FIELDS, ROLES, Message
from notebook_chat.engine.errors import HistoryError
from notebook_chat.engine.messages import content_text

OUTCOME_UNKNOWN = "cancelled — outcome unknown"
"""Content of the result written for a call that never got one (the turn stopped or crashed mid round)."""

SYSTEM_NOTE_PREFIX = "[system] "
UNKNOWN_TOOL_NAME = "unknown_tool"


@dataclass(frozen=True)
class Violation:
    index: int
    rule: str
    message: str

    def __str__(self) -> str:
        return f"[{self.index}] {self.rule}: {self.message}"


# ---------------------------------------------------------------------------------------------------- checks


def validate(messages: Sequence[Mapping[str, Any]], *, pending: Collection[str] = (), after: int = 0,
             used_ids: Collection[str] = ()) -> list[Violation]:
    """Every violation of the history rules, in message order; ``[]`` means valid.

    Engine fields are allowed. ``pending`` names call ids awaiting a decision (a paused turn): they may stay
    unanswered when their call is the last block of the history.

    ``after`` and ``used_ids`` check the end of a history whose first ``after`` messages passed already (they end
    with a whole block and hold the call ids ``used_ids``): ``validate(head + tail) == []`` exactly when
    ``validate(head) == []`` with ``head`` followed by more messages and ``validate(tail, after=len(head),
    used_ids=<head's call ids>) == []``. Indices in the violations count from the history's start.
    """
    found: list[Violation] = []
    seen_ids: set[str] = set()
    index, count = 0, len(messages)
    while index < count:
        message = messages[index]
        role = message.get("role")
        if role not in ROLES:
            found.append(Violation(index + after, "role", f"role {role!r} is not one of {', '.join(ROLES)}"))
        elif role == "system" and index + after != 0:
            found.append(Violation(index + after, "system", "a system message is allowed only once, at index 0"))
        elif role == "tool":
            found.append(Violation(index + after, "orphan-result", "tool message does not follow a call with its id"))
        elif role == "assistant" and "tool_calls" in message:
            index = _validate_block(messages, index, seen_ids, pending, found, after, used_ids)
            continue
        index += 1
    return found


def _validate_block(
    messages: Sequence[Mapping[str, Any]], start: int, seen_ids: set[str], pending: Collection[str],
    found: list[Violation], after: int = 0, used_ids: Collection[str] = (),
) -> int:
    """Check an assistant(tool_calls) message and the tool messages after it; return the index after them."""
    calls = messages[start].get("tool_calls")
    if not isinstance(calls, list) or not calls:
        found.append(Violation(start + after, "tool-call", "tool_calls must be a non-empty list"))
        return start + 1
    expected: list[str] = []
    for position, call in enumerate(calls):
        call_id = _check_call(call, position, start + after, found)
        if call_id is None:
            continue
        if call_id in seen_ids or call_id in used_ids:
            found.append(Violation(start + after, "tool-call-id", f"tool call id {call_id!r} is used more than once"))
        seen_ids.add(call_id)
        expected.append(call_id)
    answered: set[str] = set()
    end = start + 1
    while end < len(messages) and messages[end].get("role") == "tool":
        result_id = messages[end].get("tool_call_id")
        if result_id in answered:
            found.append(Violation(end + after, "duplicate-result", f"second result for tool call {result_id!r}"))
        elif result_id in expected:
            answered.add(cast(str, result_id))
        else:
            found.append(Violation(end + after, "orphan-result", f"result for {result_id!r}: no such call here"))
        end += 1
    missing = [call_id for call_id in expected if call_id not in answered]
    if end == len(messages):
        missing = [call_id for call_id in missing if call_id not in pending]
    if missing:
        found.append(Violation(start + after, "missing-result", f"no tool message answers {', '.join(missing)}"))
    flags = {bool(messages[i].get("temp")) for i in range(start, end)}
    if len(flags) > 1:
        found.append(Violation(start + after, "temp-unit", "a call and its results must be all temp or none temp"))
    return end


def _check_call(call: Any, position: int, index: int, found: list[Violation]) -> str | None:
    """Shape, id and arguments of one tool call; returns its id when it has a usable one."""
    where = f"tool_calls[{position}]"
    if not isinstance(call, Mapping):
        found.append(Violation(index, "tool-call", f"{where} is not an object"))
        return None
    function = call.get("function")
    if call.get("type", "function") != "function" or not isinstance(function, Mapping):
        found.append(Violation(index, "tool-call", f"{where} is not a function call"))
        function = {}
    name = function.get("name")
    if not isinstance(name, str) or not name:
        found.append(Violation(index, "tool-call", f"{where} has no function name"))
    if arguments_object_or_none(function.get("arguments")) is None:
        found.append(Violation(index, "arguments", f"{where} arguments are not a JSON-object string"))
    call_id = call.get("id")
    if not isinstance(call_id, str) or not call_id:
        found.append(Violation(index, "tool-call-id", f"{where} has an empty id"))
        return None
    return call_id


def assert_valid(messages: Sequence[Mapping[str, Any]], *, pending: Collection[str] = ()) -> None:
    """Raise HistoryError listing every violation."""
    found = validate(messages, pending=pending)
    if found:
        lines = "\n".join(f"  {violation}" for violation in found)
        raise HistoryError(f"the history breaks {len(found)} provider rule(s):\n{lines}")


# ------------------------------------------------------------------------------------------------- arguments


def arguments_object_or_none(arguments: Any) -> dict[str, Any] | None:
    """The JSON object a call's arguments string holds, or None when it holds anything else."""
    if not isinstance(arguments, str):
        return None
    try:
        value = json.loads(arguments)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def normalize_arguments(arguments: Any) -> str:
    """A JSON-object string for any arguments value (see the module docstring for the rules)."""
    if arguments is None or (isinstance(arguments, str) and not arguments.strip()):
        return "{}"
    if isinstance(arguments, str):
        if arguments_object_or_none(arguments) is not None:
            return arguments
        return json.dumps({"_raw": arguments}, ensure_ascii=False)
    if isinstance(arguments, Mapping):
        return json.dumps(dict(arguments), ensure_ascii=False, default=str)
    return json.dumps({"_raw": json.dumps(arguments, ensure_ascii=False, default=str)}, ensure_ascii=False)


def arguments_object(arguments: Any) -> dict[str, Any]:
    """Arguments as a dict (what Anthropic `input` and Gemini `args` need), after `normalize_arguments`."""
    value = json.loads(normalize_arguments(arguments))
    return cast("dict[str, Any]", value)


# ---------------------------------------------------------------------------------------------------- repair


def prepare_for_request(
    messages: Sequence[Mapping[str, Any]], *, exclude: tuple[str, ...] = ENGINE_ONLY_FIELDS,
) -> list[dict[str, Any]]:
    """A new provider-ready list: repaired, ``exclude`` fields dropped; ``validate(result) == []``."""
    return _normalize(messages, exclude=exclude, pending=(), keep_reasoning=False)


def repair(messages: Sequence[Mapping[str, Any]], *, pending: Collection[str] = ()) -> list[Message]:
    """The same fixes, keeping engine fields; synthetic results get an id and ``metadata.synthetic``.

    ``pending`` call ids (a paused turn awaiting approval) stay unanswered when their call is the last block.
    """
    return cast("list[Message]", _normalize(messages, exclude=(), pending=pending, keep_reasoning=True))


def drop_temp(messages: Sequence[Mapping[str, Any]], *, pending: Collection[str] = ()) -> list[Message]:
    """Remove whole temp units and temp messages, then repair what is left (rule 5, then rule 2)."""
    repaired = repair(messages, pending=pending)
    kept = [message for message in repaired if not message.get("temp")]
    return repaired if len(kept) == len(repaired) else repair(kept, pending=pending)


@dataclass
class _Unit:
    """An assistant(tool_calls) message, a slot per call, the results filed, each member's temp flag."""

    assistant: dict[str, Any]
    temp: list[bool]
    slots: list[_Slot] = field(default_factory=list)
    results: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class _Slot:
    call_id: str
    name: str
    unit: _Unit
    answered: bool = False


def _normalize(
    messages: Sequence[Mapping[str, Any]], *, exclude: tuple[str, ...], pending: Collection[str],
    keep_reasoning: bool,
) -> list[dict[str, Any]]:
    """One pass over the history (O(n) in messages and calls); see the module docstring for the decisions.
    ``keep_reasoning``: an assistant message that holds only reasoning stays (else it is dropped as empty)."""
    known_ids = _all_call_ids(messages)
    used_ids: set[str] = set()
    open_slots: dict[str, list[_Slot]] = {}
    system: dict[str, Any] | None = None
    entries: list[dict[str, Any] | _Unit] = []
    for index, raw in enumerate(messages):
        if not isinstance(raw, Mapping):
            continue
        role = "system" if raw.get("role") == "developer" else raw.get("role")
        message = {key: _clone(value) for key, value in raw.items() if key not in exclude}
        if "role" in message:
            message["role"] = role
        if role == "system":
            if system is None:
                system = message
                continue
            message["role"] = "user"
            message["content"] = SYSTEM_NOTE_PREFIX + content_text(raw.get("content"))
            entries.append(message)
        elif role == "user":
            entries.append(message)
        elif role == "assistant":
            unit = _make_unit(raw, message, index, known_ids, used_ids, open_slots)
            if unit is not None:
                entries.append(unit)
            elif not _is_empty(message.get("content")) or (keep_reasoning and only_reasoned(message)):
                entries.append(message)
        elif role == "tool":
            _answer(raw, message, open_slots)
    out: list[dict[str, Any]] = [] if system is None else [system]
    for position, entry in enumerate(entries):
        if isinstance(entry, dict):
            out.append(entry)
        else:
            keep_open = pending if position == len(entries) - 1 else ()
            out.extend(_emit_unit(entry, exclude, keep_open))
    return out


def _make_unit(
    raw: Mapping[str, Any], message: dict[str, Any], index: int, known_ids: set[str], used_ids: set[str],
    open_slots: dict[str, list[_Slot]],
) -> _Unit | None:
    """Normalize an assistant message's calls and open a slot per call; None when it has no usable call."""
    message.pop("tool_calls", None)
    calls = raw.get("tool_calls")
    if not isinstance(calls, list):
        return None
    unit = _Unit(assistant=message, temp=[bool(raw.get("temp"))])
    new_calls: list[dict[str, Any]] = []
    by_original: dict[str, list[_Slot]] = {}
    for position, call in enumerate(calls):
        if not isinstance(call, Mapping):
            continue
        function = call.get("function")
        function = function if isinstance(function, Mapping) else {}
        name = function.get("name")
        name = name if isinstance(name, str) and name else UNKNOWN_TOOL_NAME
        original = call.get("id")
        original = original if isinstance(original, str) else ""
        call_id = original
        if not call_id or call_id in used_ids:
            call_id = _fresh_id(original or f"call_{index}_{position}", known_ids, used_ids)
        used_ids.add(call_id)
        arguments = normalize_arguments(function.get("arguments"))
        new_function = {**{k: _clone(v) for k, v in function.items()}, "name": name, "arguments": arguments}
        new_calls.append({**{k: _clone(v) for k, v in call.items()}, "id": call_id, "type": "function",
                          "function": new_function})
        slot = _Slot(call_id=call_id, name=name, unit=unit)
        unit.slots.append(slot)
        if original:
            by_original.setdefault(original, []).append(slot)
    if not new_calls:
        return None
    message["tool_calls"] = new_calls
    open_slots.update(by_original)
    return unit


def _answer(raw: Mapping[str, Any], message: dict[str, Any], open_slots: dict[str, list[_Slot]]) -> None:
    """File a tool result under the most recent unanswered call with its id; drop it when there is none."""
    result_id = raw.get("tool_call_id")
    slots = open_slots.get(result_id) if isinstance(result_id, str) else None
    slot = next((slot for slot in slots or () if not slot.answered), None)
    if slot is None:
        return
    slot.answered = True
    message["tool_call_id"] = slot.call_id
    content = message.get("content")
    if content is None:
        message["content"] = ""
    elif not isinstance(content, (str, list)):
        message["content"] = json.dumps(content, ensure_ascii=False, default=str)
    slot.unit.results.append(message)
    slot.unit.temp.append(bool(raw.get("temp")))


def _emit_unit(unit: _Unit, exclude: tuple[str, ...], keep_open: Collection[str]) -> list[dict[str, Any]]:
    temp = all(unit.temp)
    synthetic = [
        _synthetic_result(slot, temp, exclude)
        for slot in unit.slots
        if not slot.answered and slot.call_id not in keep_open
    ]
    members = [unit.assistant, *unit.results, *synthetic]
    if not temp:
        for member in members:
            member.pop("temp", None)
    return members


def _synthetic_result(slot: _Slot, temp: bool, exclude: tuple[str, ...]) -> dict[str, Any]:
    result: dict[str, Any] = {
        "id": f"msg_synthetic_{slot.call_id}",
        "role": "tool",
        "tool_call_id": slot.call_id,
        "content": OUTCOME_UNKNOWN,
        "metadata": {"synthetic": True, "tool_name": slot.name},
    }
    if temp:
        result["temp"] = True
    return {key: value for key, value in result.items() if key not in exclude}


def _all_call_ids(messages: Sequence[Mapping[str, Any]]) -> set[str]:
    ids: set[str] = set()
    for message in messages:
        calls = message.get("tool_calls") if isinstance(message, Mapping) else None
        for call in calls if isinstance(calls, list) else ():
            if isinstance(call, Mapping) and isinstance(call.get("id"), str):
                ids.add(call["id"])
    return ids


def _fresh_id(base: str, known_ids: set[str], used_ids: set[str]) -> str:
    if base not in known_ids and base not in used_ids:
        return base
    suffix = 2
    while f"{base}_{suffix}" in known_ids or f"{base}_{suffix}" in used_ids:
        suffix += 1
    return f"{base}_{suffix}"


def _clone(value: Any) -> Any:
    """A copy of JSON-like containers (cheaper than deepcopy); leaves are shared (they are immutable)."""
    if isinstance(value, dict):
        return {key: _clone(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_clone(item) for item in value]
    return value


def only_reasoned(message: Mapping[str, Any]) -> bool:
    """An assistant message with reasoning and nothing else (no text, no calls): kept in the record, never sent."""
    reasoning = message.get("reasoning_content")
    return (message.get("role") == "assistant" and isinstance(reasoning, str) and bool(reasoning)
            and not message.get("tool_calls") and _is_empty(message.get("content")))


def _is_empty(content: Any) -> bool:
    return content is None or content == "" or content == []

