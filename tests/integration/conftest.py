from __future__ import annotations

from collections.abc import Iterator

import pytest

from notebook_chat.testing import FakeOpenAIServer


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as fake:
        yield fake
