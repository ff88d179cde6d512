"""notebook_chat: an agent chat inside the Jupyter kernel, next to your data.

``Chat`` (the widget facade) is imported lazily, so ``notebook_chat.engine`` and friends stay free of Jupyter.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._version import __version__
from .plugins.tool_definition import Tool, ToolResult, tool

if TYPE_CHECKING:
    from .widget import Chat

__all__ = ["Chat", "Tool", "ToolResult", "__version__", "tool"]


def load_ipython_extension(shell: Any) -> None:
    """``%load_ext notebook_chat``: the ``%%chat`` and ``%chat`` magics (see ``notebook_chat.widget.magics``)."""
    from .widget import magics

    magics.load_ipython_extension(shell)


def unload_ipython_extension(shell: Any) -> None:
    from .widget import magics

    magics.unload_ipython_extension(shell)


def __getattr__(name: str) -> Any:
    if name == "Chat":
        from .widget import Chat

        return Chat
    raise AttributeError(f"module 'notebook_chat' has no attribute {name!r}")
