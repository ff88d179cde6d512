"""Commands a person runs from the widget's "/" menu, added by plugins (a plugin with ``user_commands()``).

A plugin names each command with a description and an async handler that gets the text typed after the name and
returns what the status line says (or None). The engine only collects them (names valid and unique) and runs them;
which names the widget keeps for itself is the widget's business.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass

from .errors import CommandError

NAME = re.compile(r"[A-Za-z][\w.-]{0,39}")
"""A command's name: what follows "/" in the composer (a letter, then letters, digits, "_", "." or "-"; ≤ 40)."""
MAX_DESCRIPTION = 200
MAX_RESULT = 2_000

UserCommandHandler = Callable[[str], Awaitable[str | None]]


@dataclass(frozen=True)
class UserCommand:
    """``description``: one line for the menu; a mapping of language → line ("en", "zh-CN") to follow the widget's
    language (English is the fallback). ``run(argument)``: what the status line says afterwards (None: nothing)."""

    description: str | Mapping[str, str]
    run: UserCommandHandler

    def describe(self, locale: str | None) -> str:
        if isinstance(self.description, str):
            return self.description
        wanted = [locale, "zh-CN" if (locale or "").lower().startswith("zh") else None, "en"]
        for tag in wanted:
            if tag and tag in self.description:
                return self.description[tag]
        return next(iter(self.description.values()))


class UserCommands:
    """Every plugin's user commands, by name (unique across plugins)."""

    def __init__(self) -> None:
        self._commands: dict[str, tuple[str, UserCommand]] = {}

    def register(self, owner: str, commands: Mapping[str, UserCommand]) -> None:
        for name, command in commands.items():
            _check(owner, name, command)
            if name in self._commands:
                first = self._commands[name][0]
                raise CommandError(f"user command /{name} is added twice (by {first!r} and {owner!r})")
            self._commands[name] = (owner, command)

    def names(self) -> list[str]:
        return sorted(self._commands)

    def get(self, name: str) -> UserCommand | None:
        entry = self._commands.get(name)
        return entry[1] if entry else None

    def listing(self, locale: str | None = None) -> list[dict[str, str]]:
        """``[{"name", "description"}]`` sorted by name (the widget's menu)."""
        return [{"name": name, "description": self._commands[name][1].describe(locale)} for name in self.names()]

    async def run(self, name: str, argument: str) -> str | None:
        """Run a command; an unknown name is a ``CommandError``, so is a handler that returns something else than
        a string or None. A long result is cut to ``MAX_RESULT`` characters."""
        command = self.get(name)
        if command is None:
            raise CommandError(f"unknown user command /{name} (added: {', '.join(self.names()) or 'none'})")
        result = await command.run(argument)
        if result is not None and not isinstance(result, str):
            raise CommandError(f"user command /{name} returned {type(result).__name__}, expected a str or None")
        return result[:MAX_RESULT] if result else None


def _check(owner: str, name: object, command: object) -> None:
    if not isinstance(name, str) or not NAME.fullmatch(name):
        raise CommandError(f"{owner}: {name!r} is not a command name (a letter, then letters, digits, _ . -; "
                           "at most 40)")
    if not isinstance(command, UserCommand):
        raise CommandError(f"{owner}: /{name} must be a UserCommand, got {type(command).__name__}")
    texts = [command.description] if isinstance(command.description, str) else (
        list(command.description.values()) if isinstance(command.description, Mapping) else [None])
    if not texts or not all(isinstance(text, str) and text.strip() and len(text) <= MAX_DESCRIPTION
                            for text in texts):
        raise CommandError(f"{owner}: /{name} needs a description (one line of at most {MAX_DESCRIPTION} characters)")
    if not callable(command.run):
        raise CommandError(f"{owner}: /{name}'s run is not callable")
