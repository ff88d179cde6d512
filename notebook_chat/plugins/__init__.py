"""Plugins: tools with approval, skills, Continue, and the engine's default thinking / length plugins."""

from ..engine.builtins import LengthPlugin, ThinkingPlugin
from .continuation import TURN_CONTINUE, ContinuationPlugin, continuation_text, continue_offer
from .skills import SkillPlugin
from .tool_definition import Tool, ToolResult, as_tool, tool
from .tools import TOOL_REJECT, TOOL_RESUME, ToolError, ToolPlugin

__all__ = [
    "TOOL_REJECT", "TOOL_RESUME", "TURN_CONTINUE", "ContinuationPlugin", "LengthPlugin", "SkillPlugin",
    "ThinkingPlugin", "Tool", "ToolError", "ToolPlugin", "ToolResult", "as_tool", "continuation_text",
    "continue_offer", "tool",
]
