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
