"""Fixtures for browser tests: one JupyterLab per session, one Chromium per module, one fresh page per test.

A failing test leaves `test-artifacts/<test>-failure.png` and `<test>-console.txt` behind (tests/e2e/sessions.py).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, expect

from tests.e2e.lab import Lab, LabServer, start_lab_server
from tests.e2e.sessions import chromium_browser, lab_page

expect.set_options(timeout=30_000)  # as the pages' default timeout: a loaded machine is slow, never wrong


@pytest.fixture(scope="session")
def lab_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabServer]:
    server = start_lab_server(tmp_path_factory.mktemp("jupyterlab"))
    print(f"\nJupyterLab ready in {server.started_in:.1f} s at {server.url}")
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def chromium() -> Iterator[Browser]:
    with chromium_browser() as browser:
        yield browser


@pytest.fixture
def lab(lab_server: LabServer, chromium: Browser, request: pytest.FixtureRequest) -> Iterator[Lab]:
    with lab_page(lab_server, chromium, request) as helper:
        yield helper
