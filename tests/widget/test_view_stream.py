import asyncio
import time
from typing import Any

import pytest

from notebook_chat.widget.view_stream import ViewStream

from .widget_doubles import InMemoryController, drawn


def assistant(message_id: str = "m1", **fields: Any) -> dict[str, Any]:
    return {"id": message_id, "role": "assistant", "content": "", "hidden": False, "loading": True, **fields}


def started(controller: InMemoryController, sent: list[dict[str, Any]], interval: float = 0.03) -> ViewStream:
    stream = ViewStream(sent.append, controller, interval=interval)
    controller.subscribe(stream.on_event)
    stream.send_snapshot()
    return stream


def appended_text(sent: list[dict[str, Any]], field: str = "content") -> str:
    deltas = [m for m in sent if m["kind"] == "delta"]
    return "".join(op["append"] for m in deltas for op in m["ops"] if op["field"] == field)


async def test_twenty_thousand_chunks_arrive_as_few_deltas_whose_appends_equal_the_final_text() -> None:
    controller = InMemoryController([assistant()])
    sent: list[dict[str, Any]] = []
    stream = started(controller, sent, interval=0.005)
    for i in range(20_000):
        controller.append("m1", f"w{i} ")
        if i % 500 == 0:
            await asyncio.sleep(0.002)
    stream.flush()
    deltas = [m for m in sent if m["kind"] == "delta"]
    assert 2 <= len(deltas) <= 100
    assert [m["kind"] for m in sent] == ["snapshot"] + ["delta"] * len(deltas)
    assert appended_text(sent) == controller.messages[0]["content"]


async def test_a_producer_that_never_yields_to_the_loop_still_sends_deltas_every_interval() -> None:
    controller = InMemoryController([assistant()])
    sent: list[dict[str, Any]] = []
    stream = started(controller, sent, interval=0.005)
    for i in range(20_000):
        controller.append("m1", f"w{i} ")
        if i % 1000 == 0:
            time.sleep(0.003)  # noqa: ASYNC251 -- busy without yielding, on purpose: the timer cannot run
    streamed = len(sent) - 1
    stream.flush()
    assert streamed >= 5  # sent while the producer ran, not all at its end
    assert [m["kind"] for m in sent] == ["snapshot"] + ["delta"] * (len(sent) - 1)
    assert appended_text(sent) == controller.messages[0]["content"]


async def test_deltas_are_flushed_by_the_timer_without_an_explicit_flush() -> None:
    controller = InMemoryController([assistant()])
    sent: list[dict[str, Any]] = []
    started(controller, sent, interval=0.01)
    controller.append("m1", "Hel")
    controller.append("m1", "lo")
    await asyncio.sleep(0.05)
    assert sent[1:] == [{"kind": "delta", "ops": [{"id": "m1", "field": "content", "append": "Hello"}]}]


async def test_nothing_is_sent_for_chunks_before_the_interval_ends() -> None:
    controller = InMemoryController([assistant()])
    sent: list[dict[str, Any]] = []
    started(controller, sent, interval=10)
    controller.append("m1", "Hello")
    await asyncio.sleep(0.01)
    assert [m["kind"] for m in sent] == ["snapshot"]


async def test_reasoning_and_tool_arguments_stream_as_their_own_fields() -> None:
    call = {"id": "call_1", "name": "f", "arguments": "", "status": "running"}
    controller = InMemoryController([assistant(reasoning_content="", tool_calls=[call])])
    sent: list[dict[str, Any]] = []
    stream = started(controller, sent)
    controller.append("m1", "hmm", field="reasoning_content")
    call["arguments"] += '{"a"'
    controller.emit("message", "m1")
    stream.flush()
    assert sent[-1]["ops"] == [
        {"id": "m1", "field": "reasoning_content", "append": "hmm"},
        {"id": "m1", "field": "args:call_1", "append": '{"a"'},
    ]


async def test_a_state_event_between_deltas_is_sent_in_order() -> None:
    controller = InMemoryController([assistant()])
    sent: list[dict[str, Any]] = []
    stream = started(controller, sent)
    controller.append("m1", "one ")
    stream.flush()
    controller.set_request_state("paused")
    controller.append("m1", "two")
    stream.flush()
    controller.append("m1", " three")
    stream.flush()
    assert [m["kind"] for m in sent] == ["snapshot", "delta", "view_patch", "delta"]
    assert drawn(sent[:3])["status"]["request_state"] == "paused"
    assert drawn(sent[:3])["messages"][0]["content"] == "one two"
    assert sent[3]["ops"] == [{"id": "m1", "field": "content", "append": " three"}]


async def test_a_state_event_is_flushed_by_the_timer_as_one_view_patch() -> None:
    controller = InMemoryController([assistant()])
    sent: list[dict[str, Any]] = []
    started(controller, sent, interval=0.01)
    controller.set_request_state("processing")
    controller.set_request_state("completed")
    await asyncio.sleep(0.05)
    assert [m["kind"] for m in sent] == ["snapshot", "view_patch"]
    assert drawn(sent)["status"]["request_state"] == "completed"


async def test_a_field_that_is_rewritten_goes_out_as_a_view_patch() -> None:
    controller = InMemoryController([assistant(content="Hello")])
    sent: list[dict[str, Any]] = []
    stream = started(controller, sent)
    controller.messages[0]["content"] = "Help!"
    controller.emit("message", "m1")
    stream.flush()
    assert [m["kind"] for m in sent] == ["snapshot", "view_patch"]
    assert drawn(sent)["messages"][0]["content"] == "Help!"


async def test_a_field_that_shrank_goes_out_as_a_view_patch() -> None:
    controller = InMemoryController([assistant(content="Hello")])
    sent: list[dict[str, Any]] = []
    stream = started(controller, sent)
    controller.messages[0]["content"] = "Hell"
    controller.emit("message", "m1")
    stream.flush()
    assert sent[-1]["kind"] == "view_patch"
    assert drawn(sent)["messages"][0]["content"] == "Hell"


async def test_a_message_the_browser_has_not_seen_goes_out_as_a_view_patch() -> None:
    controller = InMemoryController([])
    sent: list[dict[str, Any]] = []
    stream = started(controller, sent)
    controller.messages.append(assistant("m2", content="new"))
    controller.emit("message", "m2")
    stream.flush()
    assert [m["kind"] for m in sent] == ["snapshot", "view_patch"]
    assert [m["id"] for m in drawn(sent)["messages"]] == ["m2"]


async def test_a_new_tool_call_goes_out_as_a_view_patch() -> None:
    controller = InMemoryController([assistant(content="x")])
    sent: list[dict[str, Any]] = []
    stream = started(controller, sent)
    call = {"id": "call_9", "name": "f", "arguments": "{", "status": "running"}
    controller.messages[0]["tool_calls"] = [call]
    controller.emit("message", "m1")
    stream.flush()
    assert sent[-1]["kind"] == "view_patch"
    assert drawn(sent)["messages"][0]["tool_calls"][0]["id"] == "call_9"


async def test_after_a_snapshot_deltas_continue_from_the_snapshots_text() -> None:
    controller = InMemoryController([assistant(content="Hello")])
    sent: list[dict[str, Any]] = []
    stream = started(controller, sent)
    controller.messages[0]["content"] = "Bye"
    controller.emit("message", "m1")
    stream.flush()
    controller.append("m1", " now")
    stream.flush()
    assert sent[-1] == {"kind": "delta", "ops": [{"id": "m1", "field": "content", "append": " now"}]}


async def test_a_closed_stream_sends_nothing_more() -> None:
    controller = InMemoryController([assistant()])
    sent: list[dict[str, Any]] = []
    stream = started(controller, sent, interval=0.01)
    controller.append("m1", "late")
    stream.close()
    await asyncio.sleep(0.03)
    stream.flush()
    assert [m["kind"] for m in sent] == ["snapshot"]


async def test_a_failing_send_is_logged_and_later_messages_still_go_out(caplog: pytest.LogCaptureFixture) -> None:
    controller = InMemoryController([assistant()])
    sent: list[dict[str, Any]] = []
    fail = [True]

    def send(message: dict[str, Any]) -> None:
        if fail.pop() if fail else False:
            raise RuntimeError("comm closed")
        sent.append(message)

    stream = ViewStream(send, controller)
    stream.send_snapshot()
    stream.send_snapshot()
    assert [m["kind"] for m in sent] == ["snapshot"]
    assert "could not send a snapshot" in caplog.text
