"""The view the browsers hold is a window of a long conversation: its first view holds the latest messages (the latest
turn at least) and how many come before them; the browser asks for the ones before its window and gets them as a
patch that puts them at the window's start; new messages join the window at its end."""

from __future__ import annotations

from typing import Any

from notebook_chat.widget.view_copy import BrowserViewCopy
from notebook_chat.widget.view_stream import FIRST_WINDOW, OLDER_CHUNK, ViewStream

from .widget_doubles import InMemoryController


def conversation(count: int, users: range | None = None) -> list[dict[str, Any]]:
    """`count` messages, a user message at every even index (or at the indices `users`), replies between."""
    return [{"id": f"m{i}", "role": "user" if (i in users if users is not None else i % 2 == 0) else "assistant",
             "content": f"text {i}", "hidden": False, "loading": False} for i in range(count)]


def shown(controller: InMemoryController) -> tuple[ViewStream, list[dict[str, Any]]]:
    sent: list[dict[str, Any]] = []
    stream = ViewStream(sent.append, controller, interval=3600)
    controller.subscribe(stream.on_event)
    stream.send_snapshot(whole=True)
    return stream, sent


def ids(view: dict[str, Any]) -> list[str]:
    return [m["id"] for m in view["messages"]]


def test_the_first_view_of_a_long_conversation_holds_its_latest_messages_and_how_many_come_before() -> None:
    _, sent = shown(InMemoryController(conversation(1000)))

    view = sent[0]["view"]
    assert ids(view) == [f"m{i}" for i in range(1000 - FIRST_WINDOW, 1000)]
    assert view["older"] == 1000 - FIRST_WINDOW


def test_the_first_view_reaches_back_to_the_latest_user_message_however_long_its_turn() -> None:
    _, sent = shown(InMemoryController(conversation(1000, users=range(0, 901, 100))))

    assert sent[0]["view"]["messages"][0] == {"id": "m900", "role": "user", "content": "text 900", "hidden": False,
                                              "loading": False}
    assert sent[0]["view"]["older"] == 900


def test_a_short_conversation_is_sent_whole_without_an_older_count() -> None:
    _, sent = shown(InMemoryController(conversation(FIRST_WINDOW)))

    assert ids(sent[0]["view"]) == [f"m{i}" for i in range(FIRST_WINDOW)]
    assert "older" not in sent[0]["view"]


def test_asking_for_the_messages_before_the_window_sends_a_chunk_of_them_as_a_patch() -> None:
    stream, sent = shown(InMemoryController(conversation(1000)))
    copy = BrowserViewCopy()
    copy.take(sent[0])

    stream.show_older(f"m{1000 - FIRST_WINDOW}")

    assert [m["kind"] for m in sent] == ["snapshot", "view_patch"]
    drawn = copy.take(sent[1])
    assert isinstance(drawn, dict)
    start = 1000 - FIRST_WINDOW - OLDER_CHUNK
    assert ids(drawn) == [f"m{i}" for i in range(start, 1000)]
    assert drawn["older"] == start


def test_asking_again_with_a_message_that_no_longer_starts_the_window_sends_nothing() -> None:
    stream, sent = shown(InMemoryController(conversation(1000)))
    stream.show_older(f"m{1000 - FIRST_WINDOW}")

    stream.show_older(f"m{1000 - FIRST_WINDOW}")  # another view asked too: its answer is on the way

    assert [m["kind"] for m in sent] == ["snapshot", "view_patch"]


def test_the_last_chunk_reaches_the_first_message_and_the_older_count_goes() -> None:
    stream, sent = shown(InMemoryController(conversation(FIRST_WINDOW + 5)))
    copy = BrowserViewCopy()
    copy.take(sent[0])

    stream.show_older("m5")

    drawn = copy.take(sent[1])
    assert isinstance(drawn, dict)
    assert ids(drawn) == [f"m{i}" for i in range(FIRST_WINDOW + 5)]
    assert "older" not in drawn


def test_new_messages_join_the_window_which_keeps_its_first_message() -> None:
    controller = InMemoryController(conversation(1000))
    stream, sent = shown(controller)
    copy = BrowserViewCopy()
    copy.take(sent[0])

    controller.add({"id": "new", "role": "user", "content": "one more", "hidden": False, "loading": False})
    stream.flush()

    drawn = copy.take(sent[-1])
    assert isinstance(drawn, dict)
    assert ids(drawn) == [f"m{i}" for i in range(1000 - FIRST_WINDOW, 1000)] + ["new"]
    assert drawn["older"] == 1000 - FIRST_WINDOW


def test_removing_the_windows_first_message_starts_the_window_at_the_next_one() -> None:
    controller = InMemoryController(conversation(1000))
    stream, sent = shown(controller)
    copy = BrowserViewCopy()
    copy.take(sent[0])

    del controller.messages[1000 - FIRST_WINDOW]
    controller.emit("state")
    stream.flush()

    drawn = copy.take(sent[-1])
    assert isinstance(drawn, dict)
    assert ids(drawn) == [f"m{i}" for i in range(1000 - FIRST_WINDOW + 1, 1000)]
    assert drawn["older"] == 1000 - FIRST_WINDOW


def test_a_message_shown_again_before_the_first_of_a_whole_conversations_window_joins_the_window() -> None:
    controller = InMemoryController(conversation(3))
    stream, sent = shown(controller)
    copy = BrowserViewCopy()
    copy.take(sent[0])
    first = controller.messages.pop(0)  # hidden: no longer in the view
    controller.emit("state")
    stream.flush()
    copy.take(sent[-1])

    controller.messages.insert(0, first)  # shown again
    controller.emit("state")
    stream.flush()
    drawn = copy.take(sent[-1])

    assert isinstance(drawn, dict)
    assert ids(drawn) == ["m0", "m1", "m2"]
    assert "older" not in drawn


def test_a_message_shown_again_before_the_window_of_a_long_conversation_counts_as_older() -> None:
    controller = InMemoryController(conversation(100))
    stream, sent = shown(controller)
    start = 100 - FIRST_WINDOW
    before = controller.messages.pop(start - 1)
    controller.emit("state")
    stream.flush()

    controller.messages.insert(start - 1, before)
    controller.emit("state")
    stream.flush()

    copy = BrowserViewCopy()
    for message in sent:
        copy.take(message)
    assert copy.view is not None
    assert ids(copy.view)[0] == f"m{start}"
    assert copy.view["older"] == start
