"""The browser's own timeline (Chrome's trace events) while a test or a benchmark does something in the page."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.e2e.lab import Lab


def timeline_while(lab: Lab, action: Callable[[], Any]) -> list[dict[str, Any]]:
    """The page's timeline events (category devtools.timeline) while `action` runs."""
    cdp = lab.page.context.new_cdp_session(lab.page)
    events: list[dict[str, Any]] = []
    finished: list[bool] = []
    cdp.on("Tracing.dataCollected", lambda data: events.extend(data["value"]))
    cdp.on("Tracing.tracingComplete", lambda _: finished.append(True))
    cdp.send("Tracing.start", {"categories": "devtools.timeline", "transferMode": "ReportEvents"})
    action()
    cdp.send("Tracing.end")
    for _ in range(100):  # the page's events reach here while Playwright waits
        if finished:
            break
        lab.page.wait_for_timeout(100)
    cdp.detach()
    return events


def style_recalculations(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The style recalculations among `events` (each with its `elementCount` in `args`)."""
    return [event for event in events
            if event.get("name") == "UpdateLayoutTree" and "elementCount" in event.get("args", {})]
