"""What both OpenAI providers share: a client, a safe label, reading an SDK stream under a cancel handle.

On cancel the read in progress is abandoned and the stream is closed (``await stream.close()``), which
closes the HTTP connection; the iteration then simply ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import warnings
from collections.abc import AsyncIterator, Awaitable
from typing import Any, TypeVar

import openai

from ..engine.provider import CancelHandle

T = TypeVar("T")
_END = object()


NO_KEY = "no-key-needed"
"""The SDK's placeholder key for a server that needs none (it is never sent: the Authorization header is omitted)."""


def make_client(
    client: openai.AsyncOpenAI | None,
    *,
    base_url: str | None,
    api_key: str | None,
    max_retries: int | None,
    timeout: float | None,
) -> openai.AsyncOpenAI:
    """The given client, or a new one; the SDK reads OPENAI_API_KEY / OPENAI_BASE_URL when not given.

    A base URL (given or from OPENAI_BASE_URL) without any key is a server that needs none (llama.cpp, vLLM,
    Ollama, LM Studio): the client gets a placeholder key and sends no ``Authorization`` header.
    """
    if client is not None:
        return client
    options: dict[str, Any] = {}
    if max_retries is not None:
        options["max_retries"] = max_retries
    if timeout is not None:
        options["timeout"] = timeout
    keyless = not api_key and not os.environ.get("OPENAI_API_KEY")
    if keyless and (base_url or os.environ.get("OPENAI_BASE_URL")):
        api_key = NO_KEY
    return openai.AsyncOpenAI(api_key=api_key, base_url=base_url, **options)


def request_headers(client: openai.AsyncOpenAI) -> dict[str, Any] | None:
    """Per-request headers: a key-less client (the placeholder key) sends no ``Authorization`` header at all."""
    return {"Authorization": openai.Omit()} if client.api_key == NO_KEY else None


def server_label(client: openai.AsyncOpenAI) -> str:
    """``scheme://host[:port]`` of the base URL: no user info, path or query (they may hold secrets)."""
    url = client.base_url
    port = f":{url.port}" if url.port else ""
    return f"{url.scheme}://{url.host}{port}"


class CancelWatch:
    """An asyncio view of a :class:`CancelHandle` (which may fire from any thread)."""

    def __init__(self, cancel: CancelHandle) -> None:
        self.cancel = cancel
        self._fired = asyncio.Event()
        self._waiter: asyncio.Task[bool] | None = None
        loop = asyncio.get_running_loop()

        def fire() -> None:
            with contextlib.suppress(RuntimeError):  # a closed loop: nobody is reading any more
                loop.call_soon_threadsafe(self._fired.set)

        cancel.add_callback(fire)

    @property
    def cancelled(self) -> bool:
        return self.cancel.cancelled

    async def race(self, awaitable: Awaitable[T]) -> T | object:
        """Await ``awaitable`` unless the handle fires first; then cancel it and return ``_END``."""
        if self.cancelled:
            if asyncio.iscoroutine(awaitable):
                awaitable.close()
            return _END
        task = asyncio.ensure_future(awaitable)
        if self._waiter is None:
            self._waiter = asyncio.ensure_future(self._fired.wait())
        try:
            await asyncio.wait({task, self._waiter}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            if not task.done():
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
        if task.cancelled():
            return _END
        return task.result()

    def close(self) -> None:
        if self._waiter is not None:
            self._waiter.cancel()


async def _next(iterator: AsyncIterator[T]) -> T | object:
    try:
        return await iterator.__anext__()
    except StopAsyncIteration:
        return _END


async def start(request: Awaitable[T], watch: CancelWatch) -> T | None:
    """Send the request; ``None`` when the handle fired before the server answered."""
    result = await watch.race(request)
    return None if result is _END else result  # type: ignore[return-value]


async def read(stream: Any, watch: CancelWatch) -> AsyncIterator[Any]:
    """Yield the stream's events until it ends or the handle fires; always closes the stream."""
    iterator = stream.__aiter__()
    try:
        while True:
            event = await watch.race(_next(iterator))
            if event is _END:
                return
            yield event
    finally:
        watch.close()
        await stream.close()


def plain(event: Any) -> dict[str, Any]:
    """An SDK event as the plain JSON the server sent (``None`` fields left out).

    The SDK builds events without validation, so a field of the wrong type is kept as sent; its serializer would warn
    about each one, which says nothing the engine's wire checks don't say better.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        data = event.model_dump(exclude_none=True, warnings=False)
    if not isinstance(data, dict):
        raise TypeError(f"the event is {type(data).__name__}, not an object")
    return data


async def empty() -> AsyncIterator[Any]:
    """The stream of a request cancelled before the server answered."""
    return
    yield
