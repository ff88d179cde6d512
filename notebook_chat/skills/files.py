"""Reading a skill's resource files: only inside its folder, only text, at most ``max_bytes`` at a time.

Refused, each with a :class:`SkillFileError` that says why: an empty path, an absolute path (``/x``, ``C:\\x``,
``\\\\server\\x``), any ``..`` component, a NUL byte, a path that resolves (through a symlink) outside the folder,
a folder, anything that is not a regular file, a missing file, and binary content. A file larger than ``max_bytes``
is cut there and the cut is said in the text.
"""

from __future__ import annotations

import codecs
import os
import stat
from dataclasses import dataclass
from pathlib import Path, PurePosixPath, PureWindowsPath

from .skill import Skill

MAX_READ_BYTES = 64_000
MAX_LISTED_FILES = 500


class SkillFileError(ValueError):
    """A resource path or file the skill machinery refuses (the message is meant for the model)."""


@dataclass(frozen=True)
class SkillFile:
    path: str
    """Relative to the skill folder, with ``/`` separators."""
    size: int


@dataclass(frozen=True)
class FileText:
    text: str
    size: int
    truncated: bool


def list_files(skill: Skill, *, limit: int = MAX_LISTED_FILES) -> tuple[list[SkillFile], bool]:
    """The regular files inside the skill folder (hidden ones and links leaving it skipped) and whether the list
    was cut at ``limit``."""
    root = skill.path.resolve()
    found: list[SkillFile] = []
    for folder, subfolders, names in os.walk(root, followlinks=False):
        subfolders[:] = sorted(name for name in subfolders if not name.startswith("."))
        for name in sorted(names):
            if name.startswith("."):
                continue
            candidate = Path(folder) / name
            target = candidate.resolve()
            if not target.is_relative_to(root):
                continue
            try:
                info = target.stat()
            except OSError:
                continue
            if stat.S_ISREG(info.st_mode):
                found.append(SkillFile(candidate.relative_to(root).as_posix(), info.st_size))
                if len(found) >= limit:
                    return found, True
    return found, False


def resolve_inside(skill: Skill, relative: str) -> Path:
    """The file ``relative`` names inside the skill folder, or a :class:`SkillFileError`."""
    if not isinstance(relative, str) or not relative.strip():
        raise SkillFileError("the path is empty: give a file path relative to the skill folder, e.g. 'SKILL.md'")
    if "\x00" in relative:
        raise SkillFileError("the path contains a NUL byte")
    if PurePosixPath(relative).is_absolute() or PureWindowsPath(relative).is_absolute() or \
            PureWindowsPath(relative).drive or relative.startswith(("\\", "~")):
        raise SkillFileError(f"{relative!r} is an absolute path: give a path relative to the skill folder")
    parts = PureWindowsPath(relative).parts  # splits on both '/' and '\\'
    if ".." in parts:
        raise SkillFileError(f"{relative!r} goes up with '..': only files inside the skill folder can be read")
    root = skill.path.resolve()
    target = (root / PurePosixPath(*[part for part in parts if part not in (".", "")])).resolve()
    if not target.is_relative_to(root):
        raise SkillFileError(f"{relative!r} leads outside the skill folder (through a link): refused")
    if target.is_dir():
        raise SkillFileError(f"{relative!r} is a folder: list the skill's files to see what can be read")
    if not target.exists():
        raise SkillFileError(f"the skill {skill.name!r} has no file {relative!r}")
    if not stat.S_ISREG(target.stat().st_mode):
        raise SkillFileError(f"{relative!r} is not a regular file")
    return target


def read_text(skill: Skill, relative: str, *, max_bytes: int = MAX_READ_BYTES) -> FileText:
    """The text of a resource file (UTF-8), cut at ``max_bytes``."""
    target = resolve_inside(skill, relative)
    size = target.stat().st_size
    with target.open("rb") as file:
        head = file.read(max_bytes)
    truncated = size > len(head)
    if b"\x00" in head:
        raise SkillFileError(f"{relative!r} is a binary file: only text files can be read")
    decoder = codecs.getincrementaldecoder("utf-8")()
    try:
        text = decoder.decode(head, final=not truncated)  # a character cut at the limit is dropped, not an error
    except UnicodeDecodeError:
        raise SkillFileError(f"{relative!r} is not UTF-8 text: only text files can be read") from None
    if text.startswith("\ufeff"):
        text = text[1:]
    return FileText(text=text, size=size, truncated=truncated)
