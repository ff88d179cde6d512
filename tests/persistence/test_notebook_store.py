"""The notebook-metadata store writes through the front end in versioned patches: the whole record first (or when
the front end's copy is unknown), then only what changed; every write is checked as a load checks it."""

from __future__ import annotations

from typing import Any

import pytest

from notebook_chat.persistence.errors import RecordError, SecretError, SerializationError
from notebook_chat.persistence.notebook_store import NotebookMetadataStore
from notebook_chat.persistence.patches import PatchError, apply_write

from .conftest import record_of, turn


class Browser:
    """The front end's side of the writes: the notebook's entries, changed by `apply_write` (the reference of the
    browser's code), and every write received."""

    def __init__(self) -> None:
        self.writes: list[dict[str, Any]] = []
        self.entries: dict[str, Any] = {}

    def __call__(self, write: dict[str, Any]) -> None:
        self.writes.append(write)
        self.entries[write["key"]] = apply_write(self.entries.get(write["key"]), write)

    def record(self, key: str, conversation_id: str | None = None) -> Any:
        """One conversation of the chat's entry (None: the active one)."""
        entry = self.entries[key]
        return entry["items"][conversation_id or entry["active"]]

    def entry(self, key: str) -> Any:
        return {name: value for name, value in self.entries[key].items() if name != "revision"}


def record(text: str = "hi", *more: dict[str, Any], stamp: str = "2026-01-01T00:00:00Z") -> dict[str, Any]:
    return record_of([{"id": "m1", "role": "user", "content": text}, *more], updated_at=stamp)


def reply(text: str) -> dict[str, Any]:
    return {"id": "m2", "role": "assistant", "content": text, "state": {"turn_id": "t1"}}


def test_the_first_save_sends_the_whole_record_and_keeps_a_copy() -> None:
    browser = Browser()
    store = NotebookMetadataStore(browser)
    store.save("cell-1", record())
    assert browser.writes[0]["base"] is None
    assert browser.writes[0]["ops"] == [{"op": "set", "path": [], "value": {"items": {"main": record()},
                                                                            "active": "main"}}]
    assert browser.record("cell-1") == record() == store.load("cell-1")
    assert store.keys() == ["cell-1"]


def test_a_later_save_sends_only_what_changed_based_on_the_revision_the_front_end_holds() -> None:
    browser = Browser()
    store = NotebookMetadataStore(browser)
    store.save("k", record())
    store.save("k", record("hi", reply("Hello"), stamp="2026-01-01T00:00:01Z"))
    write = browser.writes[1]
    assert write["base"] == browser.writes[0]["revision"]
    assert write["ops"] == [
        {"op": "splice", "path": ["items", "main", "messages"], "start": 1, "delete": 0, "insert": [reply("Hello")]},
        {"op": "set", "path": ["items", "main", "updated_at"], "value": "2026-01-01T00:00:01Z"}]
    assert browser.record("k") == record("hi", reply("Hello"), stamp="2026-01-01T00:00:01Z")


def test_a_save_where_only_the_time_stamp_moved_sends_nothing() -> None:
    browser = Browser()
    store = NotebookMetadataStore(browser)
    store.save("k", record())
    store.save("k", record(stamp="2026-01-02T00:00:00Z"))
    assert len(browser.writes) == 1


def test_a_growing_reply_goes_as_text_appended_at_its_javascript_length() -> None:
    browser = Browser()
    store = NotebookMetadataStore(browser)
    store.save("k", record("hi", reply("Emoji 😀 comes first. ")))
    grown = reply("Emoji 😀 comes first. " + "then a long sentence follows")
    assert store.save_messages("k", [grown], "2026-01-01T00:00:05Z")
    assert browser.writes[1]["ops"][0] == {"op": "append", "path": ["items", "main", "messages", 1, "content"],
                                           "at": 22,
                                           "text": "then a long sentence follows"}
    assert browser.record("k") == record("hi", grown, stamp="2026-01-01T00:00:05Z")


def test_a_streaming_save_of_a_message_the_front_end_lacks_asks_for_a_whole_save() -> None:
    browser = Browser()
    store = NotebookMetadataStore(browser)
    store.save("k", record())
    assert not store.save_messages("k", [reply("new")], "2026-01-01T00:00:05Z")
    assert len(browser.writes) == 1


def test_an_adopted_record_is_not_written_back_and_changes_patch_it() -> None:
    browser = Browser()
    stored = {"active": "main", "items": {"main": record()}}
    browser.entries["k"] = stored  # what the notebook holds (written before revisions existed)
    store = NotebookMetadataStore(browser)
    store.adopt("k", stored, None)
    store.save("k", record(stamp="2026-02-01T00:00:00Z"))
    assert browser.writes == []
    store.save("k", record("hi", reply("Hello")))
    assert browser.writes[0]["base"] == ""
    assert browser.record("k") == record("hi", reply("Hello"))


def test_after_the_front_end_copy_is_forgotten_the_whole_record_goes_again() -> None:
    browser = Browser()
    store = NotebookMetadataStore(browser)
    store.save("k", record())
    store.forget_front_end_copy("k")
    store.save("k", record("hi", reply("Hello")))
    assert browser.writes[1]["base"] is None
    assert browser.writes[1]["ops"][0]["path"] == []


def test_the_browser_refuses_a_patch_for_another_revision() -> None:
    browser = Browser()
    store = NotebookMetadataStore(browser)
    store.save("k", record())
    browser.entries["k"]["revision"] = "someone-else"
    with pytest.raises(PatchError, match="revision"):
        store.save("k", record("hi", reply("Hello")))


def test_a_turn_entry_that_ends_goes_as_its_changed_fields() -> None:
    browser = Browser()
    store = NotebookMetadataStore(browser)
    running = record_of([{"id": "m1", "role": "user", "content": "hi"}], turns=[turn("t1", "2026-01-01T00:00:00Z")])
    store.save("k", running)
    ended = record_of([{"id": "m1", "role": "user", "content": "hi"}],
                      turns=[turn("t1", "2026-01-01T00:00:00Z", "2026-01-01T00:00:09Z", "completed")])
    store.save("k", ended)
    assert [op["path"] for op in browser.writes[1]["ops"]] == [
        ["items", "main", "turns", 0, "ended_at"], ["items", "main", "turns", 0, "end_reason"]]
    assert browser.record("k") == ended


def test_a_record_with_an_api_key_is_refused_and_nothing_is_sent() -> None:
    browser = Browser()
    store = NotebookMetadataStore(browser)
    with pytest.raises(SecretError, match="api_key"):
        store.save("k", {**record(), "provider": {"api_key": "sk-abcdefghijklmnop"}})
    assert browser.writes == []
    assert store.load("k") is None


def test_a_changed_message_with_an_api_key_is_refused_and_nothing_is_sent() -> None:
    browser = Browser()
    store = NotebookMetadataStore(browser)
    store.save("k", record())
    with pytest.raises(SecretError, match=r"\$\.messages\[1\]\.metadata\.api_key"):
        store.save("k", record("hi", {**reply("x"), "metadata": {"api_key": "sk-abcdefghijklmnop"}}))
    assert len(browser.writes) == 1
    assert store.load("k") == record()


def test_a_record_that_is_not_plain_json_is_refused_and_nothing_is_sent() -> None:
    browser = Browser()
    store = NotebookMetadataStore(browser)
    with pytest.raises(SerializationError, match="not JSON-serializable"):
        store.save("k", {**record(), "extra": object()})
    assert browser.writes == []


def test_a_record_that_a_load_would_refuse_is_refused_and_nothing_is_sent() -> None:
    browser = Browser()
    store = NotebookMetadataStore(browser)
    with pytest.raises(RecordError, match=r"\$\.messages\[0\]\.role"):
        store.save("k", record_of([{"role": "robot", "content": "hi"}]))
    assert (browser.writes, store.keys()) == ([], [])


def test_a_changed_message_that_a_load_would_refuse_is_refused_with_its_path() -> None:
    browser = Browser()
    store = NotebookMetadataStore(browser)
    store.save("k", record())
    with pytest.raises(RecordError, match=r"\$\.messages\[1\]\.role"):
        store.save("k", record("hi", {"id": "m2", "role": "robot", "content": "x"}))
    assert len(browser.writes) == 1


def test_delete_forgets_the_key_and_asks_the_front_end_to_drop_it() -> None:
    browser = Browser()
    store = NotebookMetadataStore(browser)
    store.save("k", record())
    store.delete("k")
    assert store.load("k") is None
    assert browser.writes[-1]["ops"] == [{"op": "delete", "path": []}]
    assert browser.entries["k"] is None


def test_an_empty_key_is_refused() -> None:
    with pytest.raises(ValueError, match="non-empty string"):
        NotebookMetadataStore(Browser()).save("", record())


def test_saving_another_conversation_sends_only_that_record_and_keeps_the_active_one() -> None:
    browser = Browser()
    store = NotebookMetadataStore(browser)
    store.save("k", record("first"), "a")
    store.save("k", record("second"), "b")
    assert browser.writes[-1]["ops"] == [{"op": "set", "path": ["items", "b"], "value": record("second")}]
    assert store.load("k") == record("first") == browser.record("k")
    assert store.load("k", "b") == record("second") == browser.record("k", "b")


def test_activating_and_deleting_one_conversation_are_each_one_small_patch() -> None:
    browser = Browser()
    store = NotebookMetadataStore(browser)
    store.save("k", record("first"), "a")
    store.save("k", record("second"), "b", active=True)
    assert browser.writes[-1]["ops"][-1] == {"op": "set", "path": ["active"], "value": "b"}
    store.activate("k", "a")
    store.delete("k", "b")
    assert [write["ops"] for write in browser.writes[-2:]] == [
        [{"op": "set", "path": ["active"], "value": "a"}], [{"op": "delete", "path": ["items", "b"]}]]
    assert store.load_entry("k") == {"active": "a", "items": {"a": record("first")}} == browser.entry("k")


def test_a_streamed_reply_in_one_conversation_sends_only_its_growth_under_that_conversation() -> None:
    browser = Browser()
    store = NotebookMetadataStore(browser)
    store.save("k", record("first"), "a")
    store.save("k", record("second", reply("x" * 20)), "b", active=True)
    sent_before = len(browser.writes)
    grown = "x" * 20 + "y" * 5
    assert store.save_messages("k", [reply(grown)], "2026-01-01T00:00:05Z", "b")
    ops = browser.writes[-1]["ops"]
    assert len(browser.writes) == sent_before + 1
    assert ops[0] == {"op": "append", "path": ["items", "b", "messages", 1, "content"], "at": 20, "text": "y" * 5}
    assert all(op["path"][:2] == ["items", "b"] for op in ops)
    assert browser.record("k", "b")["messages"][1]["content"] == grown
    assert browser.record("k", "a") == record("first")


def test_deleting_the_active_conversation_hands_over_to_the_last_other_one_in_the_same_patch() -> None:
    browser = Browser()
    store = NotebookMetadataStore(browser)
    store.save("k", record("first"), "a")
    store.save("k", record("second"), "b", active=True)
    store.delete("k", "b")
    assert browser.writes[-1]["ops"] == [{"op": "delete", "path": ["items", "b"]},
                                         {"op": "set", "path": ["active"], "value": "a"}]
    assert browser.entry("k") == {"active": "a", "items": {"a": record("first")}}


def test_deleting_the_last_conversation_deletes_the_chats_entry() -> None:
    browser = Browser()
    store = NotebookMetadataStore(browser)
    store.save("k", record("only"), "a")
    store.delete("k", "a")
    assert browser.writes[-1]["ops"] == [{"op": "delete", "path": []}]
    assert browser.entries["k"] is None
    assert store.keys() == []


def test_a_version_1_record_handed_over_is_migrated_whole_by_the_first_write() -> None:
    browser = Browser()
    store = NotebookMetadataStore(browser)
    flat = {**record("old"), "revision": "abc-1"}
    browser.entries["k"] = flat
    store.adopt("k", flat, "abc-1")
    assert store.revision("k") is None
    assert browser.writes == []
    store.save("k", record("old", reply("new answer")))
    assert browser.writes[-1]["base"] is None
    assert browser.entry("k") == {"active": "main", "items": {"main": record("old", reply("new answer"))}}
