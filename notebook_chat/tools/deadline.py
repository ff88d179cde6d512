"""A time limit for Python code that runs in the calling thread, without signals.

How: a watchdog thread waits for the deadline; if the code is still running then, it raises
:class:`TimeLimitExceeded` *in the running thread* with ``PyThreadState_SetAsyncExc`` — the mechanism behind
``KeyboardInterrupt``'s cousins, delivered at the next bytecode boundary (loops included, even ``while True: pass``).

Why not the alternatives:

- ``signal.SIGALRM`` works only on the main thread and only on Unix; comm handlers and event loops may run elsewhere.
- A worker thread with ``join(timeout)`` keeps the kernel responsive but cannot stop the code: it goes on changing
  the user's namespace after the tool reported "still running", beside the kernel's thread, sharing the user's
  objects, pyplot and ``sys.stdout`` with it.
- A ``sys.settrace`` deadline check slows every traced line, misses one-line loops (``while True: pass`` emits no
  line events) and displaces a debugger's or coverage's tracer.

Costs of this one: the exception lands wherever the code is, library code included, exactly as the kernel's
Interrupt (``KeyboardInterrupt``) would; code blocked inside one C call (``time.sleep(600)``, a socket read, one huge
numpy operation) is stopped only when that call returns — the kernel's Interrupt button still works for those. It is
CPython-specific (``ctypes.pythonapi``); elsewhere the code runs without a limit. Nothing here kills the kernel.
"""

from __future__ import annotations

import ctypes
import threading
from types import TracebackType


class TimeLimitExceeded(BaseException):
    """Raised in code that ran past its time limit (a BaseException, so ``except Exception`` can't swallow it)."""

    def __init__(self, message: str = "the code ran past its time limit and was stopped") -> None:
        super().__init__(message)


def _set_async_exc(thread_id: int, exception: type[BaseException] | None) -> int:
    """Raise ``exception`` in the thread at its next bytecode boundary (None clears a pending one)."""
    set_async_exc = getattr(getattr(ctypes, "pythonapi", None), "PyThreadState_SetAsyncExc", None)
    if set_async_exc is None:
        return 0
    target = ctypes.py_object(exception) if exception is not None else ctypes.c_void_p(None)
    return int(set_async_exc(ctypes.c_ulong(thread_id), target))


class time_limit:
    """``with time_limit(seconds): ...`` raises :class:`TimeLimitExceeded` inside the block once it ran too long.

    ``seconds=None`` sets no limit. The exception is raised at most once; a pending one that would arrive after the
    block ended is cleared, so it can never escape into the code after the block.
    """

    def __init__(self, seconds: float | None) -> None:
        self.seconds = seconds
        self.fired = False
        self._finished = threading.Event()
        self._lock = threading.Lock()
        self._done = False
        self._thread_id = 0
        self._watchdog: threading.Thread | None = None

    def __enter__(self) -> time_limit:
        if self.seconds is not None:
            self._thread_id = threading.get_ident()
            self._watchdog = threading.Thread(target=self._watch, name="notebook_chat time limit", daemon=True)
            self._watchdog.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 tb: TracebackType | None) -> None:
        with self._lock:
            self._done = True
            if self.fired:
                _set_async_exc(self._thread_id, None)
        self._finished.set()
        if self._watchdog is not None:
            self._watchdog.join()

    def _watch(self) -> None:
        assert self.seconds is not None
        if self._finished.wait(self.seconds):
            return
        with self._lock:
            if not self._done:
                self.fired = _set_async_exc(self._thread_id, TimeLimitExceeded) == 1
