"""A skill: a folder with ``SKILL.md`` (YAML front matter ``name`` and ``description``; the body is the instructions)
and any other files the model may read (references, templates, scripts shown as text — never executed here)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import yaml

SKILL_FILE = "SKILL.md"
MAX_SKILL_FILE_BYTES = 256_000
MAX_DESCRIPTION_CHARS = 1024
NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
_FRONT_MATTER = re.compile(r"\A---[ \t]*\r?\n(.*?)^---[ \t]*(?:\r?\n|\Z)", re.DOTALL | re.MULTILINE)


class SkillError(ValueError):
    """A skill can't be loaded; the message names the file (and the field) at fault."""


@dataclass(frozen=True)
class Skill:
    name: str
    description: str
    instructions: str
    """The body of ``SKILL.md`` after the front matter."""
    path: Path
    """The skill's folder (resolved); every resource read stays inside it."""
    metadata: Mapping[str, Any] = field(default_factory=dict, compare=False)
    """Front-matter fields other than name and description (license, version, ...), kept as read."""

    @classmethod
    def load(cls, path: str | PathLike[str]) -> Skill:
        """Load the skill in folder ``path`` (or from ``path`` itself when it names a ``SKILL.md``)."""
        given = Path(path).expanduser()
        folder = given.parent if given.name == SKILL_FILE and given.is_file() else given
        if not folder.is_dir():
            raise SkillError(f"{given}: no such skill folder")
        skill_file = folder / SKILL_FILE
        if not skill_file.is_file():
            raise SkillError(f"{skill_file}: missing (a skill folder needs a {SKILL_FILE})")
        return cls._parse(skill_file, folder.resolve())

    @classmethod
    def _parse(cls, skill_file: Path, folder: Path) -> Skill:
        raw = skill_file.read_bytes()
        if len(raw) > MAX_SKILL_FILE_BYTES:
            raise SkillError(f"{skill_file}: {len(raw)} bytes, at most {MAX_SKILL_FILE_BYTES} are allowed")
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError as error:
            raise SkillError(f"{skill_file}: not UTF-8 text ({error.reason} at byte {error.start})") from None
        match = _FRONT_MATTER.match(text)
        if match is None:
            raise SkillError(f"{skill_file}: must start with YAML front matter between two '---' lines "
                             "(with the fields name and description)")
        import yaml  # here: PyYAML is imported only once a skill is read, not with the chat

        try:
            front = yaml.safe_load(match.group(1))
        except yaml.YAMLError as error:
            raise SkillError(f"{skill_file}: the front matter is not valid YAML: {_yaml_problem(error)}") from None
        if not isinstance(front, dict):
            kind = "empty" if front is None else f"a {type(front).__name__}"
            raise SkillError(f"{skill_file}: the front matter must be a mapping with name and description, "
                             f"got {kind}")
        name = _text_field(skill_file, front, "name")
        if not NAME_PATTERN.match(name):
            raise SkillError(f"{skill_file}: field 'name' must be 1-64 letters, digits, '.', '_' or '-' "
                             f"(starting with a letter or digit), got {name!r}")
        description = _text_field(skill_file, front, "description")
        if len(description) > MAX_DESCRIPTION_CHARS:
            raise SkillError(f"{skill_file}: field 'description' has {len(description)} characters, at most "
                             f"{MAX_DESCRIPTION_CHARS} are allowed")
        instructions = text[match.end():].strip()
        extra = {str(key): value for key, value in front.items() if key not in ("name", "description")}
        return cls(name=name, description=description, instructions=instructions, path=folder, metadata=extra)

    @property
    def exists(self) -> bool:
        """True while the folder still holds its ``SKILL.md`` (a skill may vanish from disk after loading)."""
        return (self.path / SKILL_FILE).is_file()


def discover(folder: str | PathLike[str]) -> list[Skill]:
    """Every skill in the immediate subfolders of ``folder`` that hold a ``SKILL.md``, sorted by name."""
    root = Path(folder).expanduser()
    if not root.is_dir():
        raise SkillError(f"{root}: no such folder of skills")
    skills = [Skill.load(sub) for sub in sorted(root.iterdir()) if sub.is_dir() and (sub / SKILL_FILE).is_file()]
    seen: dict[str, Skill] = {}
    for skill in skills:
        if skill.name in seen:
            raise SkillError(f"{skill.path / SKILL_FILE}: the name {skill.name!r} is already used by "
                             f"{seen[skill.name].path / SKILL_FILE}")
        seen[skill.name] = skill
    return sorted(skills, key=lambda skill: skill.name)


def _text_field(skill_file: Path, front: dict[Any, Any], key: str) -> str:
    if key not in front:
        raise SkillError(f"{skill_file}: field {key!r} is missing from the front matter")
    value = front[key]
    if not isinstance(value, str):
        raise SkillError(f"{skill_file}: field {key!r} must be a string, got {type(value).__name__}")
    value = value.strip()
    if not value:
        raise SkillError(f"{skill_file}: field {key!r} is empty")
    return value


def _yaml_problem(error: yaml.YAMLError) -> str:
    mark = getattr(error, "problem_mark", None)
    problem = getattr(error, "problem", None) or str(error)
    if mark is not None:
        return f"{problem} (line {mark.line + 2}, column {mark.column + 1} of the file)"
    return str(problem)
