"""The conversation, defined once: the persisted shapes, their one validator, and the questions asked about them.

Messages are plain JSON dicts in OpenAI Chat shape (``role``, ``content``, ``tool_calls``, ``tool_call_id``,
``reasoning_content``) plus engine fields that never reach a provider (``ENGINE_ONLY_FIELDS``). A
:class:`ConversationRecord` is what a store keeps per conversation: messages, turn log, paused-turn snapshot, update
time. Every layer imports these shapes from here; nothing else defines them.

:func:`validate_record` is the one validator (a pydantic ``TypeAdapter`` over these TypedDicts, strict, limits as
constraints). Its errors name the JSON path (``$.messages[3].role: expected one of ...``). Unknown fields are kept
inside messages, tool calls, their states and at the top of a record; turn entries and paused turns refuse them.
What pydantic can't express — strict JSON values everywhere, secrets, the size of the whole record — is checked by
the persistence layer, in one place, before this validator runs.
"""

import json
import re
from collections.abc import Iterable, Iterator, Mapping
from datetime import datetime, timedelta, timezone
from typing import Annotated, Any, Literal, get_args

import pydantic
from annotated_types import Ge, Le, MaxLen, MinLen
from pydantic import AfterValidator, BeforeValidator, ConfigDict, PlainValidator, TypeAdapter, with_config
from pydantic_core import PydanticCustomError
from typing_extensions import NotRequired, Required, TypedDict

from .errors import RecordError

# -------------------------------------------------------------------------------------------------------- vocabulary

Role = Literal["system", "user", "assistant", "tool"]
ROLES: tuple[str, ...] = get_args(Role)
ToolCallStatus = Literal["running", "success", "failed", "cancelled", "awaiting-approval", "denied"]
AWAITING: ToolCallStatus = "awaiting-approval"
EndReason = Literal["completed", "aborted", "error", "max-tokens", "interrupted", "blocked"]
END_REASONS: tuple[str, ...] = get_args(EndReason)

ENGINE_ONLY_FIELDS: tuple[str, ...] = ("id", "state", "metadata", "loading", "temp")
"""Fields the engine keeps on a message that no provider may see."""

RECORD_VERSION = 1
PAUSED_TURN_VERSION = 1

# ------------------------------------------------------------------------------------------------------------ limits

MAX_ID_CHARS = 200
"""Ids (messages, tool calls, turns) and tool names. A provider id or tool name over it ends its turn in error."""
MAX_TEXT_CHARS = 10_000_000
MAX_TOOL_RESULT_CHARS = 100_000
"""A tool result longer than this is kept whole in the kernel for its turn, but stored truncated with a note."""
MAX_TOOL_CALLS = 256
MAX_CONTENT_PARTS = 1_000
MAX_MESSAGES = 10_000
MAX_TURNS = 10_000
MAX_DETAIL_CHARS = 100_000
MAX_PAUSED_CALLS = 256
MAX_TITLE_CHARS = 200
MAX_TOOL_ROUNDS = 1_000_000

TRUNCATED_NOTE = "\n\n[notebook_chat: this tool result was {chars} characters long; only the first {kept} are stored]"
"""Appended to a tool result stored truncated (``metadata["truncated"]`` holds the original length)."""

_OPEN = ConfigDict(strict=True, extra="allow")
_CLOSED = ConfigDict(strict=True, extra="forbid")


def _utc(text: str) -> str:
    try:
        parse_utc(text)
    except ValueError:
        raise PydanticCustomError(
            "utc", "expected an ISO-8601 UTC timestamp such as 2024-05-01T12:00:00Z, got {text}", {"text": repr(text)},
        ) from None
    return text


Id = Annotated[str, MinLen(1), MaxLen(MAX_ID_CHARS)]
Name = Annotated[str, MaxLen(MAX_ID_CHARS)]
Text = Annotated[str, MaxLen(MAX_TEXT_CHARS)]
UtcTime = Annotated[str, MinLen(1), MaxLen(64), AfterValidator(_utc)]


def _content(value: Any) -> Any:
    if value is None or (isinstance(value, str) and len(value) <= MAX_TEXT_CHARS):
        return value
    if isinstance(value, str):
        raise PydanticCustomError("too_long", "is {n} characters long, at most {m} are allowed",
                                  {"n": len(value), "m": MAX_TEXT_CHARS})
    if isinstance(value, list):
        if len(value) > MAX_CONTENT_PARTS:
            raise PydanticCustomError("too_long", "holds {n} parts, at most {m} are allowed",
                                      {"n": len(value), "m": MAX_CONTENT_PARTS})
        for index, part in enumerate(value):
            if not isinstance(part, dict):
                raise PydanticCustomError("part", "part {i} is not an object", {"i": index})
        return value
    raise PydanticCustomError("content", "expected text, a list of content parts or null, got {t}",
                              {"t": type(value).__name__})


Content = Annotated["str | list[dict[str, Any]] | None", PlainValidator(_content)]

# -------------------------------------------------------------------------------------------------------- checks


def _version(what: str, supported: int) -> Any:
    def check(value: Any) -> Any:
        if type(value) is not int:
            raise PydanticCustomError("version", f"the {what} version must be an integer, got {{v}}",
                                      {"v": describe(value)})
        if value != supported:
            newer = "a newer" if value > supported else "an unknown"
            raise PydanticCustomError(
                "version", f"the {what} has version {{v}}, written by {newer} notebook_chat; this one reads "
                           f"version {supported}", {"v": value})
        return value
    return BeforeValidator(check)


def _message(message: Any) -> Any:
    if message["role"] == "tool" and "tool_call_id" not in message:
        raise PydanticCustomError("tool", "a tool message needs a tool_call_id")
    return message


def _turns(turns: Any) -> Any:
    for index, turn in enumerate(turns):
        _turn_ended(turn, index)
    if len({turn["id"] for turn in turns}) != len(turns):
        raise PydanticCustomError("turn", DUPLICATE_TURN_ID)
    return turns


DUPLICATE_TURN_ID = "holds the same turn id twice"


def _turn_ended(turn: Any, index: int) -> None:
    if (turn["ended_at"] is None) != (turn["end_reason"] is None):
        raise PydanticCustomError(
            "turn", "[{i}]: ended_at and end_reason must both be set (an ended turn) or both be null", {"i": index})


_HEX64 = re.compile(r"^[0-9a-f]{64}$")


def _paused(paused: Any) -> Any:
    ids = paused["tool_call_ids"]
    if not ids:
        raise PydanticCustomError("paused", ".tool_call_ids: a paused turn awaits at least one call, the list is empty")
    if len(ids) > MAX_PAUSED_CALLS:
        raise PydanticCustomError("paused", ".tool_call_ids: holds {n} items, at most {m} are allowed",
                                  {"n": len(ids), "m": MAX_PAUSED_CALLS})
    if len(set(ids)) != len(ids):
        raise PydanticCustomError("paused", ".tool_call_ids: holds the same id twice")
    hashes = paused["call_hashes"]
    if set(hashes) != set(ids):
        missing, extra = sorted(set(ids) - set(hashes)), sorted(set(hashes) - set(ids))
        raise PydanticCustomError(
            "paused", ".call_hashes: must hold exactly one hash per awaiting call (missing: {m}, extra: {e})",
            {"m": str(missing or "none"), "e": str(extra or "none")})
    for call_id, digest in hashes.items():
        if not _HEX64.match(digest):
            raise PydanticCustomError("paused", ".call_hashes[{c}]: expected a lowercase sha256 hex digest",
                                      {"c": repr(call_id)})
    return paused


# ------------------------------------------------------------------------------------------------------------ shapes


@with_config(_OPEN)
class ToolCallFunction(TypedDict):
    name: Name
    arguments: Text
    """A JSON-object string (``"{}"`` when empty)."""


@with_config(_OPEN)
class ToolCall(TypedDict):
    id: Id
    type: NotRequired[Literal["function"]]
    function: ToolCallFunction


@with_config(_OPEN)
class ToolCallState(TypedDict, total=False):
    """What happened to one tool call, kept in its assistant message's ``state["tool_calls"][call_id]``."""

    status: Required[ToolCallStatus]
    reason: str | None
    """Why it was denied or cancelled (the user's reason, ``interrupted``, ``max_tool_rounds``)."""
    error: str | None
    original_arguments: str | None
    """The model's arguments, when the user edited them before approving."""
    arguments_edited: str | None
    """The arguments the call ran with, when the user edited them."""
    decided_by: str | None
    """Who approved or denied it: ``"user"`` (the widget's buttons) or ``"code"`` (``chat.approve``/``deny``)."""
    decided_at: float | None
    """When it was decided (epoch seconds)."""


@with_config(_OPEN)
class MessageState(TypedDict, total=False):
    turn_id: str | None
    tool_calls: dict[str, ToolCallState]
    thinking: bool
    thinking_open: bool
    interrupted: bool
    arguments_incomplete: bool
    error: str | None
    finish_reason: str | None
    paused_at: str | None


@with_config(_OPEN)
class Message(TypedDict, total=False):
    id: Id
    role: Required[Role]
    content: Content
    tool_calls: Annotated[list[ToolCall], MaxLen(MAX_TOOL_CALLS)]
    tool_call_id: Id
    name: Name
    reasoning_content: Text
    state: MessageState
    metadata: dict[str, Any]
    loading: bool
    temp: bool


@with_config(_CLOSED)
class TokenUsage(TypedDict, total=False):
    """Tokens a server reported (OpenAI's names); a count it did not report is absent, never zero."""

    prompt_tokens: Annotated[int, Ge(0)]
    completion_tokens: Annotated[int, Ge(0)]
    total_tokens: Annotated[int, Ge(0)]


@with_config(_CLOSED)
class TurnEntry(TypedDict):
    """One turn of the log. ``ended_at`` and ``end_reason`` are both None while the turn runs (or if it never
    ended); ``detail`` is ``user | hook | disposed`` for aborted turns, or the provider's error message;
    ``usage`` (when the server reported any) sums its replies' usage."""

    id: Id
    started_at: UtcTime
    ended_at: UtcTime | None
    end_reason: EndReason | None
    detail: Annotated[str, MaxLen(MAX_DETAIL_CHARS)] | None
    usage: NotRequired[TokenUsage]


@with_config(_CLOSED)
class PausedTurn(TypedDict):
    """A paused turn: its id, the awaiting call ids (in tool-call order), the turn's custom context and tool-round
    count, and a hash of each awaiting call's name + arguments (so a changed call is never restored)."""

    version: Annotated[int, _version("paused-turn snapshot", PAUSED_TURN_VERSION)]
    turn_id: Id
    tool_call_ids: list[Id]
    custom_context: dict[str, Any]
    tool_round_count: Annotated[int, Ge(0), Le(MAX_TOOL_ROUNDS)]
    call_hashes: dict[str, str]
    paused_at: NotRequired[UtcTime | None]


@with_config(_OPEN)
class ConversationRecord(TypedDict):
    """What a store keeps per conversation (``version`` 1). Unknown top-level fields are kept."""

    version: Annotated[int, _version("conversation record", RECORD_VERSION)]
    messages: Annotated[list[Annotated[Message, AfterValidator(_message)]], MaxLen(MAX_MESSAGES)]
    turns: Annotated[list[TurnEntry], MaxLen(MAX_TURNS), AfterValidator(_turns)]
    paused_turn: Annotated[PausedTurn, AfterValidator(_paused)] | None
    updated_at: UtcTime
    title: NotRequired[Annotated[str, MaxLen(MAX_TITLE_CHARS)] | None]
    """The name the user gave the conversation (None: named after the start of its first user message)."""
    created_at: NotRequired[UtcTime]
    """When the conversation was started (records written before it existed: their first turn's start)."""
    plugins: NotRequired[dict[str, Any]]
    """Declarative plugin state by plugin name (``StatefulPlugin.export_state``); each plugin validates its own."""


_RECORD: TypeAdapter[Any] = TypeAdapter(ConversationRecord)
_PAUSED: TypeAdapter[Any] = TypeAdapter(Annotated[PausedTurn, AfterValidator(_paused)])
_MESSAGE: TypeAdapter[Any] = TypeAdapter(Annotated[Message, AfterValidator(_message)])
_TURN: TypeAdapter[Any] = TypeAdapter(TurnEntry)


def validate_record(data: Any) -> ConversationRecord:
    """``data`` itself when it is a valid record (the caller made it a strict-JSON copy); else ``RecordError``
    naming the first problem's JSON path. Nothing is modified."""
    _validate(_RECORD, data)
    record: ConversationRecord = data
    return record


def validate_message(data: Any, index: int) -> Message:
    """``data`` when it is a valid message at ``$.messages[index]`` of a record (the check ``validate_record`` runs
    on each message: a record whose messages pass one by one and whose other fields pass passes whole)."""
    try:
        _MESSAGE.validate_python(data)
    except pydantic.ValidationError as error:
        first = error.errors(include_url=False)[0]
        first["loc"] = ("messages", index, *first["loc"])
        raise RecordError(_describe_error(first)) from None
    message: Message = data
    return message


def validate_turn(data: Any, index: int) -> TurnEntry:
    """``data`` when it is a valid entry at ``$.turns[index]`` of a record: the checks ``validate_record`` runs on
    each entry of the turn log (the log's own rules — its length, one entry per turn id — are the caller's)."""
    try:
        _TURN.validate_python(data)
        _turn_ended(data, 0)
    except pydantic.ValidationError as error:
        first = error.errors(include_url=False)[0]
        first["loc"] = ("turns", index, *first["loc"])
        raise RecordError(_describe_error(first)) from None
    except PydanticCustomError as error:
        raise RecordError(f"$.turns[{index}]: {str(error)[len('[0]: '):]}") from None
    turn: TurnEntry = data
    return turn


def validate_paused_turn(data: Any) -> PausedTurn:
    """``data`` when it is a valid paused-turn snapshot, else ``RecordError`` (paths start at the snapshot)."""
    _validate(_PAUSED, data)
    paused: PausedTurn = data
    return paused


def _validate(adapter: TypeAdapter[Any], data: Any) -> None:
    try:
        adapter.validate_python(data)
    except pydantic.ValidationError as error:
        first = error.errors(include_url=False)[0]
        raise RecordError(_describe_error(first)) from None


def _describe_error(error: Any) -> str:
    loc = [part for part in error["loc"] if not (isinstance(part, str) and part.startswith("function-"))]
    if error["type"] == "extra_forbidden":
        return f"{json_path(loc[:-1])}: unknown field(s) {loc[-1]!r}"
    problem = _problem(error)
    return f"{json_path(loc)}{'' if problem[:1] in '.[' else ': '}{problem}"


def _problem(error: Any) -> str:
    kind, value, ctx = error["type"], error.get("input"), error.get("ctx") or {}
    expected = {"dict_type": "an object", "typed_dict_type": "an object", "list_type": "a list",
                "string_type": "a string", "int_type": "an integer", "missing": "a value"}
    if kind in expected:
        return f"expected {expected[kind]}, got {describe(value) if kind != 'missing' else 'nothing'}"
    if kind == "bool_type":
        return f"expected true or false, got {value!r}"
    if kind == "none_required":
        return f"expected null, got {describe(value)}"
    if kind == "literal_error":
        options = str(ctx.get("expected", "")).replace(" or ", ", ")
        if "," not in options:
            return f"expected {options}, got {value!r}"
        return f"expected one of {options.replace(chr(39), '')}, got {value!r}"
    if kind == "string_too_short":
        return "must not be empty"
    if kind == "string_too_long":
        return f"is {len(value)} characters long, at most {ctx.get('max_length')} are allowed"
    if kind == "too_long":
        return f"holds {ctx.get('actual_length')} items, at most {ctx.get('max_length')} are allowed"
    if kind in ("greater_than_equal", "less_than_equal"):
        return f"{value} is outside 0..{MAX_TOOL_ROUNDS}"
    return str(error["msg"])


def json_path(loc: Iterable[Any], parent: str = "$") -> str:
    """``$.a``, ``$.a[3]``, or ``$["odd key"]`` when the key is not a plain identifier."""
    path = parent
    for part in loc:
        if isinstance(part, int):
            path += f"[{part}]"
        elif isinstance(part, str) and part.isidentifier():
            path += f".{part}"
        else:
            path += f"[{json.dumps(str(part), ensure_ascii=False)}]"
    return path


def describe(value: Any) -> str:
    """A short description of a bad value for an error message (never the whole value)."""
    text = repr(value)
    return f"{type(value).__name__} {text[:60]}{'...' if len(text) > 60 else ''}"


# ------------------------------------------------------------------------------------------------------------ helpers


def utc_now() -> str:
    """Now, as the ISO-8601 UTC text every record uses (millisecond precision, ``Z`` suffix)."""
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def parse_utc(text: str) -> datetime:
    """Parse an ISO-8601 UTC timestamp (``...Z`` or ``...+00:00``); ``ValueError`` for anything else."""
    moment = datetime.fromisoformat(text[:-1] + "+00:00" if text.endswith("Z") else text)
    if moment.utcoffset() != timedelta(0):
        raise ValueError(f"{text!r} is not in UTC")
    return moment


def new_turn_entry(turn_id: str) -> TurnEntry:
    return {"id": turn_id, "started_at": utc_now(), "ended_at": None, "end_reason": None, "detail": None}


def close_turn(turn: TurnEntry, reason: EndReason, detail: str | None) -> None:
    turn["ended_at"] = utc_now()
    turn["end_reason"] = reason
    turn["detail"] = detail


def call_states(message: Mapping[str, Any]) -> Mapping[str, Any]:
    """``state["tool_calls"]`` of a message, or ``{}`` (tolerant of malformed state)."""
    state = message.get("state")
    calls = state.get("tool_calls") if isinstance(state, Mapping) else None
    return calls if isinstance(calls, Mapping) else {}


def awaiting_calls(messages: Iterable[Mapping[str, Any]]) -> Iterator[tuple[Mapping[str, Any], Mapping[str, Any]]]:
    """``(message, call)`` for every tool call waiting for a human decision, in conversation order."""
    for message in messages:
        states = call_states(message)
        if not states:
            continue
        for call in message.get("tool_calls") or ():
            call_id = call.get("id") if isinstance(call, Mapping) else None
            if isinstance(call_id, str):
                entry = states.get(call_id)
                if isinstance(entry, Mapping) and entry.get("status") == AWAITING:
                    yield message, call


def awaiting_call_ids(messages: Iterable[Mapping[str, Any]]) -> list[str]:
    """Ids of the tool calls waiting for a human decision (they stay unanswered while a turn is paused)."""
    return [str(call["id"]) for _, call in awaiting_calls(messages)]


def message_turn_id(message: Mapping[str, Any]) -> Any:
    state = message.get("state")
    return state.get("turn_id") if isinstance(state, Mapping) else None


def stored_form(message: Message) -> Message:
    """The message as it is stored: a tool result over ``MAX_TOOL_RESULT_CHARS`` truncated with a visible note."""
    content = message.get("content")
    if message.get("role") != "tool" or not isinstance(content, str) or len(content) <= MAX_TOOL_RESULT_CHARS:
        return message
    if "truncated" in (message.get("metadata") or {}):
        return message  # stored truncated already (a restored result): cut once, noted once
    stored: Message = {**message}
    stored["content"] = content[:MAX_TOOL_RESULT_CHARS] + TRUNCATED_NOTE.format(chars=len(content),
                                                                                kept=MAX_TOOL_RESULT_CHARS)
    stored["metadata"] = {**(message.get("metadata") or {}), "truncated": {"chars": len(content)}}
    return stored
