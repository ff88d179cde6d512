from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from notebook_chat.persistence import (
    ConversationRecord,
    ConversationStore,
    FileStore,
    RecordError,
    SerializationError,
    StoreError,
    TurnEntry,
    capture_snapshot,
    check_restorable,
    load_record,
    record_to_dict,
    save_record,
)

from .conftest import paused_conversation, tool_call

NOW = "2024-05-01T12:00:00.000Z"


def paused_record(messages: list[dict[str, Any]] | None = None) -> ConversationRecord:
    messages = messages or paused_conversation()
    return ConversationRecord(
        messages=messages,
        turns=[TurnEntry("turn_1", "2024-05-01T11:59:00Z")],
        paused_turn=capture_snapshot(messages[1], custom_context={"ünïcode": "✓"}, tool_round_count=1),
        updated_at=NOW,
    )


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "chats.json"


def test_a_record_round_trips_through_a_file_byte_stable(path: Path) -> None:
    save_record(FileStore(path), "cell-1", paused_record())
    first = path.read_bytes()
    loaded = load_record(FileStore(path), "cell-1")
    assert loaded is not None
    save_record(FileStore(path), "cell-1", loaded.record)
    assert path.read_bytes() == first
    assert loaded.record == paused_record()


def test_the_file_is_canonical_json_in_the_notebook_metadata_shape(path: Path) -> None:
    FileStore(path).save("cell-1", record_to_dict(paused_record()))
    text = path.read_text(encoding="utf-8")
    data = json.loads(text)
    assert sorted(data) == ["conversations", "version"]
    assert data["version"] == 1
    assert list(data["conversations"]) == ["cell-1"]
    assert text == json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":")) + "\n"


def test_a_missing_file_is_an_empty_store(path: Path) -> None:
    store = FileStore(path)
    assert (store.load("cell-1"), store.keys()) == (None, [])
    assert not path.exists()


def test_writes_leave_no_temporary_files_behind(path: Path) -> None:
    store = FileStore(path)
    store.save("a", {"updated_at": NOW})
    store.save("b", {"updated_at": NOW})
    store.delete("a")
    assert sorted(p.name for p in path.parent.iterdir()) == ["chats.json"]
    assert store.keys() == ["b"]


def test_a_value_that_is_not_json_is_refused_and_the_file_kept(path: Path) -> None:
    store = FileStore(path)
    store.save("a", {"n": 1})
    before = path.read_bytes()
    with pytest.raises(SerializationError, match=r"\$\.n: float nan"):
        store.save("a", {"n": float("nan")})
    assert path.read_bytes() == before


CORRUPT_FILES = {
    "not json": (b'{"version": 1, "conversations": {', "is not valid JSON"),
    "not utf-8": (b"\xff\xfe\x00garbage", "is not valid JSON"),
    "nan": (b'{"version": 1, "conversations": {"a": {"x": NaN}}}', "NaN is not valid JSON"),
    "duplicate key": (b'{"version": 1, "version": 1, "conversations": {}}', "duplicate key 'version'"),
    "list": (b"[1, 2]", "does not hold a notebook_chat object"),
    "no version": (b'{"conversations": {}}', "has no valid version number"),
    "conversations a list": (b'{"version": 1, "conversations": []}', "has no 'conversations' object"),
    "entry a string": (b'{"version": 1, "conversations": {"a": "x"}}', "conversation 'a' is a str"),
    "future version": (b'{"version": 2, "conversations": {"a": {}}}', "written by a newer notebook_chat"),
}


@pytest.mark.parametrize("case", sorted(CORRUPT_FILES))
def test_an_unreadable_file_is_refused_and_left_byte_identical(path: Path, case: str) -> None:
    content, reason = CORRUPT_FILES[case]
    path.write_bytes(content)
    store = FileStore(path)
    for attempt in (
        lambda: store.load("a"),
        store.keys,
        lambda: store.save("a", record_to_dict(paused_record())),
        lambda: store.delete("a"),
        lambda: store.prune(keep=0),
    ):
        with pytest.raises(StoreError, match=reason):
            attempt()
    assert path.read_bytes() == content
    assert sorted(p.name for p in path.parent.iterdir()) == ["chats.json"]


def test_a_corrupt_record_inside_a_good_file_is_refused_and_left_untouched(path: Path) -> None:
    store = FileStore(path)
    store.save("good", record_to_dict(paused_record()))
    store.save("bad", {"version": 1, "messages": "oops", "turns": [], "paused_turn": None, "updated_at": NOW})
    before = path.read_bytes()
    with pytest.raises(RecordError, match=r"\$\.messages: expected a list"):
        load_record(store, "bad")
    loaded = load_record(store, "good")
    assert loaded is not None
    assert loaded.record == paused_record()
    assert path.read_bytes() == before


def test_a_future_version_record_is_refused_and_left_untouched(path: Path) -> None:
    store = FileStore(path)
    future = {**record_to_dict(paused_record()), "version": 3}
    store.save("cell-1", future)
    before = path.read_bytes()
    with pytest.raises(RecordError, match="version 3"):
        load_record(store, "cell-1")
    assert path.read_bytes() == before


def test_two_conversations_reuse_a_tool_call_id_without_mixing_up(path: Path) -> None:
    first = paused_conversation("turn_a")
    second = paused_conversation("turn_b")
    second[1]["tool_calls"][1] = tool_call("c2", "send_email", {"to": "boss@example.com"})
    save_record(FileStore(path), "cell-a", paused_record(first))
    save_record(FileStore(path), "cell-b", paused_record(second))

    store = FileStore(path)
    loaded_a, loaded_b = load_record(store, "cell-a"), load_record(store, "cell-b")
    assert loaded_a is not None
    assert loaded_b is not None
    snap_a, snap_b = loaded_a.record.paused_turn, loaded_b.record.paused_turn
    assert snap_a is not None
    assert snap_b is not None
    assert snap_a.tool_call_ids == snap_b.tool_call_ids == ("c2", "c3")
    assert snap_a.call_hashes["c2"] != snap_b.call_hashes["c2"]
    assert check_restorable(snap_a, loaded_a.record.messages).ok
    assert check_restorable(snap_b, loaded_b.record.messages).ok
    assert loaded_b.record.messages[1]["tool_calls"][1]["function"]["name"] == "send_email"
    assert loaded_a.record.messages[1]["tool_calls"][1]["function"]["name"] == "delete_rows"


def test_deleting_one_conversation_keeps_the_others(path: Path) -> None:
    store = FileStore(path)
    store.save("a", {"n": 1})
    store.save("b", {"n": 2})
    store.delete("a")
    store.delete("never-saved")
    assert FileStore(path).keys() == ["b"]
    assert FileStore(path).load("b") == {"n": 2}


@pytest.mark.parametrize("key", ["", "k" * 201])
def test_keys_must_be_non_empty_and_at_most_200_characters(path: Path, key: str) -> None:
    with pytest.raises(ValueError, match="non-empty string of at most 200 characters"):
        FileStore(path).save(key, {"n": 1})


def test_file_store_follows_the_store_protocol(path: Path) -> None:
    assert isinstance(FileStore(path), ConversationStore)
