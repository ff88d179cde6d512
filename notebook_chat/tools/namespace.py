"""The user's namespace and ``list_variables``: which names are the user's, and a cheap description of each."""

from __future__ import annotations

import builtins
import inspect
import reprlib
from types import ModuleType
from typing import Any

from .kernel_secrets import WITHHELD, is_secret_name

HIDDEN_NAMES = frozenset({"In", "Out", "exit", "quit", "get_ipython"})
"""IPython's own entries in the user namespace."""

ARRAY_LIBRARIES = frozenset({"numpy", "pandas", "polars", "pyarrow", "torch", "tensorflow", "jax", "jaxlib",
                             "xarray", "dask", "cupy", "scipy", "sparse"})
"""Types whose ``shape`` is a cheap attribute (elsewhere ``shape`` may be an expensive property: not read)."""

SIZED_BUILTINS = (str, bytes, bytearray, list, tuple, dict, set, frozenset, range)
MAX_COLUMNS_PREVIEW = 12
PREVIEW_CHARS = 80

_REPR = reprlib.Repr()
_REPR.maxstring = PREVIEW_CHARS
_REPR.maxother = PREVIEW_CHARS
_REPR.maxlist = _REPR.maxtuple = _REPR.maxset = _REPR.maxfrozenset = 6
_REPR.maxdict = 4


def default_namespace() -> dict[str, Any]:
    """IPython's user namespace inside a kernel, else ``__main__.__dict__`` (IPython is imported only here)."""
    try:
        from IPython import get_ipython
    except ImportError:
        shell = None
    else:
        shell = get_ipython()
    if shell is not None:
        user_ns: dict[str, Any] = shell.user_ns
        return user_ns
    import __main__

    main_ns: dict[str, Any] = __main__.__dict__
    return main_ns


def is_user_variable(name: str, value: Any, namespace: dict[str, Any]) -> bool:
    """Public names the user made: no ``_private`` names, modules, IPython entries, or imported functions/classes."""
    if name.startswith("_") or name in HIDDEN_NAMES or isinstance(value, ModuleType):
        return False
    if inspect.isfunction(value):
        return value.__globals__ is namespace  # defined in this namespace, not imported
    if inspect.isbuiltin(value) or type(value).__module__ == "typing":
        return False
    if isinstance(value, type):
        defined_here = value.__module__ == namespace.get("__name__", "builtins")
        return defined_here and value is not getattr(builtins, value.__name__, None)
    return True


def type_name(value: Any) -> str:
    """``int``, ``pandas.DataFrame``, ``numpy.ndarray``; a notebook's own class by its bare name."""
    kind = type(value)
    module = kind.__module__ if isinstance(kind.__module__, str) else ""  # a class may set anything there
    qualname = kind.__qualname__ if isinstance(kind.__qualname__, str) else kind.__name__
    if module in ("builtins", "__main__", ""):
        return qualname
    return f"{module.split('.')[0]}.{qualname}"


def size_of(value: Any) -> str | None:
    """``shape (3, 2)`` or ``len 5`` where that is cheap to know, else None."""
    if isinstance(value, SIZED_BUILTINS):
        return f"len {len(value)}"
    if type(value).__module__.split(".")[0] in ARRAY_LIBRARIES:
        shape = getattr(value, "shape", None)
        if isinstance(shape, tuple):
            return f"shape {shape}"
    return None


def preview(value: Any) -> str:
    """One short line: a DataFrame's columns, an array's dtype, a function's signature, else a cut repr."""
    columns = getattr(value, "columns", None) if type_name(value) == "pandas.DataFrame" else None
    if columns is not None:
        dtypes = value.dtypes
        shown = [f"{column} ({dtypes[column]})" for column in list(columns)[:MAX_COLUMNS_PREVIEW]]
        more = len(columns) - len(shown)
        return "columns: " + ", ".join(shown) + (f", … (+{more} more)" if more > 0 else "")
    is_array = type(value).__module__.split(".")[0] in ARRAY_LIBRARIES and hasattr(value, "dtype")
    if is_array and bool(getattr(value, "ndim", 0)):
        name = getattr(value, "name", None) if type_name(value) == "pandas.Series" else None
        return f"dtype {value.dtype}" + (f", name {name!r}" if name is not None else "")
    if inspect.isfunction(value):
        return f"def {value.__name__}{inspect.signature(value)}"
    if isinstance(value, type):
        return f"class {value.__qualname__}"
    return " ".join(_REPR.repr(value).split())[: PREVIEW_CHARS + 3]


def describe_variable(name: str, value: Any) -> str:
    """``df: pandas.DataFrame, shape (3, 2) — columns: a (int64), b (object)``."""
    try:
        size = size_of(value)
        head = f"{name}: {type_name(value)}" + (f", {size}" if size else "")
        return f"{head} — ({WITHHELD})" if is_secret_name(name) else f"{head} — {preview(value)}"
    except Exception as error:  # a user object whose repr or attributes fail must not hide the others
        return f"{name}: {type_name(value)} — (could not be described: {type(error).__name__}: {error})"


def variables_text(namespace: dict[str, Any]) -> str:
    """The text ``list_variables`` returns: one line per user variable, in definition order."""
    lines = [describe_variable(name, value) for name, value in list(namespace.items())
             if is_user_variable(name, value, namespace)]
    if not lines:
        return "The user's namespace has no variables yet."
    count = f"{len(lines)} variable" + ("s" if len(lines) != 1 else "")
    return f"{count} in the user's namespace:\n" + "\n".join(lines)
