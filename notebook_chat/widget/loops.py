"""Which asyncio loop the widget works on: the kernel's running loop, or one made for a script."""

from __future__ import annotations

import asyncio


def running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def current_loop() -> asyncio.AbstractEventLoop:
    """The running loop (a kernel cell runs inside one); outside any, this thread's loop, made if missing."""
    loop = running_loop()
    if loop is not None:
        return loop
    policy = asyncio.get_event_loop_policy()
    try:
        return policy.get_event_loop()
    except RuntimeError:
        loop = policy.new_event_loop()
        policy.set_event_loop(loop)
        return loop
