"""Notebook cells the browser tests share: a chat with the demo model, and one with a tool that needs approval
and leaves a trace on disk (runs.txt, in the notebook's folder) each time it really runs."""

from __future__ import annotations


def record_tool_chat(key: str) -> str:
    """A cell that shows a DemoModel chat under `key` with `record_run(label)`: approval needed, each run appends
    the label as a line of runs.txt (so a test can count real runs across restarts)."""
    return f'''
import pathlib
from notebook_chat import Chat, tool
from notebook_chat.providers import DemoModel

RUNS = pathlib.Path("runs.txt")

@tool(approval=True)
def record_run(label: str) -> str:
    """Append a line to runs.txt."""
    with RUNS.open("a") as file:
        file.write(label + "\\n")
    return "recorded"

chat = Chat(DemoModel(delay=0.005), tools=[record_run], key="{key}")
chat
'''
