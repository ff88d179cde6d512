"""The kinds of conversation benchmarks/first_paint.py paints (`--shape`), built from record_validation's record.

plain     today's record: users, assistants with a tool call, tool results, replies (~300 characters each)
markdown  every reply ~1.5 KB x 6 of markdown: a heading, a table, a python code block and an inline formula
long      plain, but a few replies are long markdown (20, 50, 100 and 200 KB in turn, every 40th reply), the latest
          reply among them (200 KB)
tools     plain, but each tool round calls three tools whose results are ~4 KB each
long-K    plain, but the latest reply and every 40th before it are 80 KB of markdown of reply_shapes.py's kind K (code:
          one code block; table: one table; cjk: one paragraph of Chinese; nested: one list of lists; math, mix, ...):
          a reply that is one long block cannot be drawn from its end a block at a time
"""

from __future__ import annotations

import json
from typing import Any

from record_validation import record
from reply_shapes import SHAPES as REPLY_SHAPES
from reply_shapes import markdown_reply

MARKDOWN = (
    "## Result\n\nHere is **the** analysis with `code` and a table:\n\n| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n\n"
    "```python\nimport pandas as pd\ndf = pd.read_csv('x.csv')\nprint(df.describe())\n```\n\n"
    "And math $e^{i\\pi}+1=0$.\n\n"
) * 6
# one ~1 KB unit of a long reply: prose, a list, a code block
LONG_UNIT = (
    "### Step\n\nThe model fits the data well; the residuals show no trend and the variance is stable across the"
    " range of the predictor, so the assumptions hold.\n\n- first, the coefficients\n- then, the intervals\n\n"
    "```python\nfor name, group in df.groupby('region'):\n    print(name, group['revenue'].sum())\n```\n\n"
)
LONG_SIZES = (20_000, 50_000, 100_000, 200_000)
LONG_EVERY = 40
RESULT = "\n".join(json.dumps({"row": n, "region": "north", "revenue": 1234.5 + n, "note": "steady"})
                   for n in range(55))  # ~4 KB
SHAPES = ("plain", "markdown", "long", "tools", *(f"long-{kind}" for kind in REPLY_SHAPES))
LONG_SHAPED = 80_000


def long_text(size: int) -> str:
    return (LONG_UNIT * (size // len(LONG_UNIT) + 1))[:size].rsplit("\n\n", 1)[0] + "\n"


def shaped_record(count: int, shape: str) -> dict[str, Any]:
    """A record of `count` messages of the given shape (see the module's docstring)."""
    data = record(count)
    messages: list[dict[str, Any]] = data["messages"]
    if shape == "markdown":
        for message in messages:
            if message["role"] == "assistant" and message.get("content"):
                message["content"] = MARKDOWN
    elif shape == "long":
        replies = [m for m in messages if m["role"] == "assistant" and m.get("content")]
        chosen = replies[::-LONG_EVERY]  # the latest reply, then every 40th one before it
        for n, message in enumerate(chosen):
            message["content"] = long_text(LONG_SIZES[::-1][n % len(LONG_SIZES)])
    elif shape == "tools":
        data["messages"] = with_three_tools(messages)[:count]
        while not (data["messages"][-1]["role"] == "assistant" and data["messages"][-1].get("content")):
            data["messages"].pop()  # it ends with a reply, as the other shapes do (not a round cut short)
    elif shape.startswith("long-") and shape in SHAPES:
        replies = [m for m in messages if m["role"] == "assistant" and m.get("content")]
        for message in replies[::-LONG_EVERY]:
            message["content"] = markdown_reply(LONG_SHAPED, shape.removeprefix("long-"))
    elif shape != "plain":
        raise ValueError(f"unknown shape {shape!r}: one of {', '.join(SHAPES)}")
    return data


def with_three_tools(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for message in messages:
        if message["role"] == "tool":
            continue
        out.append(message)
        calls = message.get("tool_calls")
        if not calls:
            continue
        base = calls[0]["id"]
        ids = [f"{base}_{n}" for n in range(3)]
        message["tool_calls"] = [{**calls[0], "id": call} for call in ids]
        message["state"] = {**message["state"], "tool_calls": {call: {"status": "success"} for call in ids}}
        out += [{"id": f"msg_t_{call}", "role": "tool", "tool_call_id": call, "content": RESULT,
                 "metadata": {"tool_name": "lookup"}} for call in ids]
    return out
