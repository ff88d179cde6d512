"""The command bus: plugins register named commands; names are unique."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from .errors import CommandError

CommandResult = dict[str, Any]
CommandHandler = Callable[[dict[str, Any]], Awaitable[CommandResult]]


class CommandBus:
    def __init__(self) -> None:
        self._handlers: dict[str, tuple[str, CommandHandler]] = {}

    def register(self, owner: str, commands: Mapping[str, CommandHandler]) -> None:
        for name, handler in commands.items():
            if name in self._handlers:
                first = self._handlers[name][0]
                raise CommandError(f"command {name!r} is registered twice (by {first!r} and {owner!r})")
            self._handlers[name] = (owner, handler)

    def names(self) -> list[str]:
        return sorted(self._handlers)

    async def dispatch(self, name: str, payload: Mapping[str, Any] | None) -> CommandResult:
        entry = self._handlers.get(name)
        if entry is None:
            known = ", ".join(self.names()) or "none"
            raise CommandError(f"unknown command {name!r} (registered: {known})")
        result = await entry[1](dict(payload or {}))
        if not isinstance(result, dict):
            raise CommandError(f"command {name!r} returned {type(result).__name__}, expected a dict")
        return result
