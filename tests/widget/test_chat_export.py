"""A conversation exported as Markdown or as notebook cells (its Python code blocks become code cells)."""

from __future__ import annotations

from notebook_chat import Chat
from notebook_chat.testing import ScriptedProvider

from .widget_doubles import RecordingComm, drop_table_tool, shown


async def test_export_markdown_writes_each_message_and_tool_call_with_its_result(
        recording_comms: list[RecordingComm]) -> None:
    ran: list[str] = []
    provider = ScriptedProvider().tool_calls([{"name": "drop_table", "arguments": {"name": "t1"}, "id": "c1"}])
    chat = Chat(provider.text("Done.\n\n```python\nprint('t1')\n```"), tools=[drop_table_tool(ran)], key="k")
    await chat.send("drop t1")
    await chat.approve("c1")
    text = chat.export_markdown()
    assert text.startswith("# drop t1\n\n## You\n\ndrop t1\n\n## Assistant\n\n**Tool call `drop_table`**")
    assert '"name": "t1"' in text
    assert "Result:\n\n```text\ndropped t1\n```" in text
    assert text.endswith("## Assistant\n\nDone.\n\n```python\nprint('t1')\n```\n")


async def test_export_cells_makes_python_blocks_code_cells_and_the_rest_markdown(
        recording_comms: list[RecordingComm]) -> None:
    reply = ("Load it:\n\n```python\nimport pandas as pd\ndf = pd.read_csv('x.csv')\n```\n\n"
             "Then:\n\n```sql\nSELECT 1\n```")
    chat = Chat(ScriptedProvider().text(reply), key="k")
    await chat.send("how do I load x.csv?")
    assert [(c["cell_type"], c["source"]) for c in chat.export_cells()] == [
        ("markdown", "# how do I load x.csv?"),
        ("markdown", "## You\n\nhow do I load x.csv?"),
        ("markdown", "## Assistant\n\nLoad it:"),
        ("code", "import pandas as pd\ndf = pd.read_csv('x.csv')"),
        ("markdown", "Then:\n\n```sql\nSELECT 1\n```"),
    ]


async def test_an_inactive_conversation_exports_as_it_did_while_it_was_active(
        recording_comms: list[RecordingComm]) -> None:
    ran: list[str] = []
    provider = ScriptedProvider().tool_calls([{"name": "drop_table", "arguments": {"name": "t1"}, "id": "c1"}])
    chat = await shown(Chat(provider.text("Done."), tools=[drop_table_tool(ran)], key="k"))
    await chat.send("drop t1")
    await chat.approve("c1")
    text, first = chat.export_markdown(), chat.conversation_id
    chat.new_conversation()
    assert chat.export_markdown(first) == text
