"""Fixtures for the hostile-input tests: a loopback OpenAI server and widgets that record what they send."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from notebook_chat.testing import FakeOpenAIServer
from tests.widget.widget_doubles import RecordingComm, record_comms


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as fake:
        yield fake


@pytest.fixture(autouse=True)
def recording_comms(monkeypatch: pytest.MonkeyPatch) -> list[RecordingComm]:
    """Every widget opened here gets a RecordingComm (no kernel needed)."""
    return record_comms(monkeypatch)
