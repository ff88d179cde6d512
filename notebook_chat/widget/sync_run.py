"""Run a coroutine to completion from synchronous code (``chat.ask``), also inside a notebook cell.

A cell already runs inside the kernel's event loop, and asyncio refuses to nest loops. ``nest_asyncio2`` (the
maintained fork of nest-asyncio that ipykernel 7 itself depends on; same API) patches that loop to be re-entrant.
What it patches: the running loop's ``run_until_complete``/``run_forever`` and asyncio's task and ``run`` helpers.
For how long: for the rest of the kernel's life (a patch can't be safely undone while other code may rely on it), so
it is applied lazily, on the first ``ask`` from inside a running loop, never at import. The original nest-asyncio
(1.6) floods an ipykernel 7 cell with asyncio errors ("cannot enter context", "Task was destroyed but it is
pending"); the fork works with ipykernel 6 and 7.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

_patched: set[int] = set()


def run_sync(coroutine: Coroutine[Any, Any, T]) -> T:
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    if id(loop) not in _patched:
        import nest_asyncio2  # imported here: importing notebook_chat patches nothing

        nest_asyncio2.apply(loop)
        _patched.add(id(loop))
    return loop.run_until_complete(coroutine)
