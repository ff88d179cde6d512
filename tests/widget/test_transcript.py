"""The chat's static transcript (issue 13, item 5): what GitHub, nbviewer and a kernel-less JupyterLab show."""

from __future__ import annotations

import asyncio
import html
import json
import re
from html.parser import HTMLParser
from typing import Any

import pytest

from notebook_chat import Chat
from notebook_chat.testing import ScriptedProvider
from notebook_chat.widget.transcript import MAX_MESSAGES, MAX_TEXT_CHARS, transcript_bundle

from .widget_doubles import RecordingComm, notebook_entry

HOSTILE = [
    "<script>alert(1)</script>",
    '<img src=x onerror="alert(1)">',
    "</div></div><p>escaped the transcript",
    "<a href='javascript:alert(1)'>click</a>",
    "&lt;already escaped&gt; & ampersand",
    '" onmouseover="alert(1)',
    "<!-- comment --><style>body{display:none}</style>",
    "\u202e right-to-left override and \x00 nul",
]


class Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: set[str] = set()
        self.attributes: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        self.attributes.update(name for name, _ in attrs)


def tags_of(markup: str) -> Tags:
    parser = Tags()
    parser.feed(markup)
    return parser


def conversation(user: str, reply: str) -> list[dict[str, Any]]:
    return [{"id": "u1", "role": "user", "content": user}, {"id": "a1", "role": "assistant", "content": reply}]


async def test_a_displayed_chat_carries_a_transcript_instead_of_the_object_repr(
        recording_comms: list[RecordingComm]) -> None:
    chat = Chat(ScriptedProvider().text("Paris is the capital."), key="k")
    await chat.send("What is the capital of France?")

    data, metadata = chat._repr_mimebundle_()

    assert "object at 0x" not in data["text/plain"]
    assert "What is the capital of France?" in data["text/plain"]
    assert "Paris is the capital." in data["text/plain"]
    assert "Paris is the capital." in data["text/html"]
    assert "application/vnd.jupyter.widget-view+json" in data
    assert metadata == {"notebook_chat": {"key": "k"}}


async def browser_sends(chat: Chat, content: dict[str, Any]) -> None:
    chat.widget._handle_custom_msg(content, [])
    for _ in range(10):
        await asyncio.sleep(0)


def persists(chat: Chat) -> list[dict[str, Any]]:
    comm = chat.widget.comm
    assert isinstance(comm, RecordingComm)
    return [m for m in comm.sent if m["kind"] == "persist"]


async def displayed_in_a_notebook(chat: Chat) -> dict[str, str]:
    data, _metadata = chat._repr_mimebundle_()
    await browser_sends(chat, {"kind": "ready", "notebook": True, "cell_id": "cell-1", "record": None})
    return {mime: data[mime] for mime in ("text/plain", "text/html")}


async def test_a_write_at_a_turn_boundary_carries_the_new_transcript(recording_comms: list[RecordingComm]) -> None:
    chat = Chat(ScriptedProvider().text("First reply.").text("Second reply."), key="k")
    await displayed_in_a_notebook(chat)
    await chat.send("Hello")
    await chat.send("Again")

    fallbacks = [m["fallback"] for m in persists(chat) if "fallback" in m]
    assert fallbacks, "no write carried a transcript"
    assert "Second reply." in fallbacks[-1]["text/html"]
    assert "Again" in fallbacks[-1]["text/plain"]
    assert fallbacks[-1] == transcript_bundle(chat.messages, title=chat.widget.header)


async def test_a_transcript_goes_only_when_it_differs_from_the_one_the_output_has(
        recording_comms: list[RecordingComm]) -> None:
    chat = Chat(ScriptedProvider().text("First reply."), key="k")
    shown = await displayed_in_a_notebook(chat)
    await chat.send("Hello")
    fallbacks = [m["fallback"] for m in persists(chat) if "fallback" in m]
    assert shown not in fallbacks  # the displayed one is already in the output
    assert len(fallbacks) == len({json.dumps(f, sort_keys=True) for f in fallbacks})  # never the same one twice


async def test_a_streaming_write_carries_no_transcript(recording_comms: list[RecordingComm]) -> None:
    chat = Chat(ScriptedProvider(), key="k")
    await displayed_in_a_notebook(chat)
    write = {"key": "k", "revision": "r-2", "base": "r-1",
             "ops": [{"op": "append", "path": ["messages", 1, "content"], "at": 3, "text": "more"},
                     {"op": "set", "path": ["updated_at"], "value": "2026-01-01T00:00:00Z"}]}
    chat.widget.persist(write)
    assert persists(chat)[-1] == {"kind": "persist", **write, "streaming": True}  # the browser may coalesce it


async def test_a_reply_s_first_streaming_write_a_set_of_its_short_text_carries_no_transcript(
        recording_comms: list[RecordingComm]) -> None:
    chat = Chat(ScriptedProvider(), key="k")
    await displayed_in_a_notebook(chat)
    write = {"key": "k", "revision": "r-2", "base": "r-1",
             "ops": [{"op": "set", "path": ["messages", 1, "content"], "value": "The first words"},
                     {"op": "set", "path": ["messages", 1, "reasoning_content"], "value": "Thinking"},
                     {"op": "set", "path": ["updated_at"], "value": "2026-01-01T00:00:00Z"}]}
    chat.widget.persist(write)
    assert persists(chat)[-1] == {"kind": "persist", **write, "streaming": True}  # the browser may coalesce it


async def test_a_streaming_write_into_one_of_many_conversations_carries_no_transcript(
        recording_comms: list[RecordingComm]) -> None:
    chat = Chat(ScriptedProvider(), key="k")
    await displayed_in_a_notebook(chat)
    write = {"key": "k", "revision": "r-2", "base": "r-1",
             "ops": [{"op": "append", "path": ["items", "c1", "messages", 1, "content"], "at": 3, "text": "more"},
                     {"op": "set", "path": ["items", "c1", "updated_at"], "value": "2026-01-01T00:00:00Z"}]}
    chat.widget.persist(write)
    assert persists(chat)[-1] == {"kind": "persist", **write, "streaming": True}  # the browser may coalesce it


async def test_displaying_an_unchanged_chat_sends_no_transcript(recording_comms: list[RecordingComm]) -> None:
    first = Chat(ScriptedProvider().text("Stored reply."), key="cell-1")
    await displayed_in_a_notebook(first)
    await first.send("Hello")
    entry = notebook_entry(list(first.widget.comm.sent))  # type: ignore[union-attr]

    again = Chat(ScriptedProvider(), key="cell-1")
    again._repr_mimebundle_()
    await browser_sends(again, {"kind": "ready", "notebook": True, "cell_id": "cell-1",
                                "record": json.loads(json.dumps(entry))})
    assert persists(again) == []


@pytest.mark.parametrize("hostile", HOSTILE)
def test_message_text_never_becomes_markup_in_the_html_transcript(hostile: str) -> None:
    bundle = transcript_bundle(conversation(hostile, hostile), title=hostile)
    parsed = tags_of(bundle["text/html"])

    assert parsed.tags <= {"div", "p", "strong", "em", "br", "code"}
    assert parsed.attributes <= {"class", "data-role"}
    assert html.escape(hostile.strip()) in bundle["text/html"]
    assert hostile.strip() in bundle["text/plain"]


def test_hidden_messages_and_tool_results_stay_out_but_each_call_says_what_happened() -> None:
    messages = [
        {"id": "u1", "role": "user", "content": "Drop the old table"},
        {"id": "a1", "role": "assistant", "content": "",
         "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "drop", "arguments": '{"name": "t"}'}}],
         "state": {"tool_calls": {"c1": {"status": "success"}}}},
        {"id": "t1", "role": "tool", "tool_call_id": "c1", "content": "dropped t"},
        {"id": "h1", "role": "user", "content": "secret continuation", "metadata": {"hidden": True}},
        {"id": "a2", "role": "assistant", "content": "Done."},
    ]
    plain = transcript_bundle(messages)["text/plain"]

    assert 'Tool call drop({"name": "t"}): success → dropped t' in plain
    assert "secret continuation" not in plain
    assert plain.count("Assistant:") == 2


def test_the_transcript_stays_bounded_as_the_conversation_grows() -> None:
    long = "x" * (MAX_TEXT_CHARS * 3)
    messages = [m for i in range(MAX_MESSAGES) for m in conversation(f"question {i}", long)]
    bundle = transcript_bundle(messages)

    assert f"({MAX_MESSAGES} earlier messages not shown)" in bundle["text/plain"]
    assert "question 0\n" not in bundle["text/plain"]
    assert f"question {MAX_MESSAGES - 1}" in bundle["text/plain"]
    assert len(bundle["text/plain"]) < MAX_MESSAGES * (MAX_TEXT_CHARS + 200)


@pytest.mark.parametrize("content", [None, 3, {"a": 1}, [{"type": "text", "text": "part one"}, {"type": "image"}]])
def test_odd_stored_content_is_read_without_failing(content: Any) -> None:
    messages = [{"role": "user", "content": content}, {"role": "assistant"}, {"role": "tool"}, {"role": 7}]
    bundle = transcript_bundle(messages)
    assert bundle["text/plain"].startswith("Chat")
    assert ("part one" in bundle["text/plain"]) == isinstance(content, list)


def test_an_empty_chat_says_so() -> None:
    assert re.search(r"no messages yet", transcript_bundle([])["text/plain"], re.IGNORECASE)
