"""The conversation record (issue 5): messages, turn log, paused turn, update time — and its strict loader."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from notebook_chat.persistence.checks import (
    fail,
    require_dict,
    require_id,
    require_list,
    require_str,
    require_utc,
    require_version,
    utc_now_iso,
)
from notebook_chat.persistence.errors import RecordError, SecretError, SerializationError, SnapshotError
from notebook_chat.persistence.jsonsafe import dumps_canonical, to_json_value
from notebook_chat.persistence.message_checks import validate_message
from notebook_chat.persistence.secrets import assert_no_secrets
from notebook_chat.persistence.snapshot import PausedTurnSnapshot

RECORD_VERSION = 1
MAX_RECORD_BYTES = 20_000_000
MAX_MESSAGES = 10_000
MAX_TURNS = 10_000
MAX_DETAIL_CHARS = 100_000

EndReason = Literal["completed", "aborted", "error", "max-tokens", "interrupted", "blocked"]
END_REASONS: tuple[str, ...] = get_args(EndReason)
_TURN_FIELDS = frozenset({"id", "started_at", "ended_at", "end_reason", "detail"})
_RECORD_FIELDS = frozenset({"version", "messages", "turns", "paused_turn", "updated_at"})


@dataclass(frozen=True)
class TurnEntry:
    """One turn of the log. `ended_at` and `end_reason` are both None while the turn runs (or if it
    never ended); `detail` is e.g. user | hook | disposed for aborted turns, or the provider's error
    message."""

    id: str
    started_at: str
    ended_at: str | None = None
    end_reason: EndReason | None = None
    detail: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "started_at": self.started_at,
            "ended_at": self.ended_at,
            "end_reason": self.end_reason,
            "detail": self.detail,
        }

    @classmethod
    def from_dict(cls, data: Any, path: str = "$") -> TurnEntry:
        data = require_dict(data, path, RecordError)
        unknown = sorted(set(data) - _TURN_FIELDS)
        if unknown:
            fail(RecordError, path, f"unknown turn field(s) {', '.join(map(repr, unknown))}")
        ended_at = data.get("ended_at")
        reason = data.get("end_reason")
        if reason is not None and reason not in END_REASONS:
            fail(
                RecordError, f"{path}.end_reason", f"expected one of {', '.join(END_REASONS)}, got {reason!r}"
            )
        if (ended_at is None) != (reason is None):
            fail(
                RecordError, path, "ended_at and end_reason must both be set (an ended turn) or both be null"
            )
        detail = data.get("detail")
        return cls(
            id=require_id(data.get("id"), f"{path}.id", RecordError),
            started_at=require_utc(data.get("started_at"), f"{path}.started_at", RecordError),
            ended_at=None if ended_at is None else require_utc(ended_at, f"{path}.ended_at", RecordError),
            end_reason=reason,
            detail=None
            if detail is None
            else require_str(detail, f"{path}.detail", RecordError, max_chars=MAX_DETAIL_CHARS),
        )


@dataclass(frozen=True)
class ConversationRecord:
    """What is persisted per conversation. `extra` keeps top-level fields this version does not know."""

    messages: list[dict[str, Any]] = field(default_factory=list)
    turns: list[TurnEntry] = field(default_factory=list)
    paused_turn: PausedTurnSnapshot | None = None
    updated_at: str = field(default_factory=utc_now_iso)
    extra: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class LoadResult:
    """A loaded record. A paused turn that could not be read is dropped and `paused_turn_error` says why (the
    messages still load; the engine stays idle and shows the reason)."""

    record: ConversationRecord
    paused_turn_error: str | None = None


def record_to_dict(record: ConversationRecord) -> dict[str, Any]:
    """The JSON form of a record, validated as on load: nothing is written that could not be read back.

    Raises `SerializationError` (non-JSON, with the path), `SecretError` (a credential, with the path) or
    `RecordError` (a message or turn of the wrong shape)."""
    data: dict[str, Any] = {
        **record.extra,
        "version": RECORD_VERSION,
        "messages": record.messages,
        "turns": [turn.to_dict() for turn in record.turns],
        "paused_turn": None if record.paused_turn is None else record.paused_turn.to_dict(),
        "updated_at": record.updated_at,
    }
    data = to_json_value(data)
    assert_no_secrets(data)
    _check_size(data)
    _validate_body(data)
    return data


def record_from_dict(data: Any) -> LoadResult:
    """Load an untrusted record. A future version, corrupt structure, non-JSON value, secret or oversize
    record raises `RecordError` with the reason; the input is never modified."""
    try:
        data = to_json_value(data)
    except SerializationError as error:
        raise RecordError(f"the record is not strict JSON: {error}") from error
    data = require_dict(data, "$", RecordError)
    require_version(
        data.get("version"), "$.version", RecordError, what="conversation record", supported=RECORD_VERSION
    )
    _check_size(data)
    try:
        assert_no_secrets(data)
    except SecretError as error:
        raise RecordError(f"the record carries a secret and is refused: {error}") from error
    turns = _validate_body(data)
    paused, paused_error = _load_paused(data.get("paused_turn"))
    record = ConversationRecord(
        messages=data["messages"],
        turns=turns,
        paused_turn=paused,
        updated_at=data["updated_at"],
        extra={key: value for key, value in data.items() if key not in _RECORD_FIELDS},
    )
    return LoadResult(record, paused_error)


def _check_size(data: dict[str, Any]) -> None:
    size = len(dumps_canonical(data).encode("utf-8"))
    if size > MAX_RECORD_BYTES:
        fail(RecordError, "$", f"the record is {size} bytes of JSON, at most {MAX_RECORD_BYTES} are allowed")


def _validate_body(data: dict[str, Any]) -> list[TurnEntry]:
    messages = require_list(data.get("messages"), "$.messages", RecordError, max_items=MAX_MESSAGES)
    for index, message in enumerate(messages):
        validate_message(message, f"$.messages[{index}]")
    raw_turns = require_list(data.get("turns"), "$.turns", RecordError, max_items=MAX_TURNS)
    turns = [TurnEntry.from_dict(turn, f"$.turns[{index}]") for index, turn in enumerate(raw_turns)]
    if len({turn.id for turn in turns}) != len(turns):
        fail(RecordError, "$.turns", "holds the same turn id twice")
    require_utc(data.get("updated_at"), "$.updated_at", RecordError)
    paused = data.get("paused_turn")
    if paused is not None and not isinstance(paused, dict):
        fail(RecordError, "$.paused_turn", f"expected an object or null, got {type(paused).__name__}")
    return turns


def _load_paused(value: Any) -> tuple[PausedTurnSnapshot | None, str | None]:
    if value is None:
        return None, None
    try:
        return PausedTurnSnapshot.from_dict(value), None
    except SnapshotError as error:
        return None, f"the paused turn can't be restored: {error.reason}"
