"""Kernel-aware tools: ``Chat(tools=notebook_chat.tools.kernel())`` lets the model see and (with approval) work on
the user's live variables; ``mcp(...)`` adds a Model Context Protocol server's tools. Importing this package imports
neither IPython, pandas, matplotlib nor the MCP SDK."""

from __future__ import annotations

from .deadline import TimeLimitExceeded
from .kernel import kernel
from .mcp_server import MCPServer, mcp
from .rich import TRUNCATION_NOTE, tool_result

__all__ = ["TRUNCATION_NOTE", "MCPServer", "TimeLimitExceeded", "kernel", "mcp", "tool_result"]
