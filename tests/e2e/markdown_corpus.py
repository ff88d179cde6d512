"""Markdown generated to cover what marked and KaTeX can make: every block construct holding every inline construct,
and every command, environment, macro and symbol KaTeX defines (read from its sources in js/widget/node_modules)."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

KATEX_SOURCE = Path(__file__).resolve().parents[2] / "js" / "widget" / "node_modules" / "katex" / "src"

INLINES = [
    "*em* and _em_", "**strong**", "~~deleted~~", "`code < span`", "[link](https://example.com \"a title\")",
    "[relative](./notes.md)", "![an image](https://example.com/plot.png \"a plot\")", "<https://example.com/auto>",
    "https://example.com/bare", "x &amp; y &copy; &#169; &lt;b&gt;", "escaped \\*stars\\* \\<tag\\>", "a < b > c",
    "$x_1^2 + \\alpha$", "$$\\frac{a}{b}$$", "[js](javascript:alert(1))", "![js](javascript:alert(1))",
    "[data](data:text/html;base64,PHNjcmlwdD4=)", "[vb](vbscript:msgbox) [file](file:///etc/passwd)",
    "[mail](mailto:a@b.c) [cased](JaVaScRiPt:alert(1)) [spaced](java%20script:x) [tel](tel:+1) [ftp](ftp://x/y)",
    "![svg](data:image/svg+xml,x) ![rel](plot.png)", "line  \nbreak", "emoji 😀 and 中文",
]

BLOCKS = [
    "{}", "# {}", "###### {}", "{}\n===", "> {}\n> > {}", "- {}\n- second\n  - nested {}", "3. {}\n4. next",
    "- [ ] {}\n- [x] done", "| head | {} |\n|:--|--:|\n| {} | cell |", "1. item\n\n   {}\n\n2. after",
    "Term\n\n---\n\n{}", "```python\n{}\nx = 1 < 2\n```", "    indented {}", "~~~\n{}\n~~~", "***{}***",
]

ENVIRONMENT_BODY = "a & b \\\\ \\hline c & d"


def markdown_corpus() -> list[str]:
    """Each block construct with each inline construct in it."""
    return [block.format(inline, inline) for block, inline in itertools.product(BLOCKS, INLINES)]


def katex_corpus() -> list[str]:
    """Every KaTeX command, macro and environment, inline and as display math, and every symbol, in markdown."""
    names: set[str] = set()
    for source in [*KATEX_SOURCE.glob("functions/*.ts"), *KATEX_SOURCE.glob("environments/*.ts")]:
        for listed in re.finditer(r"names:\s*\[([^\]]*)\]", source.read_text(), re.S):
            names.update(re.findall(r'"([^"\n]+)"', listed.group(1)))
    commands = sorted(name.replace("\\\\", "\\") for name in names if name.startswith("\\\\"))
    environments = sorted(name for name in names if re.fullmatch(r"[A-Za-z*]+", name))
    macros = re.findall(r'defineMacro\("(\\\\[A-Za-z]+)"', (KATEX_SOURCE / "macros.ts").read_text())
    symbols = re.findall(r'defineSymbol\([^)]*?"(\\\\[A-Za-z]+)"', (KATEX_SOURCE / "symbols.ts").read_text())
    texts = [f"Inline ${command}{{x}}{{y}}$ and\n\n$$\n{command}{{a}}{{b}} + 1\n$$\n"
             for command in [*commands, *sorted({macro.replace("\\\\", "\\") for macro in macros})]]
    texts += [f"$$\n\\begin{{{name}}}{{c|c}} {ENVIRONMENT_BODY} \\end{{{name}}}\n$$\n" for name in environments]
    unique = sorted({symbol.replace("\\\\", "\\") for symbol in symbols})
    texts += ["$" + " ".join(unique[start:start + 40]) + "$" for start in range(0, len(unique), 40)]
    return texts
