"""Skills: folders of instructions and resources a model can use (see :mod:`notebook_chat.plugins.skills`)."""

from .files import MAX_READ_BYTES, FileText, SkillFile, SkillFileError, list_files, read_text, resolve_inside
from .skill import SKILL_FILE, Skill, SkillError, discover

__all__ = [
    "MAX_READ_BYTES",
    "SKILL_FILE",
    "FileText",
    "Skill",
    "SkillError",
    "SkillFile",
    "SkillFileError",
    "discover",
    "list_files",
    "read_text",
    "resolve_inside",
]
