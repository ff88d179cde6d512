"""FakeOpenAIServer: a real HTTP server on 127.0.0.1 that answers like OpenAI from a script of replies.

It speaks ``POST /v1/chat/completions`` and ``POST /v1/responses``, streaming (SSE) and not, and runs on its
own threads, so it works from plain tests and from async tests alike (``with`` or ``async with``)::

    with FakeOpenAIServer() as server:
        server.enqueue_text("hello", chunks=5)
        server.enqueue_tool_calls([{"name": "add", "arguments": {"a": 1}}], fragments=3)
        server.enqueue_http_error(429, "Rate limit reached")
        server.enqueue_text("partial", chunks=4, fault=ConnectionReset(after=2))
        client = server.async_client()          # openai.AsyncOpenAI, max_retries=0
        ...
        server.requests[0].body["messages"]     # what the client sent

Each request takes the next reply; with none queued the server answers 500
"FakeOpenAIServer: no reply queued".
"""

from __future__ import annotations

import collections
import contextlib
import fcntl
import json
import select
import socket
import struct
import termios
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

from . import openai_render_chat as chat
from .openai_render_responses import ResponsesRenderer
from .openai_replies import (
    ConnectionReset,
    Fault,
    FinishReason,
    HttpError,
    Piece,
    Reply,
    Stall,
    StreamEnds,
    StreamError,
    ToolCallSpec,
    reasoning_pieces,
    text_pieces,
    tool_call_pieces,
)

NO_REPLY_MESSAGE = "FakeOpenAIServer: no reply queued"


@dataclass
class RecordedRequest:
    """One request the server received. ``disconnected`` is set when the client went away mid-reply.

    ``headers`` are kept in memory only (tests may check the ``authorization`` header a client sent).
    """

    path: str
    body: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)
    pieces_sent: int = 0
    finished: threading.Event = field(default_factory=threading.Event)
    disconnected: threading.Event = field(default_factory=threading.Event)

    @property
    def client_went_away(self) -> bool:
        return self.disconnected.is_set()


class _ClientGone(Exception):
    """The client closed the connection while the server was still answering."""


def _as_spec(call: ToolCallSpec | Mapping[str, Any]) -> ToolCallSpec:
    if isinstance(call, ToolCallSpec):
        return call
    return ToolCallSpec(name=call["name"], arguments=call.get("arguments", {}), id=call.get("id"))


class FakeOpenAIServer:
    def __init__(self, *, model: str = "fake-model") -> None:
        self.model = model
        self.requests: list[RecordedRequest] = []
        self._replies: collections.deque[Reply] = collections.deque()
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle

    def start(self) -> FakeOpenAIServer:
        if self._httpd is not None:
            return self
        httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        httpd.daemon_threads = True
        httpd.fake = self  # type: ignore[attr-defined]
        self._httpd = httpd
        self._thread = threading.Thread(
            target=httpd.serve_forever, kwargs={"poll_interval": 0.02}, name="FakeOpenAIServer", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        httpd, self._httpd = self._httpd, None
        if httpd is not None:
            httpd.shutdown()
            httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    async def __aenter__(self) -> FakeOpenAIServer:
        return self.start()

    async def __aexit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError("FakeOpenAIServer is not running: use it as a context manager or call start()")
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def async_client(self, **options: Any) -> Any:
        """An ``openai.AsyncOpenAI`` for this server (no retries unless asked, a dummy key)."""
        import openai

        options = {"api_key": "sk-fake", "max_retries": 0, **options}
        return openai.AsyncOpenAI(base_url=self.base_url, **options)

    # -- the script

    def enqueue(self, *replies: Reply) -> None:
        with self._lock:
            self._replies.extend(replies)

    @property
    def pending(self) -> int:
        """Replies queued and not yet served."""
        with self._lock:
            return len(self._replies)

    def enqueue_text(
        self,
        text: str,
        *,
        chunks: int = 1,
        reasoning: str = "",
        reasoning_chunks: int = 1,
        finish_reason: FinishReason | None = None,
        fault: Fault | None = None,
        delay: float = 0.0,
        usage: dict[str, int] | None = None,
    ) -> Reply:
        """A text reply in ``chunks`` pieces, optionally preceded by reasoning. ``usage`` is what the server reports
        (default: made-up counts; ``{}``: none at all, no usage chunk)."""
        pieces = [*reasoning_pieces(reasoning, reasoning_chunks), *text_pieces(text, chunks)]
        return self._add(pieces, finish_reason, fault, delay, usage)

    def enqueue_reasoning(self, reasoning: str, text: str = "", *, chunks: int = 1, **options: Any) -> Reply:
        """Reasoning (``reasoning_content`` / summary deltas) in ``chunks`` pieces, then ``text``."""
        return self.enqueue_text(text, chunks=chunks, reasoning=reasoning, reasoning_chunks=chunks, **options)

    def enqueue_tool_calls(
        self,
        calls: Iterable[ToolCallSpec | Mapping[str, Any]],
        *,
        fragments: int = 1,
        with_index: bool = True,
        interleave: bool = False,
        text: str = "",
        finish_reason: FinishReason | None = None,
        fault: Fault | None = None,
        delay: float = 0.0,
        usage: dict[str, int] | None = None,
    ) -> Reply:
        """Tool calls (``{"name", "arguments", "id"?}``), each call's arguments in ``fragments`` pieces."""
        specs = [_as_spec(call) for call in calls]
        pieces = [
            *text_pieces(text, 1),
            *tool_call_pieces(specs, fragments=fragments, with_index=with_index, interleave=interleave),
        ]
        return self._add(pieces, finish_reason, fault, delay, usage)

    def enqueue_truncated(self, text: str, *, chunks: int = 1) -> Reply:
        """A reply cut off by the token limit: ``finish_reason="length"`` / ``response.incomplete``."""
        return self.enqueue_text(text, chunks=chunks, finish_reason="length")

    def enqueue_http_error(self, status: int, message: str, *, code: str | None = None) -> Reply:
        kind = (
            "server_error"
            if status >= 500
            else "rate_limit_error"
            if status == 429
            else "invalid_request_error"
        )
        return self._add([], None, HttpError(status, message, type=kind, code=code), 0.0, None)

    def _add(
        self,
        pieces: list[Piece],
        finish_reason: FinishReason | None,
        fault: Fault | None,
        delay: float,
        usage: dict[str, int] | None,
    ) -> Reply:
        reply = Reply(tuple(pieces), finish_reason=finish_reason, fault=fault, delay=delay, usage=usage)
        self.enqueue(reply)
        return reply

    def _next_reply(self) -> Reply | None:
        with self._lock:
            return self._replies.popleft() if self._replies else None

    def _record(self, path: str, body: dict[str, Any], headers: dict[str, str]) -> RecordedRequest:
        record = RecordedRequest(path, body, headers)
        with self._lock:
            self.requests.append(record)
        return record

    # -- observing the client

    @property
    def bodies(self) -> list[dict[str, Any]]:
        return [request.body for request in self.requests]

    def wait_for_disconnect(self, timeout: float = 5.0, *, request: int = -1) -> bool:
        """Wait (on this thread; the server runs on its own) until the client left the given request early."""
        deadline = time.monotonic() + timeout
        while not self.requests and time.monotonic() < deadline:
            time.sleep(0.01)
        if not self.requests:
            return False
        record = self.requests[request]
        return record.disconnected.wait(max(0.0, deadline - time.monotonic()))


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: ThreadingHTTPServer

    def log_message(self, format: str, *args: Any) -> None:
        return None

    @property
    def fake(self) -> FakeOpenAIServer:
        return self.server.fake  # type: ignore[attr-defined, no-any-return]

    def do_POST(self) -> None:
        self.close_connection = True
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        path = urlsplit(self.path).path
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            self._send_json(
                400, _error_body("FakeOpenAIServer: request body is not JSON", "invalid_request_error")
            )
            return
        headers = {key.lower(): value for key, value in self.headers.items()}
        record = self.fake._record(path, body if isinstance(body, dict) else {"_": body}, headers)
        try:
            self._answer(path, record)
        except _ClientGone:
            record.disconnected.set()
        except _StreamOver:
            pass
        finally:
            record.finished.set()

    def _answer(self, path: str, record: RecordedRequest) -> None:
        if path.rstrip("/").endswith("/chat/completions"):
            api = "chat"
        elif path.rstrip("/").endswith("/responses"):
            api = "responses"
        else:
            self._send_json(
                404, _error_body(f"FakeOpenAIServer: unknown path {path}", "invalid_request_error")
            )
            return
        reply = self.fake._next_reply()
        if reply is None:
            self._send_json(500, _error_body(NO_REPLY_MESSAGE, "server_error"))
            return
        if isinstance(reply.fault, HttpError):
            fault = reply.fault
            self._send_json(fault.status, _error_body(fault.message, fault.type, fault.code))
            return
        model = str(record.body.get("model") or self.fake.model)
        if record.body.get("stream"):
            self._stream(api, reply, model, record)
        else:
            self._complete(api, reply, model)

    # -- non-streaming

    def _complete(self, api: str, reply: Reply, model: str) -> None:
        fault = reply.fault
        if isinstance(fault, Stall):
            self._pause(fault.seconds)
        if isinstance(fault, ConnectionReset):
            self._reset()
        if isinstance(fault, StreamError):
            self._send_json(500, _error_body(fault.message, "server_error", fault.code))
            return
        if api == "chat":
            self._send_json(200, chat.completion(reply, model))
        else:
            self._send_json(200, ResponsesRenderer(reply, model).final_response())

    # -- streaming

    def _stream(self, api: str, reply: Reply, model: str, record: RecordedRequest) -> None:
        include_usage = bool((record.body.get("stream_options") or {}).get("include_usage"))
        renderer = ResponsesRenderer(reply, model)
        failure: Callable[[StreamError], dict[str, Any]] = renderer.failure
        if api == "chat":
            failure = chat.error_event
            preamble: list[dict[str, Any]] = []
            pieces = [[event] for event in chat.piece_events(reply, model)]
            closing = chat.closing_events(reply, model, include_usage)
        else:
            preamble, pieces = renderer.preamble(), renderer.piece_events()
            closing = renderer.closing()
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("Connection", "close")
        self.end_headers()
        self._send_events(preamble)
        fault = reply.fault
        for number, events in enumerate(pieces):
            self._before_piece(number, fault, failure)
            if reply.delay:
                self._pause(reply.delay)
            self._send_events(events)
            record.pieces_sent = number + 1
        self._before_piece(len(pieces), fault, failure)
        if isinstance(fault, StreamEnds):
            self._end_body()
            return
        self._send_events(closing)
        if api == "chat":
            self._write_chunk(b"data: [DONE]\n\n")
        self._end_body()

    def _before_piece(
        self, number: int, fault: Fault | None, failure: Callable[[StreamError], dict[str, Any]]
    ) -> None:
        """Strike ``fault`` if it is due before piece ``number``."""
        if isinstance(fault, Stall) and fault.after == number:
            self._pause(fault.seconds)
        elif isinstance(fault, ConnectionReset) and fault.after == number:
            self._reset()
        elif isinstance(fault, StreamError) and fault.after == number:
            self._send_events([failure(fault)])
            self._end_body()
            raise _StreamOver
        elif isinstance(fault, StreamEnds) and fault.after == number:
            self._end_body()
            raise _StreamOver

    @property
    def _is_chat(self) -> bool:
        return urlsplit(self.path).path.rstrip("/").endswith("/chat/completions")

    def _send_events(self, events: list[dict[str, Any]]) -> None:
        for event in events:
            if chat.RAW in event:
                self._write_chunk(f"data: {event[chat.RAW]}\n\n".encode("utf-8", "surrogatepass"))
                continue
            data = json.dumps(event)
            kind = event.get("type") if not self._is_chat else None
            frame = (f"event: {kind}\n" if kind else "") + f"data: {data}\n\n"
            self._write_chunk(frame.encode())

    def _write_chunk(self, data: bytes) -> None:
        try:
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            self.wfile.flush()
        except OSError as error:
            raise _ClientGone from error

    def _end_body(self) -> None:
        try:
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except OSError as error:
            raise _ClientGone from error

    def _reset(self) -> None:
        """Close the socket with RST (SO_LINGER 0): the client sees 'connection reset by peer'."""
        self._wait_until_sent()
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.connection.close()
        raise _StreamOver

    def _wait_until_sent(self, limit: float = 5.0) -> None:
        """An abortive close drops what the client has not acknowledged yet: wait (bounded) until the pieces written
        before the fault are acknowledged, so the client always sees them before the reset."""
        deadline = time.monotonic() + limit
        with contextlib.suppress(OSError):
            while time.monotonic() < deadline:
                queued = fcntl.ioctl(self.connection.fileno(), termios.TIOCOUTQ, b"\0\0\0\0")
                if struct.unpack("i", queued)[0] == 0:
                    return
                time.sleep(0.002)

    def _pause(self, seconds: float) -> None:
        """Sleep, watching the socket: a client that closes the connection ends the pause (and the reply)."""
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            readable, _, _ = select.select([self.connection], [], [], min(left, 0.02))
            if readable and self._peer_closed():
                raise _ClientGone

    def _peer_closed(self) -> bool:
        try:
            return bool(self.connection.recv(1, socket.MSG_PEEK) == b"")
        except OSError:
            return True

    def _send_json(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(data)


class _StreamOver(Exception):
    """The scripted fault ended the reply on purpose."""


def _error_body(message: str, kind: str, code: str | None = None) -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}
