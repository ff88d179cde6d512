"""What the kernel knows about where a cell runs. Every lookup degrades to None outside IPython."""

from __future__ import annotations

from typing import Any


def current_cell_id() -> str | None:
    """The id of the cell being executed (JupyterLab and Notebook 7 send it with each execute request)."""
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    shell = get_ipython()
    kernel = getattr(shell, "kernel", None)
    if kernel is None:
        return None
    try:
        parent: Any = kernel.get_parent()
    except Exception:
        return None
    metadata = (parent or {}).get("metadata") or {}
    cell_id = metadata.get("cellId")
    return cell_id if isinstance(cell_id, str) and cell_id else None
