from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from notebook_chat.persistence import (
    ConversationStore,
    FileStore,
    RecordError,
    SerializationError,
    StoreError,
    atomic_write,
    build_container,
    check_restorable,
    dumps_canonical,
    read_record,
)

from .conftest import paused_conversation, paused_record, record_of, tool_call


def load_record(store: FileStore, key: str) -> dict[str, Any]:
    loaded = read_record(store.load(key))
    if loaded.record is None:
        raise RecordError(str(loaded.refused))
    return dict(loaded.record)


def write_raw(path: Path, conversations: dict[str, Any]) -> None:
    """Write a file as another program (or an older notebook_chat) might have: no checks."""
    atomic_write(path, (dumps_canonical(build_container(conversations)) + "\n").encode())


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "chats.json"


def test_a_record_round_trips_through_a_file_byte_stable(path: Path) -> None:
    FileStore(path).save("cell-1", paused_record())
    first = path.read_bytes()
    loaded = load_record(FileStore(path), "cell-1")
    FileStore(path).save("cell-1", loaded)
    assert path.read_bytes() == first
    assert loaded == paused_record()


def test_the_file_is_canonical_json_in_the_notebook_metadata_shape(path: Path) -> None:
    FileStore(path).save("cell-1", paused_record())
    text = path.read_text(encoding="utf-8")
    data = json.loads(text)
    assert sorted(data) == ["conversations", "version"]
    assert data["version"] == 2
    assert list(data["conversations"]) == ["cell-1"]
    assert data["conversations"]["cell-1"] == {"active": "main", "items": {"main": paused_record()}}
    assert text == json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":")) + "\n"


def test_a_missing_file_is_an_empty_store(path: Path) -> None:
    store = FileStore(path)
    assert (store.load("cell-1"), store.keys()) == (None, [])
    assert not path.exists()


def test_writes_leave_no_temporary_files_behind(path: Path) -> None:
    store = FileStore(path)
    store.save("a", record_of([]))
    store.save("b", record_of([]))
    store.delete("a")
    assert sorted(p.name for p in path.parent.iterdir()) == ["chats.json"]
    assert store.keys() == ["b"]


def test_a_value_that_is_not_json_is_refused_and_the_file_kept(path: Path) -> None:
    store = FileStore(path)
    store.save("a", record_of([]))
    before = path.read_bytes()
    with pytest.raises(SerializationError, match=r"\$\.n: float nan"):
        store.save("a", {**record_of([]), "n": float("nan")})
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
    "future version": (b'{"version": 3, "conversations": {"a": {}}}', "written by a newer notebook_chat"),
    "items not an object": (b'{"version": 2, "conversations": {"a": {"active": "x", "items": []}}}',
                            "items is not an object holding at least one conversation"),
    "no conversation": (b'{"version": 2, "conversations": {"a": {"active": "x", "items": {}}}}',
                        "items is not an object holding at least one conversation"),
    "a conversation a list": (b'{"version": 2, "conversations": {"a": {"active": "x", "items": {"x": []}}}}',
                              r"items\['x'\] is a list, not an object"),
}


@pytest.mark.parametrize("case", sorted(CORRUPT_FILES))
def test_an_unreadable_file_is_refused_and_left_byte_identical(path: Path, case: str) -> None:
    content, reason = CORRUPT_FILES[case]
    path.write_bytes(content)
    store = FileStore(path)
    for attempt in (
        lambda: store.load("a"),
        store.keys,
        lambda: store.save("a", paused_record()),
        lambda: store.delete("a"),
        lambda: store.prune(keep=0),
    ):
        with pytest.raises(StoreError, match=reason):
            attempt()
    assert path.read_bytes() == content
    assert sorted(p.name for p in path.parent.iterdir()) == ["chats.json"]


def test_a_corrupt_record_inside_a_good_file_is_refused_and_left_untouched(path: Path) -> None:
    store = FileStore(path)
    write_raw(path, {"good": paused_record(), "bad": {**record_of([]), "messages": "oops"}})
    before = path.read_bytes()
    with pytest.raises(RecordError, match=r"\$\.messages: expected a list"):
        load_record(store, "bad")
    assert load_record(store, "good") == paused_record()
    assert path.read_bytes() == before


def test_a_future_version_record_is_refused_and_left_untouched(path: Path) -> None:
    store = FileStore(path)
    write_raw(path, {"cell-1": {**paused_record(), "version": 3}})
    before = path.read_bytes()
    with pytest.raises(RecordError, match="version 3"):
        load_record(store, "cell-1")
    assert path.read_bytes() == before


def test_two_conversations_reuse_a_tool_call_id_without_mixing_up(path: Path) -> None:
    first = paused_conversation("turn_a")
    second = paused_conversation("turn_b")
    second[1]["tool_calls"][1] = tool_call("c2", "send_email", {"to": "boss@example.com"})
    FileStore(path).save("cell-a", paused_record(first))
    FileStore(path).save("cell-b", paused_record(second))

    store = FileStore(path)
    loaded_a, loaded_b = load_record(store, "cell-a"), load_record(store, "cell-b")
    snap_a, snap_b = loaded_a["paused_turn"], loaded_b["paused_turn"]
    assert snap_a["tool_call_ids"] == snap_b["tool_call_ids"] == ["c2", "c3"]
    assert snap_a["call_hashes"]["c2"] != snap_b["call_hashes"]["c2"]
    assert check_restorable(snap_a, loaded_a["messages"]).ok
    assert check_restorable(snap_b, loaded_b["messages"]).ok
    assert loaded_b["messages"][1]["tool_calls"][1]["function"]["name"] == "send_email"
    assert loaded_a["messages"][1]["tool_calls"][1]["function"]["name"] == "delete_rows"


def test_deleting_one_conversation_keeps_the_others(path: Path) -> None:
    store = FileStore(path)
    store.save("a", record_of([{"role": "user", "content": "one"}]))
    store.save("b", record_of([{"role": "user", "content": "two"}]))
    store.delete("a")
    store.delete("never-saved")
    assert FileStore(path).keys() == ["b"]
    assert FileStore(path).load("b") == record_of([{"role": "user", "content": "two"}])


@pytest.mark.parametrize("key", ["", "k" * 201])
def test_keys_must_be_non_empty_and_at_most_200_characters(path: Path, key: str) -> None:
    with pytest.raises(ValueError, match="non-empty string of at most 200 characters"):
        FileStore(path).save(key, record_of([]))


def test_file_store_follows_the_store_protocol(path: Path) -> None:
    assert isinstance(FileStore(path), ConversationStore)


def test_a_record_a_load_would_refuse_is_not_saved_and_the_file_kept(path: Path) -> None:
    store = FileStore(path)
    store.save("a", paused_record())
    before = path.read_bytes()
    with pytest.raises(RecordError, match=r"\$\.turns\[0\]\.started_at"):
        store.save("a", {**paused_record(), "turns": [{**paused_record()["turns"][0], "started_at": "noon"}]})
    assert path.read_bytes() == before
