import asyncio
import threading
from typing import Any

import pytest

from notebook_chat.engine.notices import Notice
from notebook_chat.widget.chat_widget import STATIC, ChatWidget

from .widget_doubles import InMemoryController, RecordingComm


@pytest.fixture
async def widget(controller: InMemoryController, recording_comms: list[RecordingComm]) -> ChatWidget:
    return ChatWidget(controller, header="DemoModel (offline)", key="k1", interval=0.005)


def sent(widget: ChatWidget) -> list[dict[str, Any]]:
    assert isinstance(widget.comm, RecordingComm)
    return widget.comm.sent


async def browser_sends(widget: ChatWidget, content: Any) -> None:
    """What ipywidgets does for a custom message from the front end, then let the loop run the handler."""
    widget._handle_custom_msg(content, [])
    for _ in range(5):
        await asyncio.sleep(0)


def results(widget: ChatWidget) -> list[dict[str, Any]]:
    return [m for m in sent(widget) if m["kind"] == "action_result"]


async def test_the_widget_ships_the_built_front_end_files(widget: ChatWidget) -> None:
    state = widget.get_state()
    assert state["_esm"] == (STATIC / "widget.js").read_text()
    assert state["_css"] == (STATIC / "widget.css").read_text()
    assert "export" in state["_esm"]


async def test_header_and_key_are_synced_traits(widget: ChatWidget) -> None:
    state = widget.get_state()
    assert (state["header"], state["key"]) == ("DemoModel (offline)", "k1")
    assert "notice" not in state  # the notice travels in the view, owned by the engine


async def test_ready_hands_the_record_to_the_controller_and_answers_with_a_snapshot(
    widget: ChatWidget, controller: InMemoryController
) -> None:
    controller.messages.append({"id": "m1", "role": "user", "content": "hi", "hidden": False})
    record: dict[str, Any] = {"messages": [], "turns": []}
    await browser_sends(widget, {"kind": "ready", "notebook": True, "cell_id": "cell-7", "record": record})
    assert controller.calls == [("restore", record, {"notebook": True, "cell_id": "cell-7"})]
    snapshots = [m for m in sent(widget) if m["kind"] == "snapshot"]
    assert [msg["content"] for msg in snapshots[0]["view"]["messages"]] == ["hi"]
    assert (widget.notebook_available, widget.cell_id) == (True, "cell-7")


async def test_the_controllers_notice_reaches_the_browser_in_the_snapshot_answering_ready(
        widget: ChatWidget, controller: InMemoryController) -> None:
    controller.notice = "The stored conversation was refused: messages is not a list."
    await browser_sends(widget, {"kind": "ready", "notebook": True, "record": {"messages": 3}})
    snapshot = next(m for m in sent(widget) if m["kind"] == "snapshot")
    assert snapshot["view"]["notice"] == "The stored conversation was refused: messages is not a list."


async def test_a_failing_restore_still_sends_a_snapshot_and_reports_the_error(
    widget: ChatWidget, controller: InMemoryController
) -> None:
    controller.fail_with = ValueError("record is corrupt")
    await browser_sends(widget, {"kind": "ready", "notebook": False, "request_id": "r1"})
    assert [m["kind"] for m in sent(widget)] == ["snapshot", "action_result"]
    assert results(widget) == [{"kind": "action_result", "request_id": "r1", "ok": False, "error": "record is corrupt"}]


@pytest.mark.parametrize(
    ("content", "call"),
    [
        ({"kind": "send", "text": "hello"}, ("send", "hello")),
        ({"kind": "stop"}, ("stop",)),
        ({"kind": "approve", "tool_call_id": "call_1", "arguments": "{}"}, ("approve", "call_1", "{}")),
        ({"kind": "approve", "tool_call_id": "call_1"}, ("approve", "call_1", None)),
        ({"kind": "deny", "tool_call_id": "call_1", "reason": "too risky"}, ("deny", "call_1", "too risky")),
        ({"kind": "continue", "instruction": None}, ("continue", None)),
        ({"kind": "persisted", "key": "k1", "ok": True, "error": None}, ("persisted", "k1", True, None)),
        ({"kind": "skill", "name": "pandas-cleaning", "active": True}, ("skill", "pandas-cleaning", True)),
        ({"kind": "retry", "shorter": True}, ("retry", True)),
        ({"kind": "retry"}, ("retry", False)),
        ({"kind": "remove_message", "message_id": "msg_1"}, ("remove_message", "msg_1")),
        ({"kind": "edit_and_resend", "message_id": "msg_1", "text": "shorter"},
         ("edit_and_resend", "msg_1", "shorter")),
    ],
)
async def test_each_action_reaches_the_controller_and_is_acknowledged(
    widget: ChatWidget, controller: InMemoryController, content: dict[str, Any], call: tuple[Any, ...]
) -> None:
    await browser_sends(widget, {**content, "request_id": "r5"})
    assert controller.calls == [call]
    assert results(widget) == [{"kind": "action_result", "request_id": "r5", "ok": True, "error": None}]


async def test_an_invalid_action_is_answered_with_an_error_and_nothing_runs(
    widget: ChatWidget, controller: InMemoryController
) -> None:
    bad = {"kind": "approve", "tool_call_id": "c", "arguments": "[]", "request_id": "r2"}
    await browser_sends(widget, bad)
    assert controller.calls == []
    assert results(widget) == [
        {"kind": "action_result", "request_id": "r2", "ok": False, "error": "approve: arguments must be a JSON object"}
    ]


async def test_a_failing_controller_action_is_answered_with_its_message(
    widget: ChatWidget, controller: InMemoryController
) -> None:
    controller.fail_with = RuntimeError("a turn is already running")
    await browser_sends(widget, {"kind": "send", "text": "again", "request_id": "r3"})
    assert results(widget) == [
        {"kind": "action_result", "request_id": "r3", "ok": False, "error": "a turn is already running"}
    ]


async def test_an_action_arriving_on_another_thread_runs_on_the_kernel_loop(
    widget: ChatWidget, controller: InMemoryController
) -> None:
    loop_thread = threading.get_ident()
    seen: list[int] = []

    async def stop() -> None:
        seen.append(threading.get_ident())

    controller.stop = stop  # type: ignore[method-assign]
    thread = threading.Thread(target=widget._handle_custom_msg, args=({"kind": "stop"}, []))
    thread.start()
    thread.join()
    for _ in range(5):
        await asyncio.sleep(0.001)
    assert seen == [loop_thread]


async def test_an_action_handler_runs_while_the_loop_is_busy_awaiting_something_else(
    widget: ChatWidget, controller: InMemoryController
) -> None:
    other = asyncio.ensure_future(asyncio.sleep(30))  # still awaiting however slow the machine is
    await browser_sends(widget, {"kind": "stop"})
    assert controller.calls == [("stop",)]
    assert not other.done()
    other.cancel()


async def test_a_persisted_ack_is_kept_on_the_widget(widget: ChatWidget) -> None:
    await browser_sends(widget, {"kind": "persisted", "key": "k1", "ok": False, "error": "no notebook"})
    assert widget.last_persist_ack == ("k1", False, "no notebook")


async def test_persist_sends_the_write_to_the_browser(widget: ChatWidget) -> None:
    write = {"key": "k1", "revision": "a-1", "base": None, "ops": [{"op": "set", "path": [], "value": {}}]}
    widget.persist(write)
    [message] = sent(widget)
    assert {k: v for k, v in message.items() if k != "fallback"} == {"kind": "persist", **write}


async def test_controller_events_reach_the_browser_as_a_snapshot_then_deltas(
    widget: ChatWidget, controller: InMemoryController
) -> None:
    controller.add({"id": "m1", "role": "assistant", "content": "", "hidden": False, "loading": True})
    widget.flush()
    controller.append("m1", "Hi ")
    controller.append("m1", "there")
    await asyncio.sleep(0.03)
    assert [m["kind"] for m in sent(widget)] == ["snapshot", "delta"]
    assert sent(widget)[1]["ops"] == [{"id": "m1", "field": "content", "append": "Hi there"}]


async def test_controller_events_from_another_thread_are_handled_on_the_loop(
    widget: ChatWidget, controller: InMemoryController
) -> None:
    controller.messages.append({"id": "m1", "role": "assistant", "content": "", "hidden": False})
    widget.flush()
    thread = threading.Thread(target=controller.set_request_state, args=("processing",))
    thread.start()
    thread.join()
    # the event reaches the loop first, then the flush timer starts: wait for the send, not a fixed time
    for _ in range(500):
        if len(sent(widget)) > 1:
            break
        await asyncio.sleep(0.01)
    assert sent(widget)[-1]["view"]["status"]["request_state"] == "processing"


async def test_a_closed_widget_stops_listening_to_the_controller(
    widget: ChatWidget, controller: InMemoryController
) -> None:
    widget.close()
    assert controller.subscribers == []


async def test_a_stored_record_that_is_not_an_object_is_refused_visibly_and_not_restored(
    widget: ChatWidget, controller: InMemoryController
) -> None:
    await browser_sends(widget, {"kind": "ready", "notebook": True, "cell_id": "c", "record": ["junk"]})
    message = Notice("notice.not_an_object", type="list")
    assert message == "The conversation stored in this notebook is not a JSON object (got list); left untouched."
    info = {"notebook": True, "cell_id": "c", "record_error": message}
    assert controller.calls == [("restore", None, info)]
    assert [m["kind"] for m in sent(widget)] == ["snapshot"]
    assert sent(widget)[0]["view"]["notice"] == message
