"""What a chat writes to the notebook costs what changed: displaying an unchanged chat writes nothing, a streamed
reply goes as appended text, and the whole record goes only when the browser's copy is unknown or refused a patch."""

from __future__ import annotations

import asyncio
import itertools
import json
from typing import Any

from notebook_chat import Chat
from notebook_chat.engine import ProviderError
from notebook_chat.testing import ScriptedProvider
from tests.persistence.test_display_blobs import PNG, plot

from .widget_doubles import RecordingComm, active_conversation, notebook_entry


async def browser_sends(chat: Chat, content: dict[str, Any]) -> None:
    chat.widget._handle_custom_msg(content, [])
    for _ in range(10):
        await asyncio.sleep(0)


def sent(chat: Chat) -> list[dict[str, Any]]:
    comm = chat.widget.comm
    assert isinstance(comm, RecordingComm)
    return comm.sent


def persists(chat: Chat) -> list[dict[str, Any]]:
    return [m for m in sent(chat) if m["kind"] == "persist"]


def whole(write: dict[str, Any]) -> bool:
    return write["base"] is None and [op["path"] for op in write["ops"]] == [[]]


async def notebook_holding_a_conversation(turns: int = 3) -> dict[str, Any]:
    provider = ScriptedProvider()
    for number in range(turns):
        provider.text(f"reply {number}")
    chat = Chat(provider, key="cell-1")
    await browser_sends(chat, {"kind": "ready", "notebook": True, "cell_id": "cell-1", "record": None})
    for number in range(turns):
        await chat.send(f"question {number}")
    entry: dict[str, Any] = notebook_entry(sent(chat))
    return json.loads(json.dumps(entry))  # type: ignore[no-any-return]


async def test_displaying_a_chat_whose_notebook_record_is_unchanged_writes_nothing(
        recording_comms: list[RecordingComm]) -> None:
    entry = await notebook_holding_a_conversation()
    restarted = Chat(ScriptedProvider(), key="cell-1")
    await browser_sends(restarted, {"kind": "ready", "notebook": True, "cell_id": "cell-1", "record": entry})
    assert [m["content"] for m in restarted.messages][-1] == "reply 2"
    assert persists(restarted) == []
    assert [m["kind"] for m in sent(restarted)] == ["snapshot"]


async def test_a_record_written_before_revisions_is_adopted_and_patched_from_the_empty_revision(
        recording_comms: list[RecordingComm]) -> None:
    entry = await notebook_holding_a_conversation(1)
    del entry["revision"]
    restarted = Chat(ScriptedProvider().text("more"), key="cell-1")
    await browser_sends(restarted, {"kind": "ready", "notebook": True, "cell_id": "cell-1", "record": entry})
    await restarted.send("again")
    writes = persists(restarted)
    assert writes[0]["base"] == ""
    assert not any(whole(write) for write in writes)
    assert active_conversation(notebook_entry([{"kind": "persist", "key": "cell-1", "revision": "", "base": None,
                                                "ops": [{"op": "set", "path": [], "value": entry}]},
                                               *sent(restarted)]))["messages"][-1]["content"] == "more"


async def test_a_streamed_reply_is_written_as_appended_text_after_one_whole_record(
        recording_comms: list[RecordingComm]) -> None:
    chat = Chat(ScriptedProvider().text("word " * 400, chunks=40, delay=0.005), key="k")
    await browser_sends(chat, {"kind": "ready", "notebook": True, "cell_id": "k", "record": None})
    assert chat._autosave is not None
    chat._autosave.min_interval = 0.01
    await chat.send("stream")
    writes = persists(chat)
    assert [whole(write) for write in writes].count(True) == 1
    appends = [op for write in writes for op in write["ops"] if op["op"] == "append"]
    assert len(appends) >= 3
    assert all(write["base"] == before["revision"] for before, write in itertools.pairwise(writes))
    assert active_conversation(notebook_entry(sent(chat)))["messages"][-1]["content"] == "word " * 400


async def test_a_patch_the_browser_refuses_as_stale_brings_the_whole_record_and_no_notice(
        recording_comms: list[RecordingComm]) -> None:
    chat = Chat(ScriptedProvider().text("hello"), key="k")
    await browser_sends(chat, {"kind": "ready", "notebook": True, "cell_id": "k", "record": None})
    await chat.send("hi")
    before = len(persists(chat))
    await browser_sends(chat, {"kind": "persisted", "key": "k", "ok": False, "error": None, "revision": None,
                               "stale": True})
    assert whole(persists(chat)[before])
    assert chat.view_state()["notice"] is None


async def test_a_re_rendered_view_holding_the_kernels_revision_gets_no_write_and_an_older_one_the_whole_record(
        recording_comms: list[RecordingComm]) -> None:
    chat = Chat(ScriptedProvider().text("one").text("two"), key="k")
    await browser_sends(chat, {"kind": "ready", "notebook": True, "cell_id": "k", "record": None})
    await chat.send("first")
    older = json.loads(json.dumps(notebook_entry(sent(chat))))
    await chat.send("second")
    current = notebook_entry(sent(chat))
    before = len(persists(chat))
    await browser_sends(chat, {"kind": "ready", "notebook": True, "cell_id": "k", "record": current})
    assert len(persists(chat)) == before
    await browser_sends(chat, {"kind": "ready", "notebook": True, "cell_id": "k", "record": older})
    assert whole(persists(chat)[before])
    assert active_conversation(persists(chat)[before]["ops"][0]["value"])["messages"][-1]["content"] == "two"


async def test_a_reply_that_failed_while_it_only_reasoned_is_written_and_drawn_with_its_reasoning_after_a_restart(
        recording_comms: list[RecordingComm]) -> None:
    failing = ScriptedProvider().text("", reasoning="weighing the options", chunks=4, finish_reason=None,
                                      error=ProviderError("the connection was reset"), error_at=3)
    chat = Chat(failing, key="cell-1")
    await browser_sends(chat, {"kind": "ready", "notebook": True, "cell_id": "cell-1", "record": None})
    await chat.send("question")  # the chat says what failed; it does not raise
    thought = chat.messages[-1]["reasoning_content"]
    assert thought
    assert not chat.messages[-1]["content"]
    entry = json.loads(json.dumps(notebook_entry(sent(chat))))
    assert active_conversation(entry)["messages"][-1]["reasoning_content"] == thought

    restarted = Chat(ScriptedProvider(), key="cell-1")
    await browser_sends(restarted, {"kind": "ready", "notebook": True, "cell_id": "cell-1", "record": entry})
    snapshot = next(m for m in reversed(sent(restarted)) if m["kind"] == "snapshot")
    drawn = snapshot["view"]["messages"][-1]
    assert (drawn["role"], drawn["reasoning_content"]) == ("assistant", thought)


async def test_an_image_from_a_tool_result_travels_once_to_the_view_and_once_to_the_notebook(
        recording_comms: list[RecordingComm]) -> None:
    provider = ScriptedProvider().tool_calls([{"name": "plot", "arguments": {"name": "a"}, "id": "c1"}]).text("one")
    for number in range(3):
        provider.text(f"reply {number}")
    chat = Chat(provider, tools=[plot], key="cell-1")
    await browser_sends(chat, {"kind": "ready", "notebook": True, "cell_id": "cell-1", "record": None})
    await chat.send("chart")
    for number in range(3):
        await chat.send(f"question {number}")
    chat.widget.flush()
    carrying = [m["kind"] for m in sent(chat) if PNG in json.dumps(m)]
    assert carrying.count("persist") == 1  # the record's blobs: later writes patch around it
    assert len(carrying) == 2  # and one view message; later view patches leave it out
    entry = notebook_entry(sent(chat))
    assert json.dumps(entry).count(PNG) == 1
