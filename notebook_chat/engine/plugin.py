"""The plugin protocol: hooks on a fixed grid, each a no-op by default.

Order and concurrency are part of the contract:

- ``on_init(ctx)``           sync, once, at construction. Returning a value (or an awaitable) is an error.
- ``on_load(ctx)``           sync, once per ``engine.load(record)`` (a stored conversation replaced the engine's, in
                             place); ``ctx.restored_paused_turn`` is the record's paused turn (untrusted). Rebuild
                             what can't be serialized; may use the context's setters (``restore_paused_turn``,
                             ``set_notice``). Returning a value is an error.
- ``on_turn_start(ctx)``     serial, once per new turn (not on resume).
- ``on_before_request(ctx)`` serial, before every provider request; ``ctx.body`` is the request to edit.
- ``on_completion_chunk(ctx, chunk)`` sync, in order, per streamed chunk (keep it O(1): use ``chunk``).
- ``on_after_request(ctx)``  concurrent (all plugins at once), after each complete reply.
- ``on_turn_pause`` / ``on_turn_resume`` / ``on_turn_abort`` / ``on_turn_end``  serial.
- ``on_error(ctx, error)``   serial; the original error is still raised to the caller.
- ``on_finally(ctx)``        sync, after every turn ends (completed, aborted or failed) and after a pause.

Serial hooks run by ``priority`` (higher first), then registration order. Commands come from ``commands()``.

Capabilities one part looks for on a plugin are declared below as protocols: :class:`ToolProvider` (ToolPlugin asks
every plugin that has it for tools), :class:`UserCommandProvider` (commands for the widget's "/" menu, collected at
construction) and :class:`PausedTurnExporter` (the engine asks it for the paused-turn snapshot of ``export_record``).

A plugin that keeps declarative state in the conversation record implements :class:`StatefulPlugin`: the record
holds ``{"plugins": {name: export_state(ctx)}}`` and a loaded record hands the entry back as ``ctx.restored_state``
inside ``on_load`` (untrusted JSON: validate it).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from .commands import CommandHandler
    from .context import PluginContext
    from .conversation import PausedTurn
    from .user_commands import UserCommand

HOOKS: tuple[str, ...] = (
    "on_init", "on_load", "on_turn_start", "on_before_request", "on_completion_chunk", "on_after_request",
    "on_turn_pause", "on_turn_resume", "on_turn_abort", "on_turn_end", "on_error", "on_finally",
)


class Plugin:
    name: str = "plugin"
    priority: int = 0

    def commands(self) -> Mapping[str, CommandHandler]:
        return {}

    def on_init(self, ctx: PluginContext) -> None:
        return None

    def on_load(self, ctx: PluginContext) -> None:
        return None

    async def on_turn_start(self, ctx: PluginContext) -> None:
        return None

    async def on_before_request(self, ctx: PluginContext) -> None:
        return None

    def on_completion_chunk(self, ctx: PluginContext, chunk: dict[str, Any]) -> None:
        return None

    async def on_after_request(self, ctx: PluginContext) -> None:
        return None

    async def on_turn_pause(self, ctx: PluginContext) -> None:
        return None

    async def on_turn_resume(self, ctx: PluginContext) -> None:
        return None

    async def on_turn_abort(self, ctx: PluginContext) -> None:
        return None

    async def on_turn_end(self, ctx: PluginContext) -> None:
        return None

    async def on_error(self, ctx: PluginContext, error: BaseException) -> None:
        return None

    def on_finally(self, ctx: PluginContext) -> None:
        return None


@runtime_checkable
class ToolProvider(Protocol):
    """A plugin that contributes tools; ToolPlugin offers them to the model and runs them like its own."""

    def provide_tools(self, ctx: PluginContext) -> Iterable[Any]:
        """Tools (``Tool`` objects or ``@tool`` functions) available now; called before each request and run."""
        ...


@runtime_checkable
class UserCommandProvider(Protocol):
    """A plugin that adds commands to the widget's "/" menu: ``{name: UserCommand(description, run)}``; ``run``
    gets the text typed after the name and returns what the status line says (never a chat message)."""

    def user_commands(self) -> Mapping[str, UserCommand]: ...


@runtime_checkable
class PausedTurnExporter(Protocol):
    """The plugin that knows what a paused turn awaits (ToolPlugin); the engine stores its snapshot."""

    def export_paused_turn(self, ctx: PluginContext) -> PausedTurn | None: ...


def overrides(plugin: Plugin, hook: str) -> bool:
    """True when the plugin implements ``hook`` itself (the engine skips no-op defaults on hot paths)."""
    return getattr(type(plugin), hook) is not getattr(Plugin, hook)


@runtime_checkable
class StatefulPlugin(Protocol):
    """A plugin whose declarative state (JSON) is kept in the conversation record under its name."""

    name: str

    def export_state(self, ctx: PluginContext) -> dict[str, Any] | None: ...
