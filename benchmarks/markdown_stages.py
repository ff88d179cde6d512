"""What drawing a reply in one go costs the page, stage by stage, on the first run and once warm, in Chromium.

Run: python benchmarks/markdown_stages.py [--shape S[,S...]|all] [--size N] [--runs R]

Each display of the chat imports the widget's module anew (anywidget imports it from a new blob: URL), so the first
fast reply a chat draws runs the markdown libraries cold: this shows how much of its drawing that is. For each reply
shape of widget_stream.py (80 KB by default), a fresh page holding js/widget/src/markdown.js (bundled with the widget's
esbuild, installed when missing) draws the same text R times (default 3), timing each stage: lexing (marked), marked's
HTML with KaTeX, sanitizing it into nodes, highlighting the code blocks (with their toolbars), and putting the nodes
in with the layout that causes. Prints milliseconds per stage for the first and the last run, and the script of each
(every stage but the layout).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
if __name__ == "__main__":
    from browser_needs import ensure_browser_tools

    ensure_browser_tools()  # .venv and chromium, from a clean clone

from playwright.sync_api import sync_playwright
from reply_shapes import SHAPES, markdown_reply
from widget_stream import bundle_with_widget_modules

from tests.e2e.lab import launch_chromium

STAGES = ("lex", "marked + KaTeX", "sanitize", "highlight", "layout")
ENTRY = """
import { enhanceCodeBlocks, markdownHtml, markdownTokens, sanitizeRendered } from "./src/markdown.js";
window.drawStages = (text) => {
  const timed = {};
  const time = (stage, fn) => {
    const started = performance.now();
    const value = fn();
    timed[stage] = performance.now() - started;
    return value;
  };
  const tokens = time("lex", () => markdownTokens.lex(text));
  const html = time("marked + KaTeX", () => markdownHtml(text, tokens));
  const nodes = time("sanitize", () => sanitizeRendered(text, tokens, html));
  time("highlight", () => enhanceCodeBlocks(nodes, { cache: new Map(), insertCell: null }));
  const body = document.createElement("div");
  body.className = "nbc-content";
  time("layout", () => {
    body.append(nodes);
    document.body.append(body);
    void body.offsetHeight;
  });
  body.remove();
  return timed;
};
"""


def measure(shapes: list[str], size: int, runs: int) -> None:
    with tempfile.TemporaryDirectory(prefix="markdown-stages-") as work:
        bundle = bundle_with_widget_modules(ENTRY, Path(work) / "stages.js", "iife")
        print(f"{size:,}-character replies, each drawn {runs} times in a fresh page (ms; first run -> run {runs})")
        print(f"{'shape':>10} " + " ".join(f"{stage:>20}" for stage in (*STAGES, "script")))
        with sync_playwright() as playwright:
            browser = launch_chromium(playwright)
            try:
                for shape in shapes:
                    page = browser.new_page()
                    page.set_content("<!doctype html><html><body></body></html>")
                    page.add_script_tag(path=str(bundle))
                    text = markdown_reply(size, shape)
                    timed = [page.evaluate("text => window.drawStages(text)", text) for _ in range(runs)]
                    page.close()
                    first, last = timed[0], timed[-1]
                    script = [sum(run[stage] for stage in STAGES if stage != "layout") for run in (first, last)]
                    cells = [f"{first[stage]:8.1f} -> {last[stage]:7.1f}" for stage in STAGES]
                    print(f"{shape:>10} " + " ".join(f"{cell:>20}" for cell in cells)
                          + f" {script[0]:8.1f} -> {script[1]:7.1f}")
            finally:
                browser.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shape", default="all", help=f"the reply: {', '.join(SHAPES)} (comma-separated) or all")
    parser.add_argument("--size", type=int, default=80_000, help="characters of each reply")
    parser.add_argument("--runs", type=int, default=3, help="times each reply is drawn in its page")
    args = parser.parse_args()
    chosen = list(SHAPES) if args.shape == "all" else args.shape.split(",")
    unknown = [shape for shape in chosen if shape not in SHAPES]
    if unknown:
        parser.error(f"unknown --shape {', '.join(unknown)}: choose from {', '.join(SHAPES)} or all")
    measure(chosen, args.size, max(1, args.runs))
