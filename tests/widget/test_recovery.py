"""A conversation never gets stuck on a failed turn: retry (shorter), remove or edit the rejected message."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from notebook_chat import Chat
from notebook_chat.providers import OpenAIChat
from notebook_chat.testing import FakeOpenAIServer
from notebook_chat.widget.actions import ACTIONS

from .widget_doubles import RecordingComm

TOO_LONG = "request (4078 tokens) exceeds the available context size (2048 tokens), try increasing it"


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as fake:
        yield fake


def make_chat(server: FakeOpenAIServer, **options: object) -> Chat:
    return Chat(OpenAIChat("m", base_url=server.base_url, max_retries=0, **options), system="be brief")


async def failed(chat: Chat, server: FakeOpenAIServer, text: str = "a very long question") -> None:
    server.enqueue_http_error(400, TOO_LONG)
    await chat.send(text)
    assert chat.state.request_state == "error"


def user_texts(chat: Chat) -> list[str]:
    return [m["content"] for m in chat.messages if m["role"] == "user"]


async def test_a_too_long_rejection_ends_the_turn_in_error_and_offers_retry_on_the_rejected_message(
        server: FakeOpenAIServer, recording_comms: list[RecordingComm]) -> None:
    chat = make_chat(server)
    await failed(chat, server)
    view = chat.view_state()
    rejected = next(m for m in view["messages"] if m["role"] == "user")
    assert view["retry_offer"] == {"message_id": rejected["id"], "reason": "error"}
    assert "shorter history" in chat.state.error


async def test_retry_sends_the_same_request_again_and_the_history_keeps_one_copy(
        server: FakeOpenAIServer, recording_comms: list[RecordingComm]) -> None:
    chat = make_chat(server)
    server.enqueue_http_error(500, "boom")
    await chat.send("hello")
    server.enqueue_text("hi there")

    await chat.retry()

    assert server.requests[1].body["messages"] == server.requests[0].body["messages"]
    assert user_texts(chat) == ["hello"]
    assert (chat.state.request_state, chat.reply) == ("completed", "hi there")
    assert chat.view_state()["retry_offer"] is None


async def test_retry_with_a_shorter_history_leaves_out_older_turns(
        server: FakeOpenAIServer, recording_comms: list[RecordingComm]) -> None:
    chat = make_chat(server)
    for n in range(4):
        server.enqueue_text(f"answer {n} " + "z" * 400)
        await chat.send(f"question {n} " + "x" * 400)
    await failed(chat, server, "and one more")
    server.enqueue_text("short enough")

    await chat.retry(shorter=True)

    sent = server.requests[-1].body["messages"]
    assert len(sent) < len(server.requests[-2].body["messages"])
    assert sent[0]["role"] == "system"
    assert sent[-1]["content"] == "and one more"
    assert chat.messages[-1]["metadata"]["left_out_turns"] > 0
    assert chat.view_state()["messages"][-1]["left_out_turns"] > 0


async def test_removing_the_rejected_message_lets_the_next_message_through_without_it(
        server: FakeOpenAIServer, recording_comms: list[RecordingComm]) -> None:
    chat = make_chat(server)
    await failed(chat, server, "x" * 5000)
    rejected = next(m for m in chat.messages if m["role"] == "user")

    chat.remove_message(rejected["id"])
    server.enqueue_text("fine")
    await chat.send("short question")

    assert user_texts(chat) == ["short question"]
    assert [m["content"] for m in server.requests[-1].body["messages"]] == ["be brief", "short question"]
    assert chat.state.request_state == "completed"


async def test_edit_and_resend_replaces_the_last_message_and_what_followed_it(
        server: FakeOpenAIServer, recording_comms: list[RecordingComm]) -> None:
    chat = make_chat(server)
    await failed(chat, server, "x" * 5000)
    rejected = next(m for m in chat.messages if m["role"] == "user")
    server.enqueue_text("answer")

    await chat.edit_and_resend(rejected["id"], "the short version")

    assert user_texts(chat) == ["the short version"]
    assert chat.reply == "answer"


async def test_only_the_last_message_can_be_edited_and_only_user_messages_removed(
        server: FakeOpenAIServer, recording_comms: list[RecordingComm]) -> None:
    chat = make_chat(server)
    server.enqueue_text("one")
    await chat.send("first")
    await failed(chat, server)
    first = next(m for m in chat.messages if m["role"] == "user")
    with pytest.raises(ValueError, match="only the last message"):
        await chat.edit_and_resend(first["id"], "changed")
    with pytest.raises(ValueError, match="not a message you sent"):
        chat.remove_message(chat.messages[0]["id"] if "id" in chat.messages[0] else chat.messages[2]["id"])
    with pytest.raises(ValueError, match="no message"):
        chat.remove_message("msg_missing")


async def test_retry_is_refused_when_the_latest_turn_did_not_fail(
        server: FakeOpenAIServer, recording_comms: list[RecordingComm]) -> None:
    chat = make_chat(server)
    server.enqueue_text("ok")
    await chat.send("hi")
    with pytest.raises(ValueError, match="only after a turn that failed"):
        await chat.retry()


def test_the_three_recovery_actions_are_in_the_action_table_with_their_fields() -> None:
    assert {kind: list(ACTIONS[kind].fields) for kind in ("retry", "remove_message", "edit_and_resend")} == {
        "retry": ["shorter"], "remove_message": ["message_id"], "edit_and_resend": ["message_id", "text"]}
