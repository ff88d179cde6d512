"""Every test gets its own Jupyter data directory, so the approval ledger never touches the real one; each phase's
report stays on its test item, so a fixture can tell whether its test failed (tests/e2e/sessions.py); `collections`
records the garbage collections a test runs."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture(autouse=True)
def private_jupyter_data_dir(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("jupyter-data")
    monkeypatch.setenv("JUPYTER_DATA_DIR", str(folder))
    return folder


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    outcome = yield
    report = outcome.get_result()  # type: ignore[attr-defined]
    setattr(item, f"report_{report.when}", report)


@pytest.fixture
def collections() -> Iterator[list[int]]:
    """The generation of every automatic garbage collection from now on."""
    seen: list[int] = []

    def count(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            seen.append(info["generation"])

    gc.callbacks.append(count)
    yield seen
    gc.callbacks.remove(count)
