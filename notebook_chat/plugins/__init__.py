"""Plugins: tools with approval, skills, Continue, and the thinking / length plugins the Chat facade installs by
default."""

from .continuation import TURN_CONTINUE, ContinuationPlugin, continuation_text, continue_offer
from .length import LengthPlugin
from .skills import SkillPlugin
from .thinking import ThinkingPlugin
from .tool_definition import Tool, ToolResult, as_tool, tool
from .tools import TOOL_REJECT, TOOL_RESUME, ToolError, ToolPlugin

__all__ = [
    "TOOL_REJECT", "TOOL_RESUME", "TURN_CONTINUE", "ContinuationPlugin", "LengthPlugin", "SkillPlugin",
    "ThinkingPlugin", "Tool", "ToolError", "ToolPlugin", "ToolResult", "as_tool", "continuation_text",
    "continue_offer", "tool",
]
