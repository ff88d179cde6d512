"""Checking a stored record runs no cyclic garbage collection (pydantic's short-lived copy of the record would
trigger some, now and then a full one that costs the whole heap), and leaves the collector as it found it."""

from __future__ import annotations

import gc
from typing import Any

import pytest

from notebook_chat.persistence import read_record
from notebook_chat.persistence.record import collector_paused


def long_record(count: int) -> dict[str, Any]:
    messages = [{"id": f"m{i}", "role": "user" if i % 2 == 0 else "assistant", "content": f"text {i}",
                 "state": {"turn_id": f"t{i // 2}"}} for i in range(count)]
    return {"version": 1, "messages": messages, "turns": [], "paused_turn": None,
            "updated_at": "2026-01-01T00:00:00Z"}



def test_reading_a_long_record_runs_no_garbage_collection(collections: list[int]) -> None:
    record = long_record(3000)
    gc.collect()
    collections.clear()
    loaded = read_record(record)
    assert loaded.record is not None
    assert collections in ([], [0])  # at most the youngest generation's, once the check's copies are gone
    assert gc.isenabled()


def test_a_collector_switched_off_before_stays_off_and_one_on_stays_on() -> None:
    gc.disable()
    try:
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()
    with pytest.raises(ValueError, match="boom"), collector_paused():
        raise ValueError("boom")
    assert gc.isenabled()
