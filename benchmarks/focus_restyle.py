"""What focus moving into, out of and around the chat's cell costs the page, in a real JupyterLab + Chromium.

Run: python benchmarks/focus_restyle.py [N ...] [--shape SHAPE[,SHAPE...]|all] [--runs R]
     (default: 1000 messages, shapes markdown and long, 3 runs, medians)

A notebook whose metadata holds a conversation of N messages (benchmarks/paint_shapes.py) shows the chat in cell 0;
cells 1 and 2 are plain code. Once the chat is drawn and laid out, each step below runs while the browser's timeline
is recorded, and the report gives, per step, the elements of the largest style recalculation (`UpdateLayoutTree`'s
element count) and the seconds the page spent recalculating style:
  click the chat   click into the chat's composer (JupyterLab selects the chat's cell and focuses its node, then the
                   composer takes the focus)
  click cell 1     click into the next cell's editor (the chat's cell loses the selection)
  Escape           command mode in cell 1 (nothing changes for the chat's cell)
  ArrowUp          select the chat's cell (JupyterLab focuses the cell's node)
  ArrowDown        select cell 1 again (the chat's cell node loses the focus)
The chat's own element count is printed beside them: a step whose largest recalculation is about that count restyled
the whole conversation drawn. JupyterLab's CodeMirror theme has a rule `.cm-content :focus ::selection`, for which
Chromium restyles every element below any element whose focus changes (the cell's node, here).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
if __name__ == "__main__":
    from browser_needs import ensure_browser_tools

    ensure_browser_tools()  # .venv and chromium, from a clean clone

from lab_session import lab_in_chromium
from paint_shapes import SHAPES, shaped_record

from tests.e2e.lab import Lab
from tests.e2e.timeline import style_recalculations, timeline_while

CHAT = """
from notebook_chat import Chat
from notebook_chat.providers import DemoModel
chat = Chat(DemoModel(), key="focus")
chat
"""
ROOT = ".jp-Cell .nbc-root"
DRAWN = f"""() => {{
  const root = document.querySelector({ROOT!r});
  const messages = root ? [...root.querySelectorAll('.nbc-message')] : [];
  return messages.length > 0 && messages.every((m) => m.dataset.drawn === 'true')
    && root.getElementsByClassName('nbc-unlaid').length === 0;
}}"""


def recalculations(lab: Lab, action: Callable[[], None]) -> tuple[int, float]:
    """The elements of the largest style recalculation while `action` runs and the page settles, and the seconds of
    every recalculation (the browser's own timeline)."""
    styles = style_recalculations(timeline_while(lab, lambda: (action(), lab.page.wait_for_timeout(600))))
    largest = max((event["args"]["elementCount"] for event in styles), default=0)
    return largest, sum(event.get("dur", 0) for event in styles) / 1e6


STEPS = ("click the chat", "click cell 1", "Escape", "ArrowUp", "ArrowDown")


def actions(lab: Lab) -> dict[str, Callable[[], None]]:
    """What each step does (STEPS, in that order)."""
    keyboard = lab.page.keyboard
    return {"click the chat": lambda: lab.cell(0).locator(".nbc-root [data-field=input]").click(),
            "click cell 1": lambda: lab.cell(1).locator(".jp-InputArea-editor").click(),
            "Escape": lambda: keyboard.press("Escape"),
            "ArrowUp": lambda: keyboard.press("ArrowUp"),
            "ArrowDown": lambda: keyboard.press("ArrowDown")}


def measure(lab: Lab, shape: str, count: int, attempt: int) -> dict[str, Any]:
    metadata = {"notebook_chat": {"version": 2, "conversations": {
        "focus": {"active": "main", "items": {"main": shaped_record(count, shape)}}}}}
    lab.open_notebook(f"focus-{shape}-{count}-{attempt}.ipynb", [CHAT, "x = 1", "y = 2"], metadata=metadata)
    lab.run_cell(0)
    lab.page.wait_for_function(DRAWN, timeout=120_000)
    lab.page.wait_for_timeout(1_000)
    elements = int(lab.page.evaluate(f"() => document.querySelector({ROOT!r}).querySelectorAll('*').length"))
    row: dict[str, Any] = {"elements": elements}
    for name in STEPS:
        lab.page.wait_for_timeout(300)
        row[name] = recalculations(lab, actions(lab)[name])
    lab.shutdown_kernels()
    return row


def run(counts: list[int], shapes: list[str], runs: int) -> None:
    work = Path(tempfile.mkdtemp(prefix="focus-restyle-"))
    rows: list[tuple[str, int, dict[str, Any]]] = []
    with lab_in_chromium(work) as lab:
        for shape in shapes:
            for count in counts:
                measured = [measure(lab, shape, count, attempt) for attempt in range(runs)]
                rows.append((shape, count, median(measured)))
    report(rows, runs)


def median(measured: list[dict[str, Any]]) -> dict[str, Any]:
    row: dict[str, Any] = {"elements": statistics.median(m["elements"] for m in measured)}
    for key in measured[0]:
        if key != "elements":
            row[key] = (statistics.median(m[key][0] for m in measured), statistics.median(m[key][1] for m in measured))
    return row


def report(rows: list[tuple[str, int, dict[str, Any]]], runs: int) -> None:
    print(f"focus and the chat's cell, median of {runs} run(s): per step, the elements of the largest style "
          "recalculation / the seconds of all of them; 'chat' is the chat's own element count")
    print(f"{'shape':>9} {'messages':>9} {'chat':>7} " + " ".join(f"{name:>22}" for name in STEPS))
    for shape, count, row in rows:
        cells = " ".join(f"{row[name][0]:>12,.0f} / {row[name][1]:5.3f} s" for name in STEPS)
        print(f"{shape:>9} {count:>9,} {row['elements']:>7,.0f} {cells}")
    for shape, count, row in rows:
        whole = [name for name in STEPS if row[name][0] >= 0.9 * row["elements"]]
        print(f"{shape} {count:,}: the whole chat restyled at: {', '.join(whole) if whole else 'no step'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("counts", nargs="*", type=int, default=[1000])
    parser.add_argument("--shape", default="markdown,long")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    shapes = list(SHAPES) if args.shape == "all" else args.shape.split(",")
    run(args.counts, shapes, args.runs)


if __name__ == "__main__":
    main()
