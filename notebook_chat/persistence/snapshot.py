"""The paused-turn snapshot: what a paused turn needs to come back after a restart, and nothing else."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from notebook_chat.persistence.checks import (
    fail,
    require_dict,
    require_id,
    require_int,
    require_list,
    require_utc,
    require_version,
)
from notebook_chat.persistence.errors import SecretError, SerializationError, SnapshotError
from notebook_chat.persistence.jsonsafe import dumps_canonical, to_json_value
from notebook_chat.persistence.secrets import assert_no_secrets

SNAPSHOT_VERSION = 1
MAX_PAUSED_CALLS = 256
MAX_TOOL_ROUNDS = 1_000_000
MAX_CONTEXT_BYTES = 1_000_000
_HEX64 = re.compile(r"^[0-9a-f]{64}$")
_FIELDS = frozenset(
    {"version", "turn_id", "tool_call_ids", "custom_context", "tool_round_count", "call_hashes", "paused_at"}
)


def call_hash(name: str, arguments: str) -> str:
    """sha256 hex of the canonical JSON of `[name, arguments]`; arguments is the call's raw JSON string."""
    return hashlib.sha256(dumps_canonical([name, arguments]).encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class PausedTurnSnapshot:
    """A paused turn: its id, the awaiting call ids (in order), the turn's custom context and round count,
    and a hash of each awaiting call's name + arguments. Constructing one validates every field
    (`SnapshotError`); `custom_context` is copied, so later changes to the live context do not leak in."""

    turn_id: str
    tool_call_ids: tuple[str, ...]
    custom_context: Mapping[str, Any]
    tool_round_count: int
    call_hashes: Mapping[str, str]
    paused_at: str | None = None
    version: int = SNAPSHOT_VERSION

    def __post_init__(self) -> None:
        raw = {
            "version": self.version,
            "turn_id": self.turn_id,
            "tool_call_ids": list(self.tool_call_ids)
            if isinstance(self.tool_call_ids, (list, tuple))
            else self.tool_call_ids,
            "custom_context": dict(self.custom_context)
            if isinstance(self.custom_context, Mapping)
            else self.custom_context,
            "tool_round_count": self.tool_round_count,
            "call_hashes": dict(self.call_hashes)
            if isinstance(self.call_hashes, Mapping)
            else self.call_hashes,
            "paused_at": self.paused_at,
        }
        for name, value in _validate(raw).items():
            object.__setattr__(self, name, value)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (a fresh copy); `paused_at` is left out when unknown."""
        data: dict[str, Any] = {
            "version": self.version,
            "turn_id": self.turn_id,
            "tool_call_ids": list(self.tool_call_ids),
            "custom_context": to_json_value(dict(self.custom_context)),
            "tool_round_count": self.tool_round_count,
            "call_hashes": dict(self.call_hashes),
        }
        if self.paused_at is not None:
            data["paused_at"] = self.paused_at
        return data

    @classmethod
    def from_dict(cls, data: Any) -> PausedTurnSnapshot:
        """Build a snapshot from untrusted data; any bad field raises `SnapshotError` with the reason."""
        checked = _validate(data)
        return cls(**checked)


def _validate(data: Any) -> dict[str, Any]:
    data = require_dict(data, "$", SnapshotError)
    require_version(
        data.get("version"),
        "$.version",
        SnapshotError,
        what="paused-turn snapshot",
        supported=SNAPSHOT_VERSION,
    )
    unknown = sorted(set(data) - _FIELDS)
    if unknown:
        fail(SnapshotError, "$", f"unknown field(s) {', '.join(map(repr, unknown))}")
    ids = _validate_ids(data.get("tool_call_ids"))
    return {
        "version": SNAPSHOT_VERSION,
        "turn_id": require_id(data.get("turn_id"), "$.turn_id", SnapshotError),
        "tool_call_ids": ids,
        "custom_context": _validate_context(data.get("custom_context")),
        "tool_round_count": require_int(
            data.get("tool_round_count"), "$.tool_round_count", SnapshotError, low=0, high=MAX_TOOL_ROUNDS
        ),
        "call_hashes": _validate_hashes(data.get("call_hashes"), ids),
        "paused_at": None
        if data.get("paused_at") is None
        else require_utc(data["paused_at"], "$.paused_at", SnapshotError),
    }


def _validate_ids(value: Any) -> tuple[str, ...]:
    items = require_list(value, "$.tool_call_ids", SnapshotError, max_items=MAX_PAUSED_CALLS)
    if not items:
        fail(SnapshotError, "$.tool_call_ids", "a paused turn awaits at least one call, the list is empty")
    ids = tuple(require_id(item, f"$.tool_call_ids[{i}]", SnapshotError) for i, item in enumerate(items))
    if len(set(ids)) != len(ids):
        fail(SnapshotError, "$.tool_call_ids", "holds the same id twice")
    return ids


def _validate_context(value: Any) -> dict[str, Any]:
    context = require_dict(value, "$.custom_context", SnapshotError)
    try:
        copy = to_json_value(context, "$.custom_context")
        assert_no_secrets(copy, "$.custom_context")
        size = len(dumps_canonical(copy).encode("utf-8"))
    except SerializationError as error:
        fail(SnapshotError, error.path, error.problem)
    except SecretError as error:
        raise SnapshotError(str(error)) from error
    if size > MAX_CONTEXT_BYTES:
        fail(
            SnapshotError,
            "$.custom_context",
            f"is {size} bytes of JSON, at most {MAX_CONTEXT_BYTES} are allowed",
        )
    return copy  # type: ignore[no-any-return]


def _validate_hashes(value: Any, ids: tuple[str, ...]) -> dict[str, str]:
    hashes = require_dict(value, "$.call_hashes", SnapshotError)
    if set(hashes) != set(ids):
        missing = sorted(set(ids) - set(hashes))
        extra = sorted(set(hashes) - set(ids))
        fail(
            SnapshotError,
            "$.call_hashes",
            f"must hold exactly one hash per awaiting call "
            f"(missing: {missing or 'none'}, extra: {extra or 'none'})",
        )
    for call_id, digest in hashes.items():
        if not isinstance(digest, str) or not _HEX64.match(digest):
            fail(SnapshotError, f"$.call_hashes[{call_id!r}]", "expected a lowercase sha256 hex digest")
    return {call_id: hashes[call_id] for call_id in ids}
