"""The stream accumulator's path for the most common chunk (one choice whose delta holds only text) gives exactly what
its general path gives, for every chunk of a generated corpus of shapes around it (and for random sequences of them):
the same text, finish reason and usage, the same appended pieces, the same error for a chunk that breaks the wire."""

from __future__ import annotations

import copy
import itertools
import random
from typing import Any

import pytest

from notebook_chat.engine.errors import ProviderError
from notebook_chat.engine.stream_merge import StreamAccumulator

MISSING = object()


class DictLike(dict):  # type: ignore[type-arg]
    """A chunk that is a dict subclass (a client library's own mapping)."""


INDEXES = [MISSING, None, 0, 1, False, True, "0", 0.0]
CONTENTS = [MISSING, None, "", "hi", 5, ["x"], "\ud83d", "\ude00 tail", "a\ud83d"]
EXTRAS: list[dict[str, Any]] = [
    {}, {"role": "assistant"}, {"reasoning_content": None}, {"reasoning_content": "r"}, {"reasoning": "r"},
    {"reasoning": None, "reasoning_content": ""}, {"tool_calls": None}, {"tool_calls": []},
    {"tool_calls": [{"index": 0, "id": "call_1", "function": {"name": "f", "arguments": "{}"}}]},
]
REASONS = [MISSING, None, "", "stop", 1]
USAGES = [MISSING, None, {"prompt_tokens": 3, "completion_tokens": 4}, "many"]


def put(target: dict[str, Any], key: str, value: Any) -> dict[str, Any]:
    if value is not MISSING:
        target[key] = value
    return target


def delta_shapes() -> list[Any]:
    deltas: list[Any] = [MISSING, None, "x", []]
    for content, extra in itertools.product(CONTENTS, EXTRAS):
        deltas.append(put(dict(extra), "content", content))
    return deltas


def choice_shapes() -> list[Any]:
    choices: list[Any] = ["x", None]
    for index, delta, reason in itertools.product(INDEXES, delta_shapes(), REASONS):
        choices.append(put(put(put({}, "index", index), "delta", delta), "finish_reason", reason))
    return choices


def chunk_corpus() -> list[Any]:
    base = {"index": 0, "delta": {"content": "x"}, "finish_reason": None}
    chunks: list[Any] = [None, "chunk", [], DictLike(choices=[base])]
    for choice in choice_shapes():
        chunks.append({"object": "chat.completion.chunk", "choices": [choice]})
    for choices, usage in itertools.product([MISSING, None, "x", [], [base, base], [base, {"index": 1}]], USAGES):
        chunks.append(put(put({}, "choices", choices), "usage", usage))
    for usage in USAGES:
        chunks.append(put({"choices": [base]}, "usage", usage))
    return chunks


CORPUS = chunk_corpus()


def outcome(chunks: list[Any]) -> list[Any]:
    """What the accumulator says after each chunk (its error ends the sequence), then what it closes to."""
    message: dict[str, Any] = {"role": "assistant", "content": ""}
    appended: list[tuple[str, str]] = []
    merger = StreamAccumulator(message, lambda field, text: appended.append((field, text)))  # type: ignore[arg-type]
    steps: list[Any] = []
    for chunk in chunks:
        try:
            merger.add_chunk(chunk)
        except ProviderError as error:
            steps.append(("error", str(error), error.kind))
            break
        steps.append((copy.deepcopy(merger.materialize()), merger.finish_reason, merger.usage, list(appended)))
    closed = merger.close()
    steps.append((closed.get("content"), closed.get("reasoning_content"), closed.get("tool_calls")))
    return steps


def general_path_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(StreamAccumulator, "_add_text_chunk", lambda self, chunk: False)


def test_the_corpus_holds_chunks_the_text_path_takes_and_chunks_it_leaves_to_the_general_path() -> None:
    taken = 0
    for chunk in CORPUS:
        merger = StreamAccumulator({"role": "assistant", "content": ""})  # type: ignore[typeddict-item]
        taken += merger._add_text_chunk(chunk)
    assert 50 <= taken <= len(CORPUS) - 500, (taken, len(CORPUS))


@pytest.mark.parametrize("start", range(0, len(CORPUS), 400))
def test_every_chunk_of_the_corpus_gives_what_the_general_path_gives(monkeypatch: pytest.MonkeyPatch,
                                                                     start: int) -> None:
    leading = {"choices": [{"index": 0, "delta": {"content": "lead \ud83d"}}]}  # a surrogate half waits for its pair
    for chunk in CORPUS[start:start + 400]:
        fast = outcome([leading, chunk])
        with monkeypatch.context() as patch:
            general_path_only(patch)
            general = outcome([leading, chunk])
        assert fast == general, chunk


@pytest.mark.parametrize("seed", range(8))
def test_random_sequences_of_corpus_chunks_give_what_the_general_path_gives(monkeypatch: pytest.MonkeyPatch,
                                                                           seed: int) -> None:
    rng = random.Random(seed)
    valid = [chunk for chunk in CORPUS if outcome([chunk])[0][0] != "error"]
    for _ in range(50):
        chunks = [rng.choice(valid) for _ in range(rng.randint(1, 12))] + [rng.choice(CORPUS)]
        fast = outcome(chunks)
        with monkeypatch.context() as patch:
            general_path_only(patch)
            general = outcome(chunks)
        assert fast == general, chunks
