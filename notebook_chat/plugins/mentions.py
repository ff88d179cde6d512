"""MentionPlugin: ``@name`` in a user message puts a description of that thing into the turn.

The description goes in as a synthetic ``describe`` call and its result, injected right after the user message
through the engine's injection (by plugin priority, before the model's own calls): the model sees it as context it
already fetched. What a name means — a kernel variable, ``@error`` — is the business of a :class:`MentionSource`
given by the layer above (this layer knows nothing about kernels).

Two steps, so that an unknown name is refused before anything is sent:

1. :meth:`MentionPlugin.prepare` (called by the facade before sending) finds the mentions, looks each one up and
   raises :class:`UnknownMention` (a ``ValueError``) for a name the source doesn't know; it returns the metadata
   the user message records (one entry per mention: name, a short label for the chip, stored or temp).
2. ``on_turn_start`` describes each recorded mention and injects the pair. A temp pair is sent in its own turn and
   never stored; the next turn drops it from the live history too, so the model knows it only for that turn.

Mentions inside backticks (`` `@property` ``, fenced code) are text, not mentions; so is an e-mail address.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Protocol

from ..engine import Message, Plugin, PluginContext
from ..engine.messages import new_id, new_tool_call_id
from ..engine.notices import Notice

DESCRIBE_TOOL = "describe"
MENTIONS_KEY = "mentions"
MAX_MENTIONS = 20

_CODE = re.compile(r"```.*?(?:```|\Z)|`[^`\n]*`", re.DOTALL)
_MENTION = re.compile(r"(?<![\w@.])@([A-Za-z_]\w{0,99})")


@dataclass(frozen=True)
class Description:
    """What the model reads about a mention, and optionally a rich bundle for the card (``text/html``...)."""

    text: str
    display: dict[str, Any] | None = None


class MentionSource(Protocol):
    """Where mentioned names are looked up (the kernel's namespace, the last error)."""

    def label(self, name: str) -> str | None:
        """A short label for the chip (``pandas.DataFrame, shape (3, 2)``), or None when ``name`` is unknown."""
        ...

    def describe(self, name: str) -> Description | None:
        """The description the model reads, or None when ``name`` is no longer known."""
        ...

    def unknown(self, name: str) -> str:
        """Why ``name`` can't be mentioned (one sentence)."""
        ...


class UnknownMention(ValueError):
    """A message mentions a name the kernel doesn't know; nothing was sent."""


def find_mentions(text: str) -> list[str]:
    """The names mentioned in ``text``, first mention first, each once; code spans and e-mail addresses skipped."""
    prose = _CODE.sub(" ", text)
    names: list[str] = []
    for match in _MENTION.finditer(prose):
        if match.group(1) not in names:
            names.append(match.group(1))
    return names


class MentionPlugin(Plugin):
    name = "mentions"
    priority = 5

    def __init__(self, source: MentionSource) -> None:
        self.source = source

    def prepare(self, text: str, *, temp: bool = False) -> list[dict[str, Any]]:
        """The mentions of ``text`` as the user message records them; raises :class:`UnknownMention`."""
        names = find_mentions(text)
        if len(names) > MAX_MENTIONS:
            raise UnknownMention(Notice("mentions.too_many", n=len(names), limit=MAX_MENTIONS))
        mentions: list[dict[str, Any]] = []
        problems: list[str] = []  # each a Notice, or the text of a plugin's own source
        for name in names:
            label = self.source.label(name)
            if label is None:
                problems.append(self.source.unknown(name))
            else:
                mentions.append({"name": name, "label": label, "temp": temp})
        if problems:
            listed: str = problems[0]
            for problem in problems[1:]:
                listed = Notice("notice.joined", first=listed, second=problem)
            raise UnknownMention(Notice("mentions.refused", problems=listed))
        return mentions

    async def on_turn_start(self, ctx: PluginContext) -> None:
        self._drop_old_temp_units(ctx)
        user = ctx.current_turn[0] if ctx.current_turn else None
        if user is None or user.get("role") != "user":
            return
        metadata = user.get("metadata") or {}
        if metadata.get("hidden"):
            return
        mentions = metadata.get(MENTIONS_KEY)
        if not isinstance(mentions, list):
            mentions = self._lenient(str(user.get("content") or ""))
            if not mentions:
                return
            user.setdefault("metadata", {})[MENTIONS_KEY] = mentions
        for mention in mentions:
            if isinstance(mention, dict) and isinstance(mention.get("name"), str):
                ctx.inject_unit(self._unit(mention["name"], temp=mention.get("temp") is True))

    def _lenient(self, text: str) -> list[dict[str, Any]]:
        """For a message sent to the engine directly: known names only (nobody is there to be told)."""
        return [{"name": name, "label": label, "temp": False} for name in find_mentions(text)[:MAX_MENTIONS]
                if (label := self.source.label(name)) is not None]

    def _unit(self, name: str, *, temp: bool) -> list[Message]:
        description = self.source.describe(name)
        if description is None:
            description = Description(f"{self.source.unknown(name)} (it was known when the message was sent)")
        call_id = new_tool_call_id()
        arguments = json.dumps({"name": name}, ensure_ascii=False)
        injected = {"injected": True, "mention": name}
        assistant: Message = {
            "id": new_id(), "role": "assistant", "content": None, "metadata": dict(injected),
            "tool_calls": [{"id": call_id, "type": "function",
                            "function": {"name": DESCRIBE_TOOL, "arguments": arguments}}],
            "state": {"tool_calls": {call_id: {"status": "success"}}},
        }
        result_metadata: dict[str, Any] = {**injected, "tool_name": DESCRIBE_TOOL}
        if description.display:
            result_metadata["display"] = description.display
        result: Message = {"id": new_id(), "role": "tool", "tool_call_id": call_id, "content": description.text,
                           "metadata": result_metadata}
        if temp:
            assistant["temp"] = result["temp"] = True
        return [assistant, result]

    @staticmethod
    def _drop_old_temp_units(ctx: PluginContext) -> None:
        """A temp description belongs to its own turn: the next one no longer sends it."""
        messages = ctx.messages
        current = {id(m) for m in ctx.current_turn}
        kept = [m for m in messages
                if id(m) in current or not (m.get("temp") and (m.get("metadata") or {}).get("mention"))]
        if len(kept) != len(messages):
            messages[:] = kept
            ctx.notify()
