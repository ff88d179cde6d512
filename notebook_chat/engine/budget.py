"""Keep a request under the model's context budget by leaving out the oldest whole turns (history rule 7).

The provider declares its context size (:class:`~notebook_chat.engine.provider.HasContextWindow`, e.g.
``OpenAIChat(..., context_window=8192)``); :class:`ContextBudget` fits each prepared request to it:

- the system message is always sent, whole; so is the latest turn (the one being answered), even when it alone is
  over the budget — the server then says so, and the user can retry shorter or edit the message;
- older turns are left out oldest first, whole: a turn is a user message and everything up to the next one, so a
  tool call and its results always go or stay together (never a dangling call or an orphan result);
- ``limit`` (set by "retry with a shorter history") lowers the budget below the context window, or sets one when
  the provider declares none.

Token estimate, without network or a tokenizer download: the characters of each message (text, reasoning, tool
names and arguments) divided by a characters-per-token ratio, plus a few tokens per message for the template. The
ratio starts at 4 (English text with OpenAI/Llama-style tokenizers) and is then corrected by the usage the server
reported for earlier requests (its ``prompt_tokens`` for a request whose characters we counted), so a model whose
tokenizer packs fewer characters per token is measured, not guessed. A quarter of the window is kept free for the
reply unless ``reserve`` says otherwise.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .messages import content_text

DEFAULT_CHARS_PER_TOKEN = 4.0
PER_MESSAGE_TOKENS = 4
REPLY_SHARE = 0.25


@dataclass(frozen=True)
class Fitted:
    """A fitted request: the messages to send, how many older turns were left out, the estimate in tokens."""

    messages: list[dict[str, Any]]
    left_out_turns: int
    estimated_tokens: int


def message_chars(message: Mapping[str, Any]) -> int:
    """Characters a message puts into the prompt (text parts, reasoning, tool-call names and arguments)."""
    total = len(content_text(message.get("content")))
    reasoning = message.get("reasoning_content")
    if isinstance(reasoning, str):
        total += len(reasoning)
    for call in message.get("tool_calls") or ():
        function = call.get("function") if isinstance(call, Mapping) else None
        if isinstance(function, Mapping):
            total += len(str(function.get("name", ""))) + len(str(function.get("arguments", "")))
    return total


def split_turns(messages: Sequence[Mapping[str, Any]]) -> tuple[list[Mapping[str, Any]], list[list[Mapping[str, Any]]]]:
    """The leading system message (or none) and the turns: each starts at a user message (the first may not)."""
    head = list(messages[:1]) if messages and messages[0].get("role") == "system" else []
    turns: list[list[Mapping[str, Any]]] = []
    for message in messages[len(head):]:
        if message.get("role") == "user" or not turns:
            turns.append([message])
        else:
            turns[-1].append(message)
    return head, turns


class ContextBudget:
    """Fits requests to a budget and learns the characters-per-token ratio from reported usage."""

    def __init__(self, *, reserve: int | None = None) -> None:
        self.chars_per_token = DEFAULT_CHARS_PER_TOKEN
        self.limit: int | None = None
        self.reserve = reserve
        self.last_estimate: int | None = None
        self._last_chars: int | None = None

    def tokens(self, messages: Sequence[Mapping[str, Any]]) -> int:
        chars = sum(message_chars(m) for m in messages)
        return round(chars / self.chars_per_token) + PER_MESSAGE_TOKENS * len(messages)

    def budget(self, context_window: int | None) -> int | None:
        """Prompt tokens allowed: the window less the reply's share, lowered to ``limit`` when set."""
        allowed = None
        if context_window:
            reserve = self.reserve if self.reserve is not None else int(context_window * REPLY_SHARE)
            allowed = max(1, context_window - reserve)
        if self.limit is not None:
            allowed = self.limit if allowed is None else min(allowed, self.limit)
        return allowed

    def fit(self, messages: Sequence[Mapping[str, Any]], context_window: int | None) -> Fitted:
        """Leave out the oldest whole turns until the estimate fits (the system message and the latest turn stay)."""
        head, turns = split_turns(messages)
        sizes = [self.tokens(turn) for turn in turns]
        total = self.tokens(head) + sum(sizes)
        allowed = self.budget(context_window)
        dropped = 0
        while allowed is not None and total > allowed and dropped < len(turns) - 1:
            total -= sizes[dropped]
            dropped += 1
        kept = [dict(m) for m in head] + [dict(m) for turn in turns[dropped:] for m in turn]
        self.last_estimate = total
        self._last_chars = sum(message_chars(m) for m in kept)
        return Fitted(kept, dropped, total)

    def observe(self, usage: Mapping[str, Any] | None) -> None:
        """Correct the ratio with the server's ``prompt_tokens`` for the last fitted request."""
        prompt = (usage or {}).get("prompt_tokens")
        chars = self._last_chars
        if not isinstance(prompt, int) or isinstance(prompt, bool) or prompt <= 0 or not chars:
            return
        overhead = PER_MESSAGE_TOKENS  # at least one message's template tokens are not characters
        measured = chars / max(1, prompt - overhead)
        self.chars_per_token = min(8.0, max(1.0, measured))

    def shorten(self) -> int:
        """Halve the budget (used by "retry with a shorter history"); returns the new limit in tokens."""
        base = self.last_estimate or 0
        self.limit = max(1, base // 2) if self.limit is None else max(1, min(self.limit, base) // 2)
        return self.limit

