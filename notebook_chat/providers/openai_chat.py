"""OpenAIChat: a Chat Completions provider (OpenAI or any compatible server) via ``openai.AsyncOpenAI``."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, Protocol

import openai

from ..engine.conversation import ENGINE_ONLY_FIELDS
from ..engine.errors import ProviderError
from ..engine.provider import CancelHandle
from ..engine.wire import optional_list
from . import openai_stream
from .openai_errors import incomplete_error, to_provider_error, unreadable_stream
from .redaction import Redactor

TOOL_ONLY_OPTIONS = ("tool_choice", "parallel_tool_calls")
"""Options OpenAI accepts only next to a non-empty ``tools`` list ("'tool_choice' is only allowed when 'tools'
are specified")."""


class ChunkMapper(Protocol):
    """Turns one event the API streams into a Chat-shaped chunk (``None``: nothing for the engine)."""

    finished: bool
    """Whether the stream has said how it ended (a stream that stops without it is ``incomplete``)."""

    def map(self, event: dict[str, Any]) -> dict[str, Any] | None: ...


class ChatChunkPassThrough:
    """Chat Completions chunks are already the engine's shape; finished once a choice has a ``finish_reason``."""

    def __init__(self) -> None:
        self.finished = False

    def map(self, event: dict[str, Any]) -> dict[str, Any]:
        self.finished = self.finished or any(
            isinstance(choice, dict) and choice.get("finish_reason")
            for choice in optional_list(event.get("choices"), "chunk.choices") or ()
        )
        return event


def provider_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The messages without engine-only fields (``id``, ``state``, ``metadata``, ...)."""
    return [{key: value for key, value in m.items() if key not in ENGINE_ONLY_FIELDS} for m in messages]


def drop_tool_options_without_tools(request: dict[str, Any]) -> dict[str, Any]:
    """Without tools (e.g. the closing request after ``max_tool_rounds``: ``tool_choice="none"``, no ``tools``)
    an empty ``tools`` list and the tool-only options go: "no tools" already means no tool calls."""
    if not request.get("tools"):
        for key in ("tools", *TOOL_ONLY_OPTIONS):
            request.pop(key, None)
    return request


class OpenAIChat:
    """Streams Chat Completions as plain-dict chunks.

    ``OpenAIChat("gpt-4o-mini", temperature=0)``: extra keyword arguments go into every request body. The
    API key and base URL come from ``OPENAI_API_KEY`` / ``OPENAI_BASE_URL`` when not given; the key lives
    only in the client. A server that needs no key (``OpenAIChat("qwen", base_url="http://localhost:8080/v1")``)
    works without one: no ``Authorization`` header is sent. ``max_retries`` / ``timeout`` configure a client built
    here (ignored when ``client`` is passed).

    ``context_window=N`` (tokens) is the model's context size: the engine leaves out the oldest whole turns so
    that each request stays under it (see :mod:`notebook_chat.engine.budget`). ``None`` (the default) sends the
    whole history.

    Every error text is redacted (:meth:`redact`) before it leaves the provider: the key, credential headers and
    the base URL's credentials and query values never reach a message, the turn log or a store.

    Calling it returns an async iterator of chunks (``chunk.model_dump(exclude_none=True)``; an extra
    ``reasoning_content`` stays in the delta; a tool-call fragment without ``index`` is passed through as
    is). Failures raise :class:`ProviderError` (see :mod:`.openai_errors`), after the chunks that did
    arrive; a stream that ends with no finish reason raises kind ``incomplete``.

    Cancel: when ``cancel`` fires, the read in progress is abandoned and the stream is closed (the HTTP
    connection closes); the iterator then **ends normally** — it raises neither ``CancelledError`` nor
    ``incomplete``.
    """

    api_name = "OpenAI"

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        client: openai.AsyncOpenAI | None = None,
        max_retries: int | None = None,
        timeout: float | None = None,
        context_window: int | None = None,
        **request_options: Any,
    ) -> None:
        if context_window is not None and (isinstance(context_window, bool) or not isinstance(context_window, int)
                                           or context_window <= 0):
            raise ValueError(f"context_window must be a positive number of tokens, got {context_window!r}")
        self.model = model
        self.context_window = context_window
        self.request_options = request_options
        self.client = openai_stream.make_client(
            client, base_url=base_url, api_key=api_key, max_retries=max_retries, timeout=timeout
        )

    @property
    def server(self) -> str:
        return openai_stream.server_label(self.client)

    @property
    def label(self) -> str:
        """``"OpenAI gpt-4o-mini @ https://api.openai.com"``: for headers and logs, never with secrets."""
        return f"{self.api_name} {self.model} @ {self.server}"

    def describe(self) -> str:
        return self.label

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.label}>"

    def request_body(self, body: dict[str, Any]) -> dict[str, Any]:
        """The JSON body sent to ``/chat/completions`` for the engine's ``body``."""
        request = {"model": self.model, **self.request_options, **body}
        request["messages"] = provider_messages(list(body.get("messages") or []))
        stream_options = dict(request.get("stream_options") or {})
        request.update(stream=True, stream_options={**stream_options, "include_usage": True})
        return drop_tool_options_without_tools(request)

    fixed_keys: tuple[str, ...] = ("model", "messages", "stream", "stream_options")
    """Request keys passed to the SDK by name; the rest travel as ``extra_body`` (any server's own options)."""

    async def __call__(self, body: dict[str, Any], cancel: CancelHandle) -> AsyncIterator[dict[str, Any]]:
        request = self.request_body(body)
        watch = openai_stream.CancelWatch(cancel)
        fixed = {key: request.pop(key) for key in self.fixed_keys}
        try:
            stream = await openai_stream.start(self._create(fixed, request), watch)
        except openai.OpenAIError as error:
            watch.close()
            raise self._error(error) from error
        if stream is None:
            return openai_stream.empty()
        return self._chunks(stream, watch)

    def _create(self, fixed: dict[str, Any], extra: dict[str, Any]) -> Any:
        return self.client.chat.completions.create(
            **fixed, extra_body=extra, extra_headers=openai_stream.request_headers(self.client))

    def _mapper(self) -> ChunkMapper:
        return ChatChunkPassThrough()

    def redact(self, text: str) -> str:
        """``text`` without this client's secrets (key, credential headers, base-URL credentials and query)."""
        return Redactor.for_client(self.client)(text)

    def _redacted(self, error: ProviderError) -> ProviderError:
        error.message = self.redact(error.message)
        error.args = (error.message,)
        return error

    def _error(self, error: openai.OpenAIError) -> ProviderError:
        return self._redacted(to_provider_error(error, model=self.model, where=self.server))

    async def _chunks(self, stream: Any, watch: openai_stream.CancelWatch) -> AsyncIterator[dict[str, Any]]:
        mapper = self._mapper()
        try:
            async for event in openai_stream.read(stream, watch):
                chunk = mapper.map(openai_stream.plain(event))
                if chunk is not None:
                    yield chunk
        except openai.OpenAIError as error:
            raise self._error(error) from error
        except ProviderError as error:
            raise self._redacted(error) from None
        except Exception as error:  # the SDK could not read what the server sent (not JSON, not an object)
            raise self._redacted(unreadable_stream(error, self.server)) from error
        if not mapper.finished and not watch.cancelled:
            raise incomplete_error()
