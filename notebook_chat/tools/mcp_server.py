"""``mcp(...)``: the tools of a Model Context Protocol server, offered to the model like any other tool.

``Chat(tools=[mcp("python", "server.py")])`` starts the server as a subprocess (stdio); ``mcp(url="http://…/mcp")``
connects to a streamable HTTP server. Built on the official ``mcp`` SDK (``pip install notebook_chat[mcp]``),
imported only when a server is connected.

- Every MCP tool waits for the user's approval unless its name is in ``allow``: a server is code someone else wrote.
- The server's tool list is read when it connects and again at the start of every turn, so a restored call (after
  a kernel restart) is checked against the live server: a tool it no longer has can't be approved (Deny still
  works). Before the first connection finished, no MCP tool is offered.
- A call returns the server's text for the model and its images for the card (``ToolResult.display``). A server
  error, a timeout or a server that dies mid-call gives a failed result saying so; the next turn reconnects.
- The connection lives in one task of the kernel's loop (the SDK's transports are task-bound) and closes with
  ``chat.close()`` / ``await chat.aclose()`` or ``await server.aclose()``.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import re
import shutil
import tempfile
from collections.abc import Iterable, Sequence
from datetime import timedelta
from pathlib import Path
from typing import Any

from ..engine import Plugin, PluginContext
from ..engine.notices import Notice
from ..plugins.tool_definition import Tool, ToolResult
from .rich import tool_result

MISSING_SDK = "MCP tools need the official SDK: pip install 'mcp>=1.20,<2' (or notebook_chat[mcp])"
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
_COUNTER = itertools.count(1)


def mcp(*command: str, url: str | None = None, allow: Iterable[str] = (), name: str | None = None,
        env: dict[str, str] | None = None, timeout: float = 60.0, max_model_chars: int = 8000) -> MCPServer:
    """An MCP server's tools: ``mcp("python", "server.py")`` (stdio) or ``mcp(url="http://127.0.0.1:8000/mcp")``.

    ``allow`` names the tools that run without approval; ``timeout`` limits one call (seconds); ``env`` is the
    subprocess's environment (the kernel's when None).
    """
    if bool(command) == (url is not None):
        raise ValueError("mcp() needs either a command (mcp('python', 'server.py')) or url=..., not both")
    if any(not isinstance(part, str) or not part for part in command):
        raise ValueError("mcp(*command): every part of the command must be a non-empty string")
    if not timeout > 0:
        raise ValueError(f"timeout must be a positive number of seconds, got {timeout!r}")
    return MCPServer(list(command), url=url, allow=frozenset(allow), name=name, env=env, timeout=timeout,
                     max_model_chars=max_model_chars)


class MCPServer(Plugin):
    """A tool provider plugin holding one connection to an MCP server."""

    priority = 0

    def __init__(self, command: Sequence[str], *, url: str | None, allow: frozenset[str], name: str | None,
                 env: dict[str, str] | None, timeout: float, max_model_chars: int) -> None:
        self.command = list(command)
        self.url = url
        self.allow = allow
        self.label = name or (url if url is not None else " ".join([Path(self.command[0]).name, *self.command[1:]]))
        self.name = f"mcp-{name or next(_COUNTER)}"
        self.env = env
        self.timeout = timeout
        self.max_model_chars = max_model_chars
        self.problem: str | None = None
        """Why the server is not connected (it failed to start, died, or was closed), or None."""
        self._session: Any = None
        self._tools: list[Tool] = []
        self._runner: asyncio.Task[None] | None = None
        self._ready: asyncio.Future[None] | None = None
        self._closing: asyncio.Event | None = None
        self._errlog: Any = None
        with contextlib.suppress(RuntimeError):  # no running loop (a script): connect at the first turn
            self._start(asyncio.get_running_loop())

    # -- the tool provider -----------------------------------------------------------------------------------
    def provide_tools(self, ctx: PluginContext) -> list[Tool]:
        return list(self._tools) if self._session is not None else []

    @property
    def tool_names(self) -> list[str]:
        return [tool.name for tool in self._tools]

    async def on_turn_start(self, ctx: PluginContext) -> None:
        try:
            await self.connect()
            await self._list_tools()
        except Exception as error:
            self._tools = []
            unavailable = Notice("mcp.unavailable", label=self.label, error=error)
            self.problem = unavailable
            ctx.set_notice(unavailable)

    # -- the connection --------------------------------------------------------------------------------------
    async def connect(self) -> None:
        """Connect (again, if the server died) and read the tool list; raises when the server can't be reached."""
        runner = self._runner
        if runner is not None and not runner.done() and self._ready is not None and self._ready.done() \
                and self._session is None:  # a lost connection still winding down
            if self._closing is not None:
                self._closing.set()
            with contextlib.suppress(Exception):
                await runner
        if self._runner is None or self._runner.done():
            self._start(asyncio.get_running_loop())
        assert self._ready is not None
        await asyncio.shield(self._ready)

    async def aclose(self) -> None:
        """Close the connection (a stdio server's process ends with it)."""
        runner = self._runner
        if self._closing is not None:
            self._closing.set()
        if runner is not None and not runner.done():
            with contextlib.suppress(Exception):
                await runner
        self._session = None
        self.problem = "the connection was closed"

    def _start(self, loop: asyncio.AbstractEventLoop) -> None:
        self._ready = loop.create_future()
        self._ready.add_done_callback(lambda done: done.cancelled() or done.exception())  # read: no "never retrieved"
        self._closing = asyncio.Event()
        self._runner = loop.create_task(self._run(self._ready, self._closing), name=f"notebook_chat {self.name}")

    async def _run(self, ready: asyncio.Future[None], closing: asyncio.Event) -> None:
        with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as errlog:
            self._errlog = errlog  # a stdio server's stderr, quoted when it fails to start
            try:
                async with contextlib.AsyncExitStack() as stack:
                    session = await self._open(stack)
                    await session.initialize()
                    self._session = session
                    await self._list_tools()
                    self.problem = None
                    ready.set_result(None)
                    await closing.wait()
            except BaseException as error:
                if not ready.done():
                    ready.set_exception(RuntimeError(self._failure(error)))
                if not isinstance(error, (Exception, asyncio.CancelledError)):
                    raise
            finally:
                self._session = None
                self._errlog = None

    async def _open(self, stack: contextlib.AsyncExitStack) -> Any:
        try:
            from mcp import ClientSession
        except ImportError:
            raise RuntimeError(MISSING_SDK) from None
        if self.url is not None:
            from mcp.client import streamable_http

            client = getattr(streamable_http, "streamable_http_client", None) or streamable_http.streamablehttp_client
            read, write, *_ = await stack.enter_async_context(client(self.url))
        else:
            from mcp import StdioServerParameters
            from mcp.client.stdio import stdio_client

            executable = shutil.which(self.command[0]) or self.command[0]
            parameters = StdioServerParameters(command=executable, args=self.command[1:], env=self.env)
            read, write = await stack.enter_async_context(stdio_client(parameters, errlog=self._errlog))
        return await stack.enter_async_context(ClientSession(read, write))

    async def _list_tools(self) -> None:
        session = self._session
        if session is None:
            return
        listed = await asyncio.wait_for(session.list_tools(), self.timeout)
        self._tools = [self._tool(spec) for spec in listed.tools]

    def _failure(self, error: BaseException) -> str:
        what = f"the MCP server {self.label!r} could not be started or reached: {_describe(error)}"
        stderr = self._stderr_tail()
        return f"{what}\nIts stderr ended with:\n{stderr}" if stderr else what

    def _stderr_tail(self, chars: int = 2000) -> str:
        log = self._errlog
        if log is None or log.closed:
            return ""
        with contextlib.suppress(Exception):
            log.flush()
            log.seek(0)
            return str(log.read())[-chars:].strip()
        return ""

    # -- tools and calls -------------------------------------------------------------------------------------
    def _tool(self, spec: Any) -> Tool:
        remote = str(spec.name)

        async def call(**arguments: Any) -> ToolResult:
            return await self._call(remote, arguments)

        schema = dict(spec.inputSchema or {})
        schema.setdefault("type", "object")
        schema.setdefault("properties", {})
        return Tool(name=_UNSAFE.sub("_", remote)[:64] or "tool", description=spec.description or remote,
                    parameters=schema, function=call, approval=remote not in self.allow)

    async def _call(self, remote: str, arguments: dict[str, Any]) -> ToolResult:
        session = self._session
        if session is None:
            return ToolResult.failure(f"the MCP server {self.label!r} is not connected ({self.problem or 'closed'})")
        try:
            result = await session.call_tool(remote, arguments, read_timeout_seconds=timedelta(seconds=self.timeout))
        except Exception as error:
            self._lost(error)
            return ToolResult.failure(f"the MCP server {self.label!r} failed during the call to {remote!r}: "
                                      f"{_describe(error)}; the call's outcome is unknown")
        return self._result(result)

    def _lost(self, error: Exception) -> None:
        """After a failed call the connection may be gone: the next turn reconnects."""
        runner = self._runner
        if runner is not None and (runner.done() or _connection_closed(error)):
            self._session = None
            self.problem = f"the connection was lost ({_describe(error)})"
            if self._closing is not None:
                self._closing.set()

    def _result(self, result: Any) -> ToolResult:
        texts: list[str] = []
        images: dict[str, list[str]] = {}
        for part in result.content or []:
            kind = getattr(part, "type", None)
            if kind == "text":
                texts.append(str(part.text))
            elif kind == "image":
                images.setdefault(str(part.mimeType), []).append(str(part.data))
                texts.append(f"[an image ({part.mimeType}) shown to the user]")
            elif kind == "resource":
                resource = part.resource
                texts.append(str(getattr(resource, "text", None) or f"[a resource: {resource.uri}]"))
            else:
                texts.append(f"[{kind or 'unknown'} content left out]")
        if not texts and getattr(result, "structuredContent", None) is not None:
            texts.append(str(result.structuredContent))
        text = "\n".join(texts) or "Done: the tool returned no content."
        display = {mime: data[0] if len(data) == 1 else data for mime, data in images.items()}
        error = text[:500] if result.isError else None
        return tool_result(text, max_model_chars=self.max_model_chars, display=display or None,
                           ok=not result.isError, error=error)


def _connection_closed(error: BaseException) -> bool:
    text = str(error).lower()
    return "closed" in text or isinstance(error, (EOFError, ConnectionError, BrokenPipeError))


def _describe(error: BaseException) -> str:
    inner = getattr(error, "exceptions", None)  # an ExceptionGroup from the SDK's task groups
    if isinstance(inner, (list, tuple)) and inner:
        return "; ".join(_describe(item) for item in inner)
    text = str(error)
    return f"{type(error).__name__}: {text}" if text else type(error).__name__
