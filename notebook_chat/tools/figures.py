"""Matplotlib figures made by ``run_python``: found, rendered to PNG (base64) and closed.

Nothing here imports matplotlib: figures can only exist if the user's code imported it already.
"""

from __future__ import annotations

import base64
import io
import struct
import sys
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class RenderedFigure:
    png_base64: str
    width: int
    height: int


def open_figure_numbers() -> set[int]:
    """The pyplot figures open right now (none when pyplot was never imported)."""
    pyplot = sys.modules.get("matplotlib.pyplot")
    return set(pyplot.get_fignums()) if pyplot is not None else set()


def is_figure(value: Any) -> bool:
    module = sys.modules.get("matplotlib.figure")
    return module is not None and isinstance(value, module.Figure)


def is_plot_object(value: Any) -> bool:
    """A Figure, an Axes, a Line2D or a list of them: what plotting calls return, shown as the image instead."""
    if isinstance(value, (list, tuple)):
        return bool(value) and all(is_plot_object(item) for item in value)
    return type(value).__module__.split(".")[0] == "matplotlib"


def take_new_figures(before: set[int], last_value: Any = None) -> list[RenderedFigure | str]:
    """Render and close the pyplot figures opened since ``before``, plus ``last_value`` if it is a Figure.

    A figure that fails to render becomes a one-line error text instead.
    """
    pyplot = sys.modules.get("matplotlib.pyplot")
    figures: list[Any] = []
    if pyplot is not None:
        figures = [pyplot.figure(number) for number in pyplot.get_fignums() if number not in before]
    if is_figure(last_value) and all(last_value is not figure for figure in figures):
        figures.append(last_value)
    rendered = [_render(figure) for figure in figures]
    if pyplot is not None:
        for figure in figures:
            pyplot.close(figure)
    return rendered


def _render(figure: Any) -> RenderedFigure | str:
    buffer = io.BytesIO()
    try:
        figure.savefig(buffer, format="png")
    except Exception as error:  # a broken plot must not hide the rest of the result
        return f"[a figure could not be rendered: {type(error).__name__}: {error}]"
    data = buffer.getvalue()
    width, height = struct.unpack(">II", data[16:24])  # the PNG IHDR chunk
    return RenderedFigure(base64.b64encode(data).decode("ascii"), width, height)


def summary(figures: list[RenderedFigure]) -> str:
    """``[1 figure: 640x480 PNG shown to the user]``."""
    count = f"{len(figures)} figure" + ("s" if len(figures) != 1 else "")
    sizes = ", ".join(f"{figure.width}x{figure.height}" for figure in figures)
    return f"[{count}: {sizes} PNG shown to the user]"
