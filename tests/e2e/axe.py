"""axe-core (npm, js/widget's dev dependencies) run inside the page on the chat widget.

`axe_violations(lab, root)` injects axe.min.js once per page and returns the violations axe finds in the widget's
subtree (WCAG 2.x A/AA and best-practice rules). Results are kept in AXE_SUMMARY for the run's summary file.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from playwright.sync_api import Locator

from tests.e2e.lab import Lab

AXE_SCRIPT = Path(__file__).resolve().parents[2] / "js" / "widget" / "node_modules" / "axe-core" / "axe.min.js"
BLOCKING = ("serious", "critical")
AXE_SUMMARY: list[dict[str, Any]] = []


def axe_violations(lab: Lab, root: Locator, label: str) -> list[dict[str, Any]]:
    """Every axe violation inside `root`, as `{id, impact, help, targets}`; recorded under `label`."""
    if not AXE_SCRIPT.is_file():
        raise AssertionError(f"{AXE_SCRIPT} is missing: run `npm ci` in js/widget (scripts/test.sh does)")
    if not lab.page.evaluate("() => typeof window.axe === 'object'"):
        lab.page.add_script_tag(path=str(AXE_SCRIPT))
    results: dict[str, Any] = root.evaluate(
        """async el => {
            const r = await window.axe.run(el, {resultTypes: ['violations']});
            return {
                violations: r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
                                                    targets: v.nodes.map(n => n.target.join(' '))})),
                passes: r.passes.map(p => p.id),
                version: r.testEngine.version,
            };
        }"""
    )
    violations: list[dict[str, Any]] = results["violations"]
    AXE_SUMMARY.append({"state": label, "axe": results["version"], "passed_rules": results["passes"],
                        "violations": {v["id"]: v["impact"] for v in violations}})
    return violations


def blocking(violations: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The serious and critical ones (the bar: none)."""
    return [v for v in violations if v["impact"] in BLOCKING]


def write_summary(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(AXE_SUMMARY, indent=1, ensure_ascii=False) + "\n")
