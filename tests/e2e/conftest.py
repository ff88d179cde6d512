"""Fixtures for browser tests: one JupyterLab per session, one Chromium per module, one fresh page per test.

A failing test leaves `test-artifacts/<test>-failure.png` and `<test>-console.txt` behind.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, sync_playwright

from tests.e2e.lab import Lab, LabServer, launch_chromium, start_lab_server

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    outcome = yield
    report = outcome.get_result()  # type: ignore[attr-defined]
    setattr(item, f"report_{report.when}", report)


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
    with sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture
def lab(lab_server: LabServer, chromium: Browser, request: pytest.FixtureRequest) -> Iterator[Lab]:
    context = chromium.new_context(viewport={"width": 1400, "height": 1000})
    context.set_default_timeout(30_000)
    page = context.new_page()
    helper = Lab(page, lab_server, lab_server.new_folder(request.node.name), ARTIFACTS)
    began = time.monotonic()
    try:
        yield helper
    finally:
        report = getattr(request.node, "report_call", None)
        if report is None or report.failed:
            try:
                helper.screenshot(f"{request.node.name}-failure")
            finally:
                ARTIFACTS.mkdir(parents=True, exist_ok=True)
                (ARTIFACTS / f"{request.node.name}-console.txt").write_text("\n".join(helper.console))
        print(f"\n{request.node.name}: {time.monotonic() - began:.1f} s in the browser")
        try:
            helper.shutdown_kernels()
        finally:
            context.close()
