"""A JupyterLab server and a Chromium page on it, for the benchmarks that drive a real JupyterLab."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from playwright.sync_api import sync_playwright

from tests.e2e.lab import Lab, launch_chromium, start_lab_server


@contextmanager
def lab_in_chromium(work: Path, env: dict[str, str] | None = None) -> Iterator[Lab]:
    """A JupyterLab server on `work` (with `env`, if given) and a 1400 x 1000 Chromium page on it, in a folder "bench";
    both stopped on leaving."""
    server = start_lab_server(work, env=env)
    try:
        with sync_playwright() as playwright:
            browser = launch_chromium(playwright)
            try:
                page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
                yield Lab(page, server, server.new_folder("bench"), work / "artifacts")
            finally:
                browser.close()
    finally:
        server.stop()
