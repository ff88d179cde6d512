"""One Chromium and one fresh page per test over a running JupyterLab, shared by the browser and packaging tests.

A failing test (one whose setup or call failed, see the report hook in tests/conftest.py) leaves
`test-artifacts/<test>-failure.png` and `<test>-console.txt` behind.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, sync_playwright

from tests.e2e.lab import Lab, LabServer, launch_chromium

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


@contextlib.contextmanager
def chromium_browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        try:
            yield browser
        finally:
            browser.close()


@contextlib.contextmanager
def lab_page(server: LabServer, chromium: Browser, request: pytest.FixtureRequest) -> Iterator[Lab]:
    """A `Lab` on a new 1400×1000 page in the test's own folder; its kernels are shut down afterwards."""
    context = chromium.new_context(viewport={"width": 1400, "height": 1000})
    context.set_default_timeout(30_000)
    helper = Lab(context.new_page(), server, server.new_folder(request.node.name), ARTIFACTS)
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
