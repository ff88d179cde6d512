"""Plugins every engine has unless a plugin of the same name replaces them."""

from __future__ import annotations

from ..plugin import Plugin
from .length import LengthPlugin
from .thinking import ThinkingPlugin


def default_plugins() -> list[Plugin]:
    return [ThinkingPlugin(), LengthPlugin()]


__all__ = ["LengthPlugin", "ThinkingPlugin", "default_plugins"]
