"""A plugin's declarative state travels in the conversation record under its name and comes back on load."""

from __future__ import annotations

import json
from typing import Any

from notebook_chat.engine import MessageEngine, Plugin, PluginContext
from notebook_chat.engine.plugin import StatefulPlugin
from notebook_chat.testing.scripted import ScriptedProvider


class Counter(Plugin):
    name = "counter"

    def __init__(self, state: dict[str, Any] | None) -> None:
        self.state = state
        self.restored: Any = "not loaded"

    def on_load(self, ctx: PluginContext) -> None:
        self.restored = ctx.restored_state

    def export_state(self, ctx: PluginContext) -> dict[str, Any] | None:
        return self.state


def test_a_plugin_with_export_state_is_a_stateful_plugin_and_one_without_is_not() -> None:
    assert isinstance(Counter(None), StatefulPlugin)
    assert not isinstance(Plugin(), StatefulPlugin)


def test_exported_state_is_kept_under_the_plugins_name_and_handed_back_to_that_plugin_on_load() -> None:
    record = MessageEngine(ScriptedProvider(), plugins=[Counter({"n": 3})]).export_record()
    assert record["plugins"] == {"counter": {"n": 3}}
    again = Counter(None)
    MessageEngine(ScriptedProvider(), plugins=[again]).load(json.loads(json.dumps(record)))
    assert again.restored == {"n": 3}


def test_a_record_without_plugin_state_has_no_plugins_field_and_loads_as_none() -> None:
    record = MessageEngine(ScriptedProvider(), plugins=[Counter(None)]).export_record()
    assert "plugins" not in record
    again = Counter(None)
    MessageEngine(ScriptedProvider(), plugins=[again]).load(record)
    assert again.restored is None


def test_a_plugins_field_that_is_not_an_object_is_ignored() -> None:
    record = MessageEngine(ScriptedProvider()).export_record()
    record["plugins"] = ["not", "an", "object"]
    again = Counter(None)
    MessageEngine(ScriptedProvider(), plugins=[again]).load(record)
    assert again.restored is None
