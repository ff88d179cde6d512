"""How the DemoModel uses skills (see notebook_chat.plugins.skills), recognized by shape, never by tool name.

- A skill tool is one whose ``skill`` argument lists the skill names (an ``enum``). Skill tools are called only when
  the user's text names one of those skills: the tool with a ``path`` argument when the text also names a file
  (``reference.md``, or anything quoted), the listing tool (its description starts with "List") when the text asks
  for files, and otherwise the activation tool (the one left).
- Active skills reach the model as ``<skill name="...">instructions</skill>`` blocks in the system message; the
  demo's plain answers say which skills they follow and quote each one's first instruction.
"""

from __future__ import annotations

import re
from typing import Any

_FILE = re.compile(r"(?<![\w./-])([\w-]+(?:/[\w.-]+)*\.[A-Za-z0-9]{1,8})(?![\w/])")
_QUOTED = re.compile(r"\"([^\"]+)\"|“([^”]+)”|`([^`]+)`")
_FILES_WORD = re.compile(r"\b(files?|list|contents)\b", re.IGNORECASE)
_SKILL_BLOCK = re.compile(r'<skill name="([^"]+)">\n(.*?)\n</skill>', re.DOTALL)


def skill_enum(function: dict[str, Any]) -> list[str]:
    """The skill names a skill tool accepts ([] for any other tool)."""
    parameters = function.get("parameters") or {}
    prop = (parameters.get("properties") or {}).get("skill") or {}
    names = prop.get("enum") if isinstance(prop, dict) else None
    return [name for name in names if isinstance(name, str)] if isinstance(names, list) else []


def plan_skill_call(text: str, tools: list[dict[str, Any]]) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """The skill tool to call for ``text`` and its arguments, or None (see the module docstring)."""
    lowered = text.lower()
    named: list[tuple[str, dict[str, Any]]] = []
    for function in tools:
        mentioned = [name for name in skill_enum(function) if name.lower() in lowered]
        if mentioned:
            named.append((max(mentioned, key=len), function))
    if not named:
        return None
    file_name = _file_in(text)
    for skill, function in named:
        if file_name and "path" in ((function.get("parameters") or {}).get("properties") or {}):
            return function, {"skill": skill, "path": file_name}
    for skill, function in named:
        if _FILES_WORD.search(text) and str(function.get("description") or "").startswith("List"):
            return function, {"skill": skill}
    for skill, function in named:
        properties = (function.get("parameters") or {}).get("properties") or {}
        if "path" not in properties and not str(function.get("description") or "").startswith("List"):
            return function, {"skill": skill}
    return None


def followed_skills(messages: list[dict[str, Any]]) -> str:
    """A sentence naming the active skills of the request's system message and their first instructions."""
    first = messages[0] if messages else {}
    content = first.get("content") if first.get("role") == "system" else None
    if not isinstance(content, str):
        return ""
    lines = []
    for name, body in _SKILL_BLOCK.findall(content):
        instruction = next((line.strip(" -*#") for line in body.splitlines() if line.strip(" -*#")), "")
        lines.append(f"- **{name}**: {instruction}")
    return "Following the active skills:\n\n" + "\n".join(lines) + "\n\n" if lines else ""


def _file_in(text: str) -> str | None:
    for match in _QUOTED.finditer(text):
        quoted = next(group for group in match.groups() if group)
        if "." in quoted or "/" in quoted:
            return quoted
    found = _FILE.search(text)
    return found.group(1) if found else None
