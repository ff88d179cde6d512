"""The approval ledger: one fsynced line per started call, matched by turn, call and arguments hash, bounded by age and
count, robust to torn or foreign lines, never holding the arguments themselves."""

from __future__ import annotations

import json
import os
from datetime import timedelta
from pathlib import Path

import pytest

from notebook_chat.persistence.approval_ledger import ApprovalLedger, arguments_sha256, default_ledger_path


def test_a_started_call_is_on_disk_before_record_start_returns(tmp_path: Path) -> None:
    ledger = ApprovalLedger(tmp_path / "ledger.jsonl")
    ledger.record_start("turn_1", "call_1", '{"table": "users"}', "approved")

    lines = [json.loads(line) for line in (tmp_path / "ledger.jsonl").read_text().splitlines()]
    assert lines == [{"turn_id": "turn_1", "call_id": "call_1", "arguments_sha256": arguments_sha256(
        '{"table": "users"}'), "decision": "approved", "at": lines[0]["at"]}]
    assert "users" not in (tmp_path / "ledger.jsonl").read_text()


def test_a_new_ledger_on_the_same_file_knows_the_call_and_its_outcome(tmp_path: Path) -> None:
    first = ApprovalLedger(tmp_path / "ledger.jsonl")
    first.record_start("turn_1", "call_1", "{}", "auto")
    first.record_outcome("turn_1", "call_1", "success")

    entry = ApprovalLedger(tmp_path / "ledger.jsonl").lookup("turn_1", "call_1", "{}")

    assert entry is not None
    assert (entry.decision, entry.outcome) == ("auto", "success")


@pytest.mark.parametrize(("turn_id", "call_id", "arguments"), [
    ("turn_2", "call_1", "{}"), ("turn_1", "call_2", "{}"), ("turn_1", "call_1", '{"x": 1}')])
def test_a_call_is_matched_only_by_its_turn_its_id_and_its_arguments(
        tmp_path: Path, turn_id: str, call_id: str, arguments: str) -> None:
    ledger = ApprovalLedger(tmp_path / "ledger.jsonl")
    ledger.record_start("turn_1", "call_1", "{}", "approved")
    assert ledger.lookup(turn_id, call_id, arguments) is None


def test_entries_older_than_the_age_limit_are_dropped_when_the_ledger_opens(tmp_path: Path) -> None:
    path = tmp_path / "ledger.jsonl"
    old = {"turn_id": "t", "call_id": "old", "arguments_sha256": "0" * 64, "decision": "approved",
           "at": "2020-01-01T00:00:00.000Z"}
    path.write_text(json.dumps(old) + "\n")
    ledger = ApprovalLedger(path, max_age=timedelta(days=30))
    ledger.record_start("t", "new", "{}", "approved")

    assert set(ledger.entries()) == {("t", "new")}
    assert "old" not in path.read_text()


def test_the_ledger_keeps_at_most_max_entries_calls(tmp_path: Path) -> None:
    ledger = ApprovalLedger(tmp_path / "ledger.jsonl", max_entries=3)
    for number in range(10):
        ledger.record_start("t", f"call_{number}", "{}", "auto")
    ApprovalLedger(tmp_path / "ledger.jsonl", max_entries=3)

    assert sorted(ledger.entries()) == [("t", "call_7"), ("t", "call_8"), ("t", "call_9")]


def test_torn_and_foreign_lines_are_skipped(tmp_path: Path) -> None:
    path = tmp_path / "ledger.jsonl"
    good = {"turn_id": "t", "call_id": "c", "arguments_sha256": arguments_sha256("{}"), "decision": "approved",
            "at": "2999-01-01T00:00:00.000Z"}
    path.write_text("\n".join(["[1,2]", "{not json", json.dumps({**good, "decision": "maybe"}),
                               json.dumps({**good, "call_id": 5}), json.dumps(good), '{"turn_id": "t", "ca']))
    assert ApprovalLedger(path).lookup("t", "c", "{}") is not None


def test_the_ledger_lives_in_the_jupyter_data_dir(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("JUPYTER_DATA_DIR", str(tmp_path))
    assert default_ledger_path() == tmp_path / "notebook_chat" / "approval_ledger.jsonl"
    assert ApprovalLedger().path == tmp_path / "notebook_chat" / "approval_ledger.jsonl"


def test_the_ledger_file_is_private_to_the_user(tmp_path: Path) -> None:
    ledger = ApprovalLedger(tmp_path / "ledger.jsonl")
    ledger.record_start("t", "c", "{}", "auto")
    assert os.stat(ledger.path).st_mode & 0o077 == 0


def test_opening_a_ledger_that_is_already_compact_does_not_rewrite_it(tmp_path: Path) -> None:
    ledger = ApprovalLedger(tmp_path / "ledger.jsonl")
    ledger.record_start("t", "c", "{}", "auto")
    ledger.record_outcome("t", "c", "success")
    ApprovalLedger(ledger.path)  # compacts: the outcome line takes the start's time
    compact = os.stat(ledger.path)

    reopened = ApprovalLedger(ledger.path)

    after = os.stat(ledger.path)
    assert (after.st_ino, after.st_mtime_ns) == (compact.st_ino, compact.st_mtime_ns)
    assert reopened.lookup("t", "c", "{}") is not None
