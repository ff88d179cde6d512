"""The reply shapes the benchmarks draw: deterministic markdown of a given size and kind (widget_stream.py streams
one, markdown_stages.py draws one in one go, paint_shapes.py puts them in a stored conversation)."""

from __future__ import annotations

SHAPES = ("mix", "code", "paragraph", "list", "table", "math", "ordered", "quote", "nested", "cjk", "escapes")


def markdown_reply(size: int, shape: str = "mix") -> str:
    """Deterministic markdown of about `size` characters in one of SHAPES (runs in the kernel too: its source is
    copied into the notebook): "mix" headings, paragraphs, lists, tables, math and code blocks; "code" one fenced
    Python block; "paragraph" one paragraph (no blank line) of sentences with inline markup; "list" one tight list;
    "table" one table; "math" paragraphs dense with inline math and display formulas; "ordered" one numbered list;
    "quote" one blockquote; "nested" bulleted items holding a bulleted and a numbered list; "cjk" one paragraph of
    Chinese sentences; "escapes" one paragraph dense with escaped punctuation, backslashes and code spans (paths, a
    log)."""
    parts: list[str] = []
    total = 0
    n = 0
    if shape == "code":
        parts.append("```python\n")
    elif shape == "table":
        parts.append("| step | name | value | note |\n|---:|---|---:|---|\n")
    while total < size:
        n += 1
        if shape == "mix":
            part = (
                f"## Section {n}\n\n"
                f"Paragraph {n} with **bold**, `inline code`, a [link](https://example.com/{n}) and $x_{n}^2$. "
                "The quick brown fox jumps over the lazy dog, again and again, to make the text long enough.\n\n"
                f"- item one of {n}\n- item two with `code`\n\n  continued item two\n- item three\n\n"
                f"| column | value |\n|---|---|\n| a{n} | {n * 3} |\n| b{n} | {n * 7} |\n\n"
                f"```python\ndef step_{n}(frame, scale={n}):\n    \"\"\"Scale and summarise.\"\"\"\n"
                "    result = frame.assign(value=frame['value'] * scale)\n\n"
                "    return result.groupby('key').agg(['mean', 'max'])\n```\n\n"
                f"> Note {n}: a quote that spans\n> two lines.\n\n"
                f"$$\n\\sum_{{i=1}}^{{{n}}} i = \\frac{{{n}({n}+1)}}{{2}}\n$$\n\n"
            )
        elif shape == "code":
            part = (f"def step_{n}(frame, scale={n}):\n    \"\"\"Scale and summarise.\"\"\"\n"
                    f"    result = frame.assign(value=frame['value'] * scale)  # step {n}\n"
                    "    return result.groupby('key').agg(['mean', 'max'])\n\n")
        elif shape == "paragraph":
            part = (f"Sentence {n} has **bold {n}**, `code {n}` and a [link](https://example.com/{n}); "
                    "the quick brown fox jumps over the lazy dog again.\n")
        elif shape == "list":
            part = f"- item {n} with **bold**, `code {n}` and a [link](https://example.com/{n})\n"
        elif shape == "table":
            part = f"| {n} | name {n} with `code` | {n * 7} | a **note** on row {n} |\n"
        elif shape == "ordered":
            part = f"{n}. step {n} with **bold**, `code {n}` and a [link](https://example.com/{n})\n"
        elif shape == "quote":
            part = f"> Quoted line {n} with *emphasis*, `code {n}` and more words to fill it.\n>\n"
        elif shape == "nested":
            part = (f"- topic {n} with **bold**\n  - detail {n}.1 with `code`\n  - detail {n}.2\n"
                    f"    1. point {n} with a [link](https://example.com/{n})\n")
        elif shape == "cjk":
            part = f"第{n}句：数据框按**键**分组，计算`均值`与最大值，然后把结果写回笔记本。\n"
        elif shape == "escapes":
            part = (f"Row {n}: `C:\\data\\run_{n}\\out.csv` holds \\*{n}\\* rows \\[ok\\], "
                    f"see C:\\\\Users\\\\me\\\\run_{n} and \\_id\\_{n}\\_.\n")
        else:
            part = (f"Formula {n}: $a_{{{n}}}^2 + b_{n} = \\sqrt{{c_{n}}}$ and $\\frac{{{n}}}{{{n + 1}}}$, "
                    f"then $\\sum_{{i=1}}^{{{n}}} i^2$.\n\n"
                    f"$$\n\\int_0^{{{n}}} x^2 \\, dx = \\frac{{{n}^3}}{{3}}\n$$\n\n")
        parts.append(part)
        total += len(part)
    if shape == "code":
        parts.append("```\n")
    return "".join(parts)
