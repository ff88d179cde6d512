"""SkillPlugin: the active skills' instructions in every request, and their files through ToolPlugin's providers.

Modes: ``manual`` (the user selects skills: ``select`` / ``deselect``, or the widget's chips), ``auto`` (the model
sees every skill's name and description and activates one with the activation tool), ``always`` (every skill given
is active).

The selection is declarative JSON state, kept in three places: ``active`` here; the turn's custom context under
``CONTEXT_KEY`` (so a paused turn's snapshot carries it); the conversation record (``export_state``). What can't be
serialized — the tools — is rebuilt from it for every request (``provide_tools``). On a load the selection comes
back from the paused turn's context, else from the record, else (when none survived) from the awaiting resource
calls' own ``skill`` argument. An awaiting call whose skill is gone can't run (``unavailable``, with a message);
Deny still works.

The tool names are the constants below and nothing else: schemas, ``provide_tools`` and restore read them when
they run, so renaming one here renames it everywhere.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from os import PathLike
from pathlib import Path
from typing import Any, Literal, get_args

from ..engine import Message, Plugin, PluginContext
from ..engine.conversation import awaiting_calls, message_turn_id
from ..engine.notices import Notice
from ..skills import (
    MAX_READ_BYTES,
    SKILL_FILE,
    Skill,
    SkillError,
    SkillFileError,
    discover,
    list_files,
    read_text,
)
from .tool_definition import Tool, ToolResult

LIST_SKILL_FILES = "list_skill_files"
READ_SKILL_FILE = "read_skill_file"
ACTIVATE_SKILL = "activate_skill"
SKILL_ARGUMENT = "skill"
"""The argument of every skill tool that names the skill (the restore reads it from an awaiting call)."""
CONTEXT_KEY = "skills"
"""Where the turn's custom context keeps ``{"active": [names]}``."""
MAX_STORED_NAMES = 256

SkillMode = Literal["manual", "auto", "always"]
MODES: tuple[str, ...] = get_args(SkillMode)
SkillSource = Skill | str | PathLike[str]


def resource_tool_names() -> tuple[str, str]:
    """The names of the resource tools, as they are now."""
    return LIST_SKILL_FILES, READ_SKILL_FILE


def load_skills(sources: Iterable[SkillSource]) -> list[Skill]:
    """Skills from ``Skill`` objects, skill folders, or folders whose subfolders are skills; names must be unique."""
    skills: list[Skill] = []
    for source in sources:
        if isinstance(source, Skill):
            skills.append(source)
            continue
        path = Path(source).expanduser()
        if path.is_dir() and not (path / SKILL_FILE).exists() and any(path.glob(f"*/{SKILL_FILE}")):
            skills.extend(discover(path))
        else:
            skills.append(Skill.load(path))
    seen: dict[str, Skill] = {}
    for skill in skills:
        if skill.name in seen and seen[skill.name].path != skill.path:
            raise SkillError(f"{skill.path / SKILL_FILE}: the name {skill.name!r} is already used by "
                             f"{seen[skill.name].path / SKILL_FILE}")
        seen[skill.name] = skill
    return list(seen.values())


class SkillPlugin(Plugin):
    name = "skills"
    priority = 5
    """Below ToolPlugin's: when a paused turn is restored, ToolPlugin has restored its context first."""

    def __init__(self, skills: Iterable[SkillSource] = (), *, mode: SkillMode = "manual",
                 approve_reads: bool = False, max_read_bytes: int = MAX_READ_BYTES) -> None:
        if mode not in MODES:
            raise ValueError(f"skill_mode must be one of {', '.join(MODES)}, got {mode!r}")
        if max_read_bytes < 1:
            raise ValueError(f"max_read_bytes must be at least 1, got {max_read_bytes}")
        self._skills = {skill.name: skill for skill in load_skills(skills)}
        self.mode: SkillMode = mode
        self.approve_reads = approve_reads
        self.max_read_bytes = max_read_bytes
        self._active: list[str] = list(self._skills) if mode == "always" else []
        self._pinned: set[str] = set()
        """Skills named by the awaiting resource calls of a restored paused turn: their calls may still run."""
        self._ctx: PluginContext | None = None

    # -- the selection ------------------------------------------------------------------------------------------
    @property
    def available(self) -> list[str]:
        return list(self._skills)

    @property
    def active(self) -> list[str]:
        return list(self._active)

    def skill(self, name: str) -> Skill:
        try:
            return self._skills[name]
        except KeyError:
            raise ValueError(Notice("skills.unknown", name=name, available=self._listing())) from None

    def select(self, *names: str) -> list[str]:
        """Turn skills on (from the next request on); returns the active names."""
        for name in names:
            self.skill(name)
        self._set_active([*self._active, *names])
        return self.active

    def deselect(self, *names: str) -> list[str]:
        """Turn skills off (from the next request on); returns the active names."""
        if self.mode == "always" and names:
            raise ValueError(Notice("skills.always"))
        for name in names:
            self.skill(name)
        self._set_active([name for name in self._active if name not in names])
        return self.active

    def _set_active(self, names: Iterable[str]) -> None:
        self._active = list(dict.fromkeys(name for name in names if name in self._skills))
        if self._ctx is not None:
            self._ctx.custom_context[CONTEXT_KEY] = {"active": self.active}
            self._ctx.notify()

    def _listing(self) -> str:
        return ", ".join(self._skills) or "none"

    # -- hooks ------------------------------------------------------------------------------------------------
    def on_init(self, ctx: PluginContext) -> None:
        self._ctx = ctx

    def on_load(self, ctx: PluginContext) -> None:
        self.restore(ctx)

    def restore(self, ctx: PluginContext) -> None:
        """Rebuild the selection from what a loaded conversation kept (see the module docstring)."""
        awaiting = _awaiting_resource_skills(ctx) if ctx.state.is_paused else []
        self._pinned = set(awaiting)
        if self.mode == "always":
            stored: list[str] | None = list(self._skills)
        else:
            stored = _stored_names(ctx.custom_context.get(CONTEXT_KEY)) if ctx.state.is_paused else None
            if stored is None:
                stored = _stored_names(ctx.restored_state)
            if stored is None and awaiting:
                stored = awaiting
        if stored is not None:
            self._active = list(dict.fromkeys(name for name in stored if name in self._skills))
            if ctx.state.is_paused:
                ctx.custom_context[CONTEXT_KEY] = {"active": self.active}

    async def on_turn_start(self, ctx: PluginContext) -> None:
        self._pinned = set()
        ctx.custom_context[CONTEXT_KEY] = {"active": self.active}

    async def on_before_request(self, ctx: PluginContext) -> None:
        ctx.custom_context[CONTEXT_KEY] = {"active": self.active}
        text = self.instructions()
        if text:
            messages = ctx.body.get("messages", ctx.messages)
            ctx.body["messages"] = with_system_text(messages, text)

    async def on_turn_end(self, ctx: PluginContext) -> None:
        self._pinned = set()

    async def on_turn_abort(self, ctx: PluginContext) -> None:
        self._pinned = set()

    def export_state(self, ctx: PluginContext) -> dict[str, Any] | None:
        return {"active": self.active} if self._skills else None

    # -- what the model sees ----------------------------------------------------------------------------------
    def instructions(self) -> str:
        """The text added to the system message of each request ('' when nothing is active or offered)."""
        parts: list[str] = []
        if self._active:
            parts.append(
                "# Skills\nThe skills below are active: follow their instructions. List a skill's files with "
                f"`{LIST_SKILL_FILES}` and read one with `{READ_SKILL_FILE}` when its instructions point to them.")
            for name in self._active:
                skill = self._skills[name]
                parts.append(f'<skill name="{skill.name}">\n{skill.instructions}\n</skill>')
        offered = [skill for name, skill in self._skills.items() if name not in self._active]
        if self.mode == "auto" and offered:
            listing = "".join(f"\n- {skill.name}: {skill.description}" for skill in offered)
            parts.append(f"Skills you can activate with `{ACTIVATE_SKILL}` when the task matches one:{listing}")
        return "\n\n".join(parts)

    def provide_tools(self, ctx: PluginContext) -> list[Tool]:
        tools: list[Tool] = []
        if self.mode == "auto" and self._skills:
            tools.append(self._activation_tool())
        if self._active or self._pinned:
            tools.extend(self._resource_tools())
        return tools

    def _skill_property(self, names: Sequence[str]) -> dict[str, Any]:
        schema: dict[str, Any] = {"type": "string", "description": "The skill's name."}
        if names:
            schema["enum"] = list(names)
        return schema

    def _resource_tools(self) -> list[Tool]:
        scope = [name for name in self._skills if name in self._active or name in self._pinned]
        skill = self._skill_property(scope)
        list_tool = Tool(
            name=LIST_SKILL_FILES,
            description="List the files of an active skill: paths relative to its folder, with their sizes.",
            parameters={"type": "object", "properties": {SKILL_ARGUMENT: skill}, "required": [SKILL_ARGUMENT]},
            function=self._list_files, approval=self.approve_reads, unavailable=self._call_unavailable)
        read_tool = Tool(
            name=READ_SKILL_FILE,
            description="Read a text file of an active skill (a reference, a template) by its path inside the "
                        f"skill's folder; long files are cut at {self.max_read_bytes} bytes.",
            parameters={"type": "object", "required": [SKILL_ARGUMENT, "path"], "properties": {
                SKILL_ARGUMENT: skill,
                "path": {"type": "string", "description": "Relative to the skill's folder, e.g. 'reference.md'."},
            }},
            function=self._read_file, approval=self.approve_reads, unavailable=self._call_unavailable)
        return [list_tool, read_tool]

    def _activation_tool(self) -> Tool:
        return Tool(
            name=ACTIVATE_SKILL,
            description="Activate a skill whose description matches the task: its instructions apply from the "
                        "next request on.",
            parameters={"type": "object", "required": [SKILL_ARGUMENT],
                        "properties": {SKILL_ARGUMENT: self._skill_property(list(self._skills))}},
            function=self._activate)

    # -- the tools ----------------------------------------------------------------------------------------------
    def _activate(self, skill: str) -> ToolResult:
        found = self._skills.get(skill)
        if found is None or not found.exists:
            return ToolResult.failure(f"no skill named {skill!r} can be activated (available: {self._listing()})")
        already = skill in self._active
        self._set_active([*self._active, skill])
        state = "was already active" if already else "is active now"
        return ToolResult(f"The skill {skill!r} {state}: its instructions are in the system message from the next "
                          f"request on. Its files: `{LIST_SKILL_FILES}`, `{READ_SKILL_FILE}`.")

    def _list_files(self, skill: str) -> ToolResult:
        found = self._in_scope(skill)
        if isinstance(found, ToolResult):
            return found
        files, cut = list_files(found)
        lines = [f"- {entry.path} ({entry.size} bytes)" for entry in files]
        more = f"\n[only the first {len(files)} files are listed]" if cut else ""
        return ToolResult(f"Files of the skill {skill!r} ({len(files)}):\n" + "\n".join(lines) + more)

    def _read_file(self, skill: str, path: str) -> ToolResult:
        found = self._in_scope(skill)
        if isinstance(found, ToolResult):
            return found
        try:
            text = read_text(found, path, max_bytes=self.max_read_bytes)
        except SkillFileError as error:
            return ToolResult.failure(str(error))
        except OSError as error:
            return ToolResult.failure(f"{path!r} can't be read: {error.strerror or error}")
        if text.truncated:
            return ToolResult(f"{text.text}\n\n[truncated: the first {self.max_read_bytes} of {text.size} bytes of "
                              f"{path!r} are shown]")
        return ToolResult(text.text)

    def _in_scope(self, name: str) -> Skill | ToolResult:
        problem = self._missing(name)
        if problem:
            return ToolResult.failure(str(problem))  # the model reads the English sentence
        if name not in self._active and name not in self._pinned:
            return ToolResult.failure(f"the skill {name!r} is not active (active: {', '.join(self._active) or 'none'})")
        return self._skills[name]

    def _missing(self, name: Any) -> str | None:
        skill = self._skills.get(name) if isinstance(name, str) else None
        if skill is None:
            return Notice("skills.missing", name=name, available=self._listing())
        if not skill.exists:
            return Notice("skills.gone", name=name, path=skill.path / SKILL_FILE)
        return None

    def _call_unavailable(self, arguments: str) -> str | None:
        return self._missing(_skill_argument(arguments))


def with_system_text(messages: Sequence[Message], text: str) -> list[Message]:
    """The messages with ``text`` appended to the leading system message (or in a new one): a request-only copy."""
    result = list(messages)
    if result and result[0].get("role") == "system":
        content = result[0].get("content")
        joined = f"{content}\n\n{text}" if isinstance(content, str) and content else text
        result[0] = {**result[0], "content": joined}
    else:
        result.insert(0, {"role": "system", "content": text})
    return result


def _stored_names(value: Any) -> list[str] | None:
    """``{"active": [names]}`` from untrusted JSON, or None when it isn't that shape."""
    if not isinstance(value, dict):
        return None
    names = value.get("active")
    if not isinstance(names, list) or len(names) > MAX_STORED_NAMES:
        return None
    return [name for name in names if isinstance(name, str)]


def _skill_argument(arguments: Any) -> str | None:
    try:
        parsed = json.loads(arguments) if isinstance(arguments, str) else arguments
    except ValueError:
        return None
    value = parsed.get(SKILL_ARGUMENT) if isinstance(parsed, dict) else None
    return value if isinstance(value, str) else None


def _awaiting_resource_skills(ctx: PluginContext) -> list[str]:
    """The skills named by the paused turn's awaiting resource calls (their own arguments), in call order."""
    names = resource_tool_names()
    found: list[str] = []
    turn = [m for m in ctx.messages if m.get("role") == "assistant" and message_turn_id(m) == ctx.turn_id]
    for _, call in awaiting_calls(reversed(turn)):
        if call["function"]["name"] in names:
            skill = _skill_argument(call["function"]["arguments"])
            if skill is not None and skill not in found:
                found.append(skill)
    return found
