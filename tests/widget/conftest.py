"""Fixtures for the widget's kernel-side tests (the doubles themselves live in widget_doubles.py)."""

from __future__ import annotations

import pytest

from .widget_doubles import InMemoryController, RecordingComm, record_comms


@pytest.fixture
def recording_comms(monkeypatch: pytest.MonkeyPatch) -> list[RecordingComm]:
    """Every widget opened here gets a RecordingComm (`comm.create_comm` is meant to be replaced)."""
    return record_comms(monkeypatch)


@pytest.fixture
def controller() -> InMemoryController:
    return InMemoryController()
