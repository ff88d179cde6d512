"""Fixtures for the widget's kernel-side tests (the doubles themselves live in widget_doubles.py)."""

from __future__ import annotations

from typing import Any

import comm
import pytest

from .widget_doubles import InMemoryController, RecordingComm


@pytest.fixture
def recording_comms(monkeypatch: pytest.MonkeyPatch) -> list[RecordingComm]:
    """Every widget opened here gets a RecordingComm (`comm.create_comm` is meant to be replaced)."""
    created: list[RecordingComm] = []

    def create(**kwargs: Any) -> RecordingComm:
        made = RecordingComm(**kwargs)
        created.append(made)
        return made

    monkeypatch.setattr(comm, "create_comm", create)
    return created


@pytest.fixture
def controller() -> InMemoryController:
    return InMemoryController()
