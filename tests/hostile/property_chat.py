"""The Chat-level property machine: random send / stop / approve / deny / continue / restart sequences against a
scripted provider that may fail anywhere (mid text, mid tool-call fragments, with garbage on the wire), with the
invariants checked after every step. Used by tests/hostile/test_chat_properties.py (a few hundred sequences) and by
scripts/property_check.py (tens of thousands)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import comm
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from notebook_chat import Chat, tool
from notebook_chat.engine.errors import ProviderError
from notebook_chat.engine.history import validate
from notebook_chat.engine.provider import CancelHandle
from notebook_chat.engine.request import awaiting_call_ids
from notebook_chat.persistence import FileStore, load_conversation
from tests.widget.widget_doubles import RecordingComm

DOCUMENTED_STATES = {"idle", "completed", "aborted", "error", "paused"}
KEY = "property"

# A scripted reply: ("text", pieces) | ("calls", [(tool, token)], fragments) ; plus a fault: None | ("error", at) |
# ("garbage", at) | ("stop", at) where `at` counts chunks.
tool_names = st.sampled_from(["safe", "danger", "stopper", "missing"])
replies = st.one_of(
    st.tuples(st.just("text"), st.integers(1, 3)),
    st.tuples(st.just("calls"), st.lists(tool_names, min_size=1, max_size=3), st.integers(1, 3)),
)
faults = st.one_of(st.none(), st.tuples(st.sampled_from(["error", "garbage", "stop"]), st.integers(0, 6)))


def _chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


class FaultyProvider:
    """Plays queued scripts; with none queued it answers a short text. Tokens make every call traceable."""

    def __init__(self, machine: ChatMachine) -> None:
        self.machine = machine
        self.scripts: list[tuple[Any, Any]] = []
        self.label = "FaultyProvider"

    async def __call__(self, body: dict[str, Any], cancel: CancelHandle) -> AsyncIterator[dict[str, Any]]:
        assert validate(body["messages"]) == [], body["messages"]  # every request is one a provider accepts
        script, fault = self.scripts.pop(0) if self.scripts else (("text", 1), None)
        return self._stream(self._chunks(script), fault, cancel)

    def _chunks(self, script: Any) -> list[dict[str, Any]]:
        if script[0] == "text":
            return [*(_chunk({"content": f"part{n} "}) for n in range(script[1])), _chunk({}, "stop")]
        chunks = []
        for index, name in enumerate(script[1]):
            token = self.machine.new_token()
            text = json.dumps({"token": token})
            size = max(1, len(text) // script[2])
            pieces = [text[i:i + size] for i in range(0, len(text), size)]
            call_id = f"call_{token}"
            for number, piece in enumerate(pieces):
                fragment: dict[str, Any] = {"index": index, "function": {"arguments": piece}}
                if number == 0:
                    fragment.update(id=call_id, type="function")
                    fragment["function"]["name"] = name
                chunks.append(_chunk({"tool_calls": [fragment]}))
        return [*chunks, _chunk({}, "tool_calls")]

    async def _stream(self, chunks: list[dict[str, Any]], fault: Any,
                      cancel: CancelHandle) -> AsyncIterator[dict[str, Any]]:
        for number, chunk in enumerate(chunks):
            if fault is not None and fault[1] == number:
                kind = fault[0]
                if kind == "error":
                    raise ProviderError("scripted failure", kind="network")
                if kind == "garbage":
                    yield _chunk({"content": 5})
                if kind == "stop":
                    self.machine.background(self.machine.chat.stop())
                    await asyncio.sleep(0)
                    await asyncio.sleep(0)
            if cancel.cancelled:
                return
            yield chunk


class ChatMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.loop = asyncio.new_event_loop()
        self.folder = Path(tempfile.mkdtemp(prefix="nbc-property-", dir=_fast_tmp()))
        self.store_path = self.folder / "chats.json"
        os.environ["JUPYTER_DATA_DIR"] = str(self.folder / "jupyter-data")  # this sequence's approval ledger
        self.saved: list[bytes] = []
        self.executed: list[str] = []
        self.approved: set[str] = set()
        self.tokens = 0
        self._clicks: set[asyncio.Task[Any]] = set()
        self.chat = self._new_chat()

    # -- plumbing -----------------------------------------------------------------------------------------------
    def background(self, coroutine: Any) -> None:
        """A click that happens while the turn runs (kept referenced until it finished)."""
        task = asyncio.ensure_future(coroutine)
        self._clicks.add(task)
        task.add_done_callback(self._clicks.discard)

    def new_token(self) -> str:
        self.tokens += 1
        return f"t{self.tokens}"

    def _new_chat(self) -> Chat:
        machine = self

        @tool
        def safe(token: str) -> str:
            """A tool that runs without approval."""
            machine.executed.append(token)
            return f"safe {token}"

        @tool(approval=True)
        def danger(token: str) -> str:
            """A tool that needs approval."""
            machine.executed.append(token)
            return f"danger {token}"

        @tool
        async def stopper(token: str) -> str:
            """A tool during which the user presses Stop."""
            machine.executed.append(token)
            machine.background(machine.chat.stop())
            await asyncio.sleep(0.01)
            return "not reached"

        self.provider = FaultyProvider(self)
        with _recording_comms():
            return Chat(self.provider, tools=[safe, danger, stopper], key=KEY, store=FileStore(self.store_path),
                        restore_timeout=0)

    def run(self, coroutine: Any) -> Any:
        return self.loop.run_until_complete(coroutine)

    def teardown(self) -> None:
        with contextlib.suppress(Exception):
            self.run(self.chat.stop())
        self.loop.run_until_complete(asyncio.sleep(0))
        self.loop.close()
        shutil.rmtree(self.folder, ignore_errors=True)

    def _expect_refusal_or(self, coroutine: Any) -> None:
        with contextlib.suppress(ValueError):
            self.run(coroutine)

    # -- rules --------------------------------------------------------------------------------------------------
    @rule(script=st.lists(st.tuples(replies, faults), min_size=1, max_size=3))
    def send(self, script: list[tuple[Any, Any]]) -> None:
        can_start = self.chat.state.can_start_turn
        self.provider.scripts = list(script)
        try:
            self.run(self.chat.send("go"))
        except ValueError:
            assert not can_start
            return
        assert can_start

    @rule()
    def stop(self) -> None:
        self.run(self.chat.stop())

    @precondition(lambda self: bool(self.chat.pending_approvals))
    @rule(choice=st.integers(0, 5), script=st.lists(st.tuples(replies, faults), max_size=2))
    def approve(self, choice: int, script: list[tuple[Any, Any]]) -> None:
        pending = self.chat.pending_approvals
        call = pending[choice % len(pending)]
        self.approved.add(json.loads(call["arguments"])["token"])
        self.provider.scripts = list(script)
        self._expect_refusal_or(self.chat.approve(call["tool_call_id"]))

    @precondition(lambda self: bool(self.chat.pending_approvals))
    @rule(choice=st.integers(0, 5))
    def deny(self, choice: int) -> None:
        pending = self.chat.pending_approvals
        self._expect_refusal_or(self.chat.deny(pending[choice % len(pending)]["tool_call_id"], "no"))

    @rule(call_id=st.sampled_from(["call_t1", "nope", ""]))
    def decide_an_unknown_call(self, call_id: str) -> None:
        if call_id in {p["tool_call_id"] for p in self.chat.pending_approvals}:
            return
        with contextlib.suppress(ValueError):
            self.run(self.chat.approve(call_id))
            raise AssertionError("approving a call that is not waiting must be refused")

    @rule(script=st.lists(st.tuples(replies, faults), max_size=2))
    def continue_turn(self, script: list[tuple[Any, Any]]) -> None:
        self.provider.scripts = list(script)
        self._expect_refusal_or(self.chat.continue_turn())

    @rule()
    def restart(self) -> None:
        """The kernel restarts: a new Chat built from the same FileStore."""
        self.chat.widget.close()
        self.chat = self._new_chat()

    @rule()
    def save_the_notebook(self) -> None:
        """The user saves: this copy of the store is what a later reopen finds on disk."""
        if self.store_path.exists():
            self.saved.append(self.store_path.read_bytes())

    @precondition(lambda self: bool(self.saved))
    @rule(choice=st.integers(0, 5))
    def reopen_unsaved_after_a_restart(self, choice: int) -> None:
        """The kernel restarts and the tab closed unsaved: the store goes back to an earlier save."""
        self.chat.widget.close()
        self.store_path.write_bytes(self.saved[choice % len(self.saved)])
        self.chat = self._new_chat()

    @precondition(lambda self: bool(self.chat.pending_approvals))
    @rule(choice=st.integers(0, 5), script=st.lists(st.tuples(replies, faults), max_size=2))
    def approve_then_close_the_tab_unsaved(self, choice: int, script: list[tuple[Any, Any]]) -> None:
        """The notebook on disk shows the call waiting; the user approves (it runs), the tab closes without saving,
        the kernel restarts and the notebook opens again from disk; whatever is offered is approved again."""
        on_disk = self.store_path.read_bytes()
        self.approve(choice, script)
        self.chat.widget.close()
        self.store_path.write_bytes(on_disk)
        self.chat = self._new_chat()
        for call in self.chat.pending_approvals:
            self.approved.add(json.loads(call["arguments"])["token"])
            self._expect_refusal_or(self.chat.approve(call["tool_call_id"]))

    # -- invariants ---------------------------------------------------------------------------------------------
    @invariant()
    def no_call_runs_twice(self) -> None:
        assert len(self.executed) == len(set(self.executed)), self.executed

    @invariant()
    def no_approval_tool_runs_without_approval(self) -> None:
        danger = {m["tool_call_id"][len("call_"):] for m in self.chat.messages if m.get("role") == "tool"
                  and (m.get("metadata") or {}).get("tool_name") == "danger"}
        assert {t for t in self.executed if t in danger} <= self.approved

    @invariant()
    def the_state_is_a_documented_one(self) -> None:
        assert self.chat.state.request_state in DOCUMENTED_STATES
        assert self.chat.state.processing_state is None

    @invariant()
    def live_and_stored_histories_are_valid(self) -> None:
        messages = self.chat.messages
        pending = awaiting_call_ids(messages) if self.chat.state.is_paused else set()
        assert validate(messages, pending=pending) == [], messages
        if not self.store_path.exists():
            return
        loaded = load_conversation(FileStore(self.store_path), KEY)
        assert loaded.refused is None, loaded.refused
        if loaded.record is not None:
            stored = loaded.record["messages"]
            assert validate(stored, pending=awaiting_call_ids(stored)) == []


def _fast_tmp() -> str | None:
    shm = Path("/dev/shm")
    return str(shm) if shm.is_dir() else None


@contextlib.contextmanager
def _recording_comms() -> Iterator[None]:
    original = comm.create_comm
    comm.create_comm = lambda **kwargs: RecordingComm(**kwargs)
    try:
        yield
    finally:
        comm.create_comm = original
