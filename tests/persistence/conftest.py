"""Builders for persistence tests: a paused assistant message in the engine's shape, and its conversation."""

from __future__ import annotations

import json
from typing import Any

import pytest


def tool_call(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}


def paused_message(turn_id: str = "turn_1", *, statuses: dict[str, str] | None = None) -> dict[str, Any]:
    """An assistant message of `turn_id` with calls c1 (lookup, ran) and c2, c3 (delete_rows, awaiting)."""
    statuses = statuses or {"c1": "success", "c2": "awaiting-approval", "c3": "awaiting-approval"}
    return {
        "id": f"msg_{turn_id}",
        "role": "assistant",
        "content": None,
        "tool_calls": [
            tool_call("c1", "lookup", {"q": "sales"}),
            tool_call("c2", "delete_rows", {"table": "sales", "where": "year < 2000"}),
            tool_call("c3", "delete_rows", {"table": "costs", "where": "1 = 1"}),
        ],
        "state": {
            "turn_id": turn_id,
            "tool_calls": {
                cid: {"status": status, "arguments_edited": None} for cid, status in statuses.items()
            },
        },
    }


def paused_conversation(turn_id: str = "turn_1") -> list[dict[str, Any]]:
    return [
        {"id": "msg_u", "role": "user", "content": "clean up old rows"},
        paused_message(turn_id),
        {"id": "msg_t", "role": "tool", "tool_call_id": "c1", "content": "42 rows"},
    ]


@pytest.fixture
def conversation() -> list[dict[str, Any]]:
    return paused_conversation()


NOW = "2024-05-01T12:00:00.000Z"


def record_of(messages: list[dict[str, Any]], *, turns: list[dict[str, Any]] | None = None,
              paused_turn: dict[str, Any] | None = None, updated_at: str = NOW) -> dict[str, Any]:
    """A conversation record in its stored shape."""
    return {"version": 1, "messages": messages, "turns": turns or [], "paused_turn": paused_turn,
            "updated_at": updated_at}


def turn(turn_id: str, started_at: str, ended_at: str | None = None, end_reason: str | None = None,
         detail: str | None = None) -> dict[str, Any]:
    return {"id": turn_id, "started_at": started_at, "ended_at": ended_at, "end_reason": end_reason,
            "detail": detail}


def paused_record(messages: list[dict[str, Any]] | None = None, *,
                  custom_context: dict[str, Any] | None = None) -> dict[str, Any]:
    """A record paused on c2 and c3 (see `paused_message`), its turn log and its paused-turn snapshot."""
    from notebook_chat.persistence import capture_snapshot

    messages = messages or paused_conversation()
    snapshot = capture_snapshot(messages[1], custom_context=custom_context or {"ünïcode": "✓"}, tool_round_count=1)
    return record_of(messages, turns=[turn("turn_1", "2024-05-01T11:59:00Z")], paused_turn=dict(snapshot))
