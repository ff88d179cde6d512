"""@-mentions through the Chat facade: the same for ``await chat.send`` as for the composer's send action."""

from __future__ import annotations

import asyncio
from typing import Any

import pandas as pd
import pytest

from notebook_chat import Chat
from notebook_chat.testing import ScriptedProvider

from .widget_doubles import RecordingComm


def sent(chat: Chat) -> list[dict[str, Any]]:
    comm = chat.widget.comm
    assert isinstance(comm, RecordingComm)
    return comm.sent


async def answered(chat: Chat, request_id: str) -> dict[str, Any]:
    for _ in range(200):
        chat.widget.flush()
        for message in sent(chat):
            if message.get("kind") == "action_result" and message.get("request_id") == request_id:
                return message
        await asyncio.sleep(0.005)
    raise AssertionError(f"no action_result for {request_id}")


def frame_namespace() -> dict[str, Any]:
    return {"df": pd.DataFrame({"price": [1.0, 2.0, None]})}


async def test_send_describes_a_mentioned_dataframe_of_the_given_namespace(
        recording_comms: list[RecordingComm]) -> None:
    provider = ScriptedProvider().text("it has a price column")
    chat = Chat(provider, namespace=frame_namespace())
    await chat.send("what is in @df?")
    request = provider.requests[0]["messages"]
    assert [m["role"] for m in request] == ["user", "assistant", "tool"]
    assert request[1]["tool_calls"][0]["function"] == {"name": "describe", "arguments": '{"name": "df"}'}
    assert "price: float64, 2 non-null" in request[2]["content"]


async def test_an_unknown_mention_raises_before_sending_and_leaves_the_chat_unchanged(
        recording_comms: list[RecordingComm]) -> None:
    provider = ScriptedProvider().text("never")
    chat = Chat(provider, namespace=frame_namespace())
    with pytest.raises(ValueError, match="no variable named 'dff'"):
        await chat.send("what is in @dff?")
    assert provider.requests == []
    assert chat.messages == []


async def test_the_composer_gets_an_action_error_for_an_unknown_mention(
        recording_comms: list[RecordingComm]) -> None:
    provider = ScriptedProvider().text("never")
    chat = Chat(provider, namespace=frame_namespace())
    chat.widget._handle_custom_msg({"kind": "send", "text": "@nothing here", "request_id": "r1"}, [])
    result = await answered(chat, "r1")
    assert result["ok"] is False
    assert "no variable named 'nothing'" in result["error"]
    assert provider.requests == []


async def test_a_send_action_with_a_mention_is_described_like_chat_send(
        recording_comms: list[RecordingComm]) -> None:
    provider = ScriptedProvider().text("ok")
    chat = Chat(provider, namespace=frame_namespace())
    chat.widget._handle_custom_msg({"kind": "send", "text": "@df", "request_id": "r1"}, [])
    assert (await answered(chat, "r1"))["ok"] is True
    assert provider.requests[0]["messages"][1]["tool_calls"][0]["function"]["name"] == "describe"


@pytest.mark.parametrize("temp_field", [{"temp_mentions": True}, {"temp_mentions": False}, {"temp_mentions": None}, {}],
                         ids=["true", "false", "null", "absent"])
async def test_a_send_action_chooses_stored_or_this_turn_only_mentions(
        recording_comms: list[RecordingComm], temp_field: dict[str, Any]) -> None:
    provider = ScriptedProvider().text("ok").text("again")
    chat = Chat(provider, namespace=frame_namespace())
    chat.widget._handle_custom_msg({"kind": "send", "text": "@df", "request_id": "r1", **temp_field}, [])
    assert (await answered(chat, "r1"))["ok"] is True
    await chat.send("and now?")
    temp = temp_field.get("temp_mentions") is True
    assert chat.engine.export_record()["messages"][0]["metadata"]["mentions"][0]["temp"] is temp
    second = [m["role"] for m in provider.requests[1]["messages"]]
    assert second == (["user", "assistant", "user"] if temp else ["user", "assistant", "tool", "assistant", "user"])


async def test_the_view_shows_a_chip_per_mention_and_the_describe_card(
        recording_comms: list[RecordingComm]) -> None:
    chat = Chat(ScriptedProvider().text("ok"), namespace={**frame_namespace(), "n": 3})
    await chat.send("@df vs @n", temp_mentions=True)
    view = chat.view_state()["messages"]
    assert view[0]["mentions"] == [
        {"name": "df", "label": "pandas.DataFrame, shape (3, 1)", "temp": True},
        {"name": "n", "label": "int", "temp": True}]
    cards = [m for m in view if m.get("injected")]
    assert [c["tool_calls"][0]["name"] for c in cards] == ["describe", "describe"]
    assert cards[0]["tool_calls"][0]["status"] == "success"
    assert "<table" in cards[0]["tool_calls"][0]["display"]["text/html"]


async def test_a_temp_mention_never_reaches_the_store(recording_comms: list[RecordingComm]) -> None:
    chat = Chat(ScriptedProvider().text("ok"), namespace=frame_namespace())
    await chat.send("@df", temp_mentions=True)
    record = chat.engine.export_record()
    assert [m["role"] for m in record["messages"]] == ["user", "assistant"]
    assert record["messages"][0]["metadata"]["mentions"][0]["temp"] is True


async def test_the_composer_autocomplete_offers_dataframes_first_with_their_shape(
        recording_comms: list[RecordingComm]) -> None:
    namespace = {"__name__": "__main__", "data_path": "x.csv", "df": pd.DataFrame({"a": [1, 2]}), "_hidden": 1,
                 "pd": pd, "dfs": [1, 2, 3]}
    chat = Chat(ScriptedProvider(), namespace=namespace)
    chat.widget._handle_custom_msg({"kind": "complete_mentions", "prefix": "d", "request_id": "r1"}, [])
    await answered(chat, "r1")
    reply = next(m for m in sent(chat) if m.get("kind") == "mention_options")
    assert reply["prefix"] == "d"
    assert reply["options"] == [
        {"name": "df", "label": "pandas.DataFrame, shape (2, 1)", "dataframe": True},
        {"name": "data_path", "label": "str, len 5", "dataframe": False},
        {"name": "dfs", "label": "list, len 3", "dataframe": False}]


def test_the_autocomplete_matches_case_insensitively_and_offers_error_after_an_exception(
        monkeypatch: pytest.MonkeyPatch, recording_comms: list[RecordingComm]) -> None:
    import sys

    chat = Chat(ScriptedProvider(), namespace={"Sales": 1, "errors_seen": 2})
    monkeypatch.delattr(sys, "last_value", raising=False)
    assert [o["name"] for o in chat.complete_mentions("e")] == ["errors_seen"]
    monkeypatch.setattr(sys, "last_value", KeyError("profit"), raising=False)
    assert [o["name"] for o in chat.complete_mentions("E")] == ["errors_seen", "error"]
    assert [o["name"] for o in chat.complete_mentions("sa")] == ["Sales"]
