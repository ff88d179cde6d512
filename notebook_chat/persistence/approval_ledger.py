"""The approval ledger: a durable note, outside the notebook, of every tool call this machine's kernels started.

Why: a paused turn lives in notebook metadata, and the notebook reaches disk only when the user saves. Approve a call,
let it run, close the tab without saving (or let the browser crash): the notebook on disk still shows the call waiting,
and after a kernel restart Approve would run it a second time. So before an approved (or auto-run) tool starts, the
kernel appends one line to this ledger and fsyncs it; a restore settles every call the ledger knows instead of
offering it again.

Scope: this machine and this user (the file lives in the Jupyter data directory, ``$JUPYTER_DATA_DIR`` or the
platform default such as ``~/.local/share/jupyter``). A notebook opened on another machine, or by another user, has
no ledger entries and is restored as its metadata says.

What a line holds (JSON, one object per line), nothing else — never arguments or results themselves:
``{"turn_id", "call_id", "arguments_sha256", "decision": "approved" | "auto", "at"}`` when the call starts, and
``{"turn_id", "call_id", "outcome": "success" | "failed" | "cancelled", "at"}`` when it ends. A call is keyed by its
turn id (an engine-made uuid) and its call id, and matched only when the arguments hash agrees too.

Bounded: lines older than ``max_age`` (30 days) are dropped, and the file keeps at most ``max_entries`` calls; it is
compacted when it opens and whenever it grew past twice that. Unreadable lines are skipped (a torn last line after a
crash included). Appends and compaction hold an advisory file lock, so several kernels may share the file.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Literal

try:
    import fcntl
except ImportError:  # Windows: appends of one short line are still atomic enough; compaction is best effort
    fcntl = None  # type: ignore[assignment]

Decision = Literal["approved", "auto"]
Outcome = Literal["success", "failed", "cancelled"]
LEDGER_FILE = ("notebook_chat", "approval_ledger.jsonl")
MAX_LINE_CHARS = 2_000


def jupyter_data_dir() -> Path:
    """Where Jupyter keeps per-user data, without importing Jupyter (the widget layer may pass the real one)."""
    configured = os.environ.get("JUPYTER_DATA_DIR")
    if configured:
        return Path(configured).expanduser()
    home = Path.home()
    if sys.platform == "darwin":
        return home / "Library" / "Jupyter"
    if os.name == "nt":
        appdata = os.environ.get("APPDATA")
        return Path(appdata) / "jupyter" if appdata else home / "AppData" / "Roaming" / "jupyter"
    xdg = os.environ.get("XDG_DATA_HOME")
    return (Path(xdg) if xdg else home / ".local" / "share") / "jupyter"


def default_ledger_path(data_dir: str | os.PathLike[str] | None = None) -> Path:
    return Path(data_dir if data_dir is not None else jupyter_data_dir()).joinpath(*LEDGER_FILE)


def arguments_sha256(arguments: str) -> str:
    return hashlib.sha256(arguments.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True)
class LedgerEntry:
    turn_id: str
    call_id: str
    arguments_sha256: str
    decision: Decision
    at: str
    outcome: Outcome | None = None


def _now() -> datetime:
    return datetime.now(timezone.utc)


def _iso(moment: datetime) -> str:
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _parse_time(text: Any) -> datetime | None:
    if not isinstance(text, str) or len(text) > 64:
        return None
    try:
        moment = datetime.fromisoformat(text[:-1] + "+00:00" if text.endswith("Z") else text)
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else None


class ApprovalLedger:
    def __init__(self, path: str | os.PathLike[str] | None = None, *, max_age: timedelta = timedelta(days=30),
                 max_entries: int = 10_000) -> None:
        self.path = Path(path) if path is not None else default_ledger_path()
        self.max_age = max_age
        self.max_entries = max_entries
        self._lock = threading.Lock()
        self._lines_since_compaction = 0
        self.compact()

    def __repr__(self) -> str:
        return f"ApprovalLedger({str(self.path)!r})"

    # -- writing ----------------------------------------------------------------------------------------------------
    def record_start(self, turn_id: str, call_id: str, arguments: str, decision: Decision) -> None:
        """Durably note that the call is about to run (flushed and fsynced before returning). OSError if not."""
        self._append({"turn_id": turn_id, "call_id": call_id, "arguments_sha256": arguments_sha256(arguments),
                      "decision": decision, "at": _iso(_now())})

    def record_outcome(self, turn_id: str, call_id: str, outcome: Outcome) -> None:
        self._append({"turn_id": turn_id, "call_id": call_id, "outcome": outcome, "at": _iso(_now())})

    def _append(self, line: dict[str, Any]) -> None:
        data = (json.dumps(line, ensure_ascii=True, separators=(",", ":")) + "\n").encode("ascii")
        with self._lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            for _ in range(10):  # another kernel may compact (replace) the file between our open and our lock
                fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
                try:
                    with _locked(fd):
                        if not _is_current(fd, self.path):
                            continue
                        os.write(fd, data)
                        os.fsync(fd)
                        break
                finally:
                    os.close(fd)
            else:
                raise OSError(f"the approval ledger {self.path} keeps being replaced; the call was not recorded")
            self._lines_since_compaction += 1
        if self._lines_since_compaction > 2 * self.max_entries:
            self.compact()

    # -- reading ----------------------------------------------------------------------------------------------------
    def entries(self) -> dict[tuple[str, str], LedgerEntry]:
        """Every call the ledger knows and still keeps, by (turn id, call id)."""
        return self._read(_now() - self.max_age)

    def lookup(self, turn_id: str, call_id: str, arguments: str) -> LedgerEntry | None:
        """The entry of this call, when the ledger has one whose arguments hash matches."""
        entry = self.entries().get((turn_id, call_id))
        if entry is None or entry.arguments_sha256 != arguments_sha256(arguments):
            return None
        return entry

    def _read(self, cutoff: datetime) -> dict[tuple[str, str], LedgerEntry]:
        found: dict[tuple[str, str], LedgerEntry] = {}
        for line in self._lines():
            key = (line.get("turn_id"), line.get("call_id"))
            if not all(isinstance(part, str) and 0 < len(part) <= 200 for part in key):
                continue
            at = _parse_time(line.get("at"))
            if at is None or at < cutoff:
                continue
            call = (str(key[0]), str(key[1]))
            outcome = line.get("outcome")
            if outcome is not None:
                started = found.get(call)
                if started is not None and outcome in ("success", "failed", "cancelled"):
                    found[call] = LedgerEntry(started.turn_id, started.call_id, started.arguments_sha256,
                                              started.decision, started.at, outcome)
                continue
            digest, decision = line.get("arguments_sha256"), line.get("decision")
            if isinstance(digest, str) and len(digest) == 64 and decision in ("approved", "auto"):
                found[call] = LedgerEntry(call[0], call[1], digest, decision, _iso(at))
        return found

    def _lines(self) -> Iterator[dict[str, Any]]:
        try:
            with self.path.open("rb") as file:
                for raw in file:
                    if len(raw) > MAX_LINE_CHARS:
                        continue
                    try:
                        value = json.loads(raw)
                    except ValueError:
                        continue
                    if isinstance(value, dict):
                        yield value
        except FileNotFoundError:
            return

    # -- bounding ---------------------------------------------------------------------------------------------------
    def compact(self) -> None:
        """Drop lines older than ``max_age`` and all but the newest ``max_entries`` calls (atomic rewrite)."""
        if not self.path.exists():
            return
        with self._lock:
            try:
                fd = os.open(self.path, os.O_RDWR)
            except FileNotFoundError:
                return
            try:
                with _locked(fd):
                    kept = sorted(self._read(_now() - self.max_age).values(), key=lambda e: e.at)
                    kept = kept[-self.max_entries:] if self.max_entries > 0 else []
                    self._rewrite(kept)
            finally:
                os.close(fd)
            self._lines_since_compaction = 0

    def _rewrite(self, entries: list[LedgerEntry]) -> None:
        lines = []
        for entry in entries:
            lines.append({"turn_id": entry.turn_id, "call_id": entry.call_id,
                          "arguments_sha256": entry.arguments_sha256, "decision": entry.decision, "at": entry.at})
            if entry.outcome is not None:
                lines.append({"turn_id": entry.turn_id, "call_id": entry.call_id, "outcome": entry.outcome,
                              "at": entry.at})
        data = "".join(json.dumps(line, separators=(",", ":")) + "\n" for line in lines).encode("ascii")
        with contextlib.suppress(OSError):
            if self.path.read_bytes() == data:
                return  # already compact: opening a ledger writes nothing (no fsync per Chat)
        handle, temporary = tempfile.mkstemp(prefix=".ledger-", dir=self.path.parent)
        try:
            with os.fdopen(handle, "wb") as file:
                file.write(data)
                file.flush()
                os.fsync(file.fileno())
            os.chmod(temporary, 0o600)
            os.replace(temporary, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise


def _is_current(fd: int, path: Path) -> bool:
    try:
        return os.fstat(fd).st_ino == os.stat(path).st_ino
    except FileNotFoundError:
        return False


@contextlib.contextmanager
def _locked(fd: int) -> Iterator[None]:
    if fcntl is None:
        yield
        return
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
