"""No automatic garbage collection while the kernel takes in a stored conversation.

Reading a long record the browser hands over (parsing, validating, copying, the view's messages) makes a few hundred
thousand containers at once, and CPython's collector runs full collections of the kernel's whole heap while they pile
up: on this machine, a 3,000-message `ready` took 90–200 ms with it and about 100 ms without, a 5,000-message one
180–370 ms and 105–175 ms. None of those objects is garbage while it is read, so the collections find nothing; the
collector runs again once the view is sent, after the reader's wait.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collection_paused() -> Iterator[None]:
    """Automatic collection off inside, as it was after (a collector the user turned off stays off)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
