"""DemoModel: an offline, deterministic provider that streams OpenAI-shaped chunks.

It needs no key and no network, so a notebook shows the whole loop (streaming, tool calls, approvals,
Continue) before anyone configures a real model. The same request body and seed always give the same chunks.

- The last message is a user message naming registered tools (by name, or by words of a tool's name or
  description: "what's the weather in Paris" → ``get_weather``): it calls them, in parallel when several
  match, with arguments read from the text (numbers, quoted strings, a capitalized word or the word after
  "in/for/of", defaults otherwise). Never with ``tool_choice="none"`` or without tools.
- The last messages are tool results: it summarizes them (a denied or cancelled call is acknowledged); injected
  ``describe`` results of ``@name`` / ``@error`` mentions get a reply about what they describe (demo_context.py).
- Otherwise it answers in markdown, lists the tools and the demo commands.

Demo commands in the user's text: ``/demo length`` (cut off with finish reason ``length``), ``/demo error``
(a simulated server error mid-stream), ``/demo slow`` (a long reply, five times slower: try Stop),
``/demo markdown`` (headings, a table, code and math). A later user message containing "continue" (such as the
hidden message Continue sends) streams the rest. Skills (their tools and instructions): see ``demo_skills``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import re
import zlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from notebook_chat.engine.errors import ProviderError
from notebook_chat.engine.messages import content_text
from notebook_chat.engine.provider import CancelHandle
from notebook_chat.providers.demo_context import reply_to_mentions
from notebook_chat.providers.demo_skills import followed_skills, plan_skill_call, skill_enum

_WORDS = re.compile(r"\s*\S+\s*")
_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?![\w.])")
_QUOTED = re.compile(r"\"([^\"]+)\"|“([^”]+)”|(?<!\w)'([^']+)'(?!\w)")
_AFTER_PREPOSITION = re.compile(
    r"\b(?:in|for|of|about|named|called|at)\s+([A-Za-z][\w-]*(?:\s+[A-Z][\w-]*)*)"
)
_CAPITALIZED = re.compile(r"(?<!^)(?<![.!?]\s)\b([A-Z][a-z][\w-]*(?:\s+[A-Z][\w-]*)*)")
_GENERIC_WORDS = frozenset(re.findall(r"\w+", """
    a an the and or of in on for to from with by at is are be it its this that these those get set run list
    make do does return returns use using call calls given value values some any all into about what which
"""))
_NOT_ARGUMENTS = frozenset({"demo", "continue", "Continue", "I"})
_MISSING: Any = object()
_PLAUSIBLE = {
    "city": "Paris", "location": "Paris", "country": "France", "name": "Ada", "path": "data.csv",
    "file": "data.csv", "url": "https://example.com", "code": "print('hello')", "language": "python",
}
_ECHO_PARAMS = frozenset({"query", "text", "message", "prompt", "question", "q"})

_DEMO_COMMANDS = (
    "- `/demo length` — a reply cut off by the token limit (then try **Continue**)\n"
    "- `/demo error` — a simulated provider error mid-stream\n"
    "- `/demo slow` — a long, slow reply (try **Stop**)\n"
    "- `/demo markdown` — headings, a table, code and math\n"
)
_LENGTH_HEAD = (
    "Here is a long explanation of how this chat works. The agent loop runs inside the Jupyter kernel, "
    "next to your data, so tools can read your variables directly. Every turn is saved in the notebook's "
    "metadata, which means that a kernel restart or a page reload"
)
_LENGTH_TAIL = (
    " does not lose the conversation. When a reply is cut off, as this one was, the **Continue** button "
    "asks the model to pick up where it stopped without repeating itself."
)
_ERROR_HEAD = "Let me think about this step by step. First, I will look at"
_ERROR_TAIL = " the question again and answer it in full: the simulated error is over."
_SLOW_TEXT = " ".join(
    f"Sentence {n} of a deliberately slow reply: press **Stop** at any moment and the stream ends at once."
    for n in range(1, 31)
)
_MARKDOWN_TEXT = r"""# Markdown showcase

Streaming markdown from the **offline demo model**, with *emphasis*, `inline code` and a [link](https://jupyter.org).

## A table

| tool | needs approval | typical use |
|------|:--------------:|-------------|
| `get_weather` | no | read-only look-ups |
| `delete_file` | yes | anything with side effects |

## Code

```python
import pandas as pd

df = pd.DataFrame({"x": [1, 2, 3], "y": [1, 4, 9]})
print(df.describe())
```

```javascript
const greet = (name) => `Hello, ${name}!`;
```

## Math

Euler's identity inline: $e^{i\pi}+1=0$. And on its own line:

$$
\int_{-\infty}^{\infty} e^{-x^2}\,dx = \sqrt{\pi}
$$

> A block quote, and a list:
>
> 1. first
> 2. second
"""
_GREETINGS = ("Hello! ", "Hi there! ", "Happy to help. ")
_EXAMPLE_TOOL = '''```python
from notebook_chat import tool


@tool
def get_weather(city: str) -> str:
    """Get the current weather for a city."""
    return f"Sunny in {city}"
```
'''


@dataclass
class _Reply:
    text: str = ""
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    finish_reason: str = "stop"
    error: ProviderError | None = None
    delay_factor: float = 1.0


class DemoModel:
    """The offline default provider (see the module docstring); ``delay``: seconds between chunks."""

    def __init__(self, *, delay: float = 0.02, seed: int = 0) -> None:
        if delay < 0:
            raise ValueError(f"delay must be >= 0 seconds, got {delay}")
        self.delay = delay
        self.seed = seed

    @property
    def label(self) -> str:
        return "DemoModel (offline)"

    def __repr__(self) -> str:
        return f"DemoModel(delay={self.delay!r}, seed={self.seed!r})"

    async def __call__(self, body: dict[str, Any], cancel: CancelHandle) -> AsyncIterator[dict[str, Any]]:
        reply = self._reply(body)
        max_words = body.get("max_completion_tokens") or body.get("max_tokens")
        words = _WORDS.findall(reply.text)
        if isinstance(max_words, int) and not reply.tool_calls and len(words) > max_words:
            reply.text = "".join(words[:max_words])
            reply.finish_reason, reply.error = "length", None
        return self._stream(reply, cancel, _fingerprint(body, self.seed))

    # -- deciding what to say -------------------------------------------------------------------------------

    def _reply(self, body: dict[str, Any]) -> _Reply:
        messages: list[dict[str, Any]] = list(body.get("messages") or [])
        last = messages[-1] if messages else {}
        if last.get("role") == "tool":
            return _Reply(reply_to_mentions(messages) or _summarize_results(messages))
        text = content_text(last.get("content"), " ") if last.get("role") == "user" else ""
        if _is_continuation(text, messages):
            return _Reply(_continuation(messages))
        command = re.search(r"/demo(?:\s+(\w+))?", text)
        if command:
            return _demo_command(command.group(1) or "")
        tools = _offered_tools(body)
        calls = _plan_calls(text, tools, body.get("tool_choice"), messages)
        if calls:
            names = " and ".join(f"`{call['function']['name']}`" for call in calls)
            return _Reply(f"Let me call {names}.", calls, "tool_calls")
        return _Reply(self._answer(text, tools, body))

    def _answer(self, text: str, tools: list[dict[str, Any]], body: dict[str, Any]) -> str:
        rng = random.Random(_fingerprint(body, self.seed))
        quoted = f" You wrote: *{_shorten(text, 80)}*" if text.strip() else ""
        if tools:
            listing = "".join(f"- `{t['name']}` — {t.get('description') or '…'}\n" for t in tools)
            tool_part = f"Tools I can call (mention one, e.g. by name):\n\n{listing}"
        else:
            tool_part = "No tools are registered yet: add some with `@tool` and mention them here.\n"
        return (
            f"{rng.choice(_GREETINGS)}{followed_skills(body.get('messages') or [])}"
            "I am the **offline demo model**: I need no network or API key, "
            f"so my answers are canned.{quoted}\n\n{tool_part}\nDemo commands:\n\n{_DEMO_COMMANDS}\n"
            f"Give me a tool like this one, in any cell:\n\n{_EXAMPLE_TOOL}"
        )

    # -- streaming ------------------------------------------------------------------------------------------

    async def _stream(
        self, reply: _Reply, cancel: CancelHandle, fingerprint: int
    ) -> AsyncIterator[dict[str, Any]]:
        chunk_id = f"chatcmpl-demo-{fingerprint:08x}"
        delay = self.delay * reply.delay_factor
        stopped = asyncio.Event()
        cancel.add_callback(stopped.set)
        for position, delta in enumerate(_deltas(reply)):
            if position and delay:
                with contextlib.suppress(asyncio.TimeoutError):  # the normal case: nobody pressed Stop
                    await asyncio.wait_for(stopped.wait(), delay)
            if cancel.cancelled:
                return
            yield _chunk(chunk_id, {"role": "assistant", **delta} if position == 0 else delta, None)
        if cancel.cancelled:
            return
        if reply.error is not None:
            raise reply.error
        final = _chunk(chunk_id, {}, reply.finish_reason)
        words = len(_WORDS.findall(reply.text)) + len(reply.tool_calls)
        final["usage"] = {"prompt_tokens": 0, "completion_tokens": words, "total_tokens": words}
        yield final


def _chunk(chunk_id: str, delta: dict[str, Any], finish_reason: str | None) -> dict[str, Any]:
    return {
        "id": chunk_id,
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "demo",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
    }


def _deltas(reply: _Reply) -> list[dict[str, Any]]:
    deltas: list[dict[str, Any]] = [{"content": word} for word in _WORDS.findall(reply.text)]
    for index, call in enumerate(reply.tool_calls):
        function = call["function"]
        deltas.append({"tool_calls": [{"index": index, "id": call["id"], "type": "function",
                                       "function": {"name": function["name"], "arguments": ""}}]})
        deltas.extend({"tool_calls": [{"index": index, "function": {"arguments": piece}}]}
                      for piece in _fragments(function["arguments"]))
    return deltas or [{"content": ""}]


def _fragments(arguments: str, count: int = 3) -> list[str]:
    size = max(1, -(-len(arguments) // count))
    return [arguments[start:start + size] for start in range(0, len(arguments), size)]


def _fingerprint(body: dict[str, Any], seed: int) -> int:
    text = json.dumps(body.get("messages") or [], sort_keys=True, default=str)
    return zlib.crc32(f"{seed}:{text}".encode())


# -- reading the conversation ------------------------------------------------------------------------------



def _shorten(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _offered_tools(body: dict[str, Any]) -> list[dict[str, Any]]:
    if body.get("tool_choice") == "none":
        return []
    offered = []
    for entry in body.get("tools") or []:
        function = entry.get("function") if isinstance(entry, dict) else None
        if isinstance(function, dict) and isinstance(function.get("name"), str):
            offered.append(function)
    return offered


def _is_continuation(text: str, messages: list[dict[str, Any]]) -> bool:
    """A continuation asks to go on with an earlier exchange (checked before /demo: it may quote one)."""
    if text.lstrip().startswith("[Continue]"):
        return True
    return len(messages) > 1 and re.search(r"\bcontinue\b", text, re.IGNORECASE) is not None


def _continuation(messages: list[dict[str, Any]]) -> str:
    earlier = [content_text(m.get("content"), " ") for m in messages[:-1] if m.get("role") == "user"]
    command = re.search(r"/demo\s+(length|error)", earlier[-1]) if earlier else None
    tails = {"length": _LENGTH_TAIL, "error": _ERROR_TAIL}
    rest = tails[command.group(1)] if command else " the answer is complete now: nothing else was missing."
    return f"…and here is the rest:{rest}"


def _demo_command(name: str) -> _Reply:
    if name == "length":
        return _Reply(_LENGTH_HEAD, finish_reason="length")
    if name == "error":
        message = "DemoModel: simulated provider error (you asked for /demo error)"
        return _Reply(_ERROR_HEAD, error=ProviderError(message, kind="server"))
    if name == "slow":
        return _Reply(_SLOW_TEXT, delay_factor=5.0)
    if name == "markdown":
        return _Reply(_MARKDOWN_TEXT)
    return _Reply(f"Demo commands:\n\n{_DEMO_COMMANDS}")


def _summarize_results(messages: list[dict[str, Any]]) -> str:
    results: list[dict[str, Any]] = []
    for message in reversed(messages):
        if message.get("role") != "tool":
            break
        results.insert(0, message)
    names: dict[str, str] = {}
    for message in messages:
        for call in message.get("tool_calls") or []:
            names[call.get("id", "")] = call.get("function", {}).get("name", "a tool")
    lines = []
    for result in results:
        name = names.get(result.get("tool_call_id", ""), "a tool")
        content = content_text(result.get("content"), " ")
        if re.search(r"\b(denied|rejected|declined|cancell?ed|canceled)\b", content[:120], re.IGNORECASE):
            lines.append(f"The call to `{name}` did not run ({_shorten(content, 120)}). No problem — tell me "
                         "if you would like to try something else.")
        elif content.startswith("Error"):
            lines.append(f"I called `{name}`, but it failed: `{_shorten(content, 160)}`.")
        else:
            lines.append(f"I called `{name}` and got: `{_shorten(content, 200)}`")
    if len(lines) == 1:
        return lines[0]
    return "Here is what happened:\n\n" + "".join(f"- {line}\n" for line in lines)


# -- planning tool calls -----------------------------------------------------------------------------------


def _plan_calls(
    text: str, tools: list[dict[str, Any]], tool_choice: Any, messages: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    if not tools or not text.strip():
        return []
    skill_call = plan_skill_call(text, tools)
    planned = {skill_call[0]["name"]: skill_call[1]} if skill_call else {}
    chosen = [t for t in tools if t["name"] in planned or (not skill_enum(t) and _mentions(text, t))]
    forced = tool_choice.get("function", {}).get("name") if isinstance(tool_choice, dict) else None
    if forced:
        chosen = [t for t in tools if t["name"] == forced]
    elif tool_choice == "required" and not chosen:
        chosen = tools[:1]
    existing = {call.get("id") for m in messages for call in m.get("tool_calls") or []}
    number = len(existing)
    calls = []
    for function in chosen:
        number += 1
        while f"call_demo_{number}" in existing:
            number += 1
        arguments = planned.get(function["name"]) or _arguments(text, function.get("parameters") or {})
        calls.append({"id": f"call_demo_{number}", "type": "function",
                      "function": {"name": function["name"], "arguments": json.dumps(arguments)}})
    return calls


def _words(text: str) -> set[str]:
    return {word.lower() for word in re.findall(r"[A-Za-z][A-Za-z0-9]*", text)}


def _keywords(function: dict[str, Any]) -> set[str]:
    name_parts = re.split(r"[_\-\s]+|(?<=[a-z])(?=[A-Z])", function["name"])
    description = str(function.get("description") or "")
    keywords = {part.lower() for part in name_parts if len(part) >= 3}
    keywords |= {word for word in _words(description) if len(word) >= 5}
    return keywords - _GENERIC_WORDS


def _mentions(text: str, function: dict[str, Any]) -> bool:
    for spelling in {function["name"], function["name"].replace("_", " ")}:
        if re.search(rf"(?<![\w-]){re.escape(spelling)}(?![\w-])", text, re.IGNORECASE):
            return True
    words = _words(text)
    words |= {word[:-1] for word in words if word.endswith("s")}
    return bool(_keywords(function) & words)


def _arguments(text: str, schema: dict[str, Any]) -> dict[str, Any]:
    properties: dict[str, Any] = schema.get("properties") or {}
    required = set(schema.get("required") or [])
    numbers = [float(n) if "." in n else int(n) for n in _NUMBER.findall(text)]
    strings = _string_candidates(text)
    arguments: dict[str, Any] = {}
    for name, prop in properties.items():
        kind, prop = _kind(prop, schema)
        value: Any = _MISSING
        if kind in ("integer", "number") and numbers:
            number = numbers.pop(0)
            value = int(number) if kind == "integer" else number
        elif kind == "string" and "enum" in prop:
            value = next((v for v in prop["enum"] if str(v).lower() in text.lower()), _MISSING)
        elif kind == "string" and strings:
            value = strings.pop(0)
        elif kind == "array" and _kind(prop.get("items") or {}, schema)[0] in ("integer", "number"):
            value, numbers = numbers, []
        if value is _MISSING and "default" in prop:
            value = prop["default"]
        if value is _MISSING and name in required:
            value = _plausible(name, kind, prop, text)
        if value is not _MISSING:
            arguments[name] = value
    return arguments


def _kind(prop: dict[str, Any], schema: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The JSON type of a property (first non-null anyOf branch, ``$ref`` resolved) and its schema."""
    for option in prop.get("anyOf") or prop.get("oneOf") or []:
        if option.get("type") != "null":
            kind, resolved = _kind(option, schema)
            return kind, {**resolved, **{k: v for k, v in prop.items() if k in ("default", "description")}}
    ref = prop.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        resolved = (schema.get("$defs") or {}).get(ref.split("/")[-1], {})
        return _kind({**resolved, **{k: v for k, v in prop.items() if k != "$ref"}}, schema)
    declared = prop.get("type")
    if isinstance(declared, list):
        declared = next((k for k in declared if k != "null"), "string")
    return str(declared or "string"), prop


def _string_candidates(text: str) -> list[str]:
    quoted = [next(group for group in match.groups() if group) for match in _QUOTED.finditer(text)]
    unquoted = _QUOTED.sub(" ", text)
    named = [m.group(1) for m in _AFTER_PREPOSITION.finditer(unquoted)]
    proper = [candidate for candidate in named if candidate[0].isupper()]
    common = [candidate for candidate in named if candidate.lower() not in _GENERIC_WORDS]
    named = proper + [candidate for candidate in common if candidate not in proper]
    capitalized = [m.group(1) for m in _CAPITALIZED.finditer(unquoted.strip())]
    candidates: list[str] = []
    for candidate in quoted + named + capitalized:
        if candidate not in candidates and candidate not in _NOT_ARGUMENTS:
            candidates.append(candidate)
    return candidates


def _plausible(name: str, kind: str, prop: dict[str, Any], text: str) -> Any:
    if kind == "string":
        if prop.get("enum"):
            return prop["enum"][0]
        if name.lower() in _ECHO_PARAMS:
            return text.strip()
        return _PLAUSIBLE.get(name.lower(), "example")
    if kind == "boolean":
        return not re.search(r"\b(no|not|false|off)\b", text, re.IGNORECASE)
    return {"integer": 1, "number": 1, "array": [], "object": {}}.get(kind, "example")
