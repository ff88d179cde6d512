"""A small real MCP server for the tests, written with the SDK's server API (FastMCP).

``python mcp_demo_server.py`` serves stdio; ``python mcp_demo_server.py http PORT`` serves streamable HTTP on
127.0.0.1:PORT. ``DEMO_TOOLS=add,shout`` limits which tools it offers (a server "after an update").
"""

from __future__ import annotations

import os
import struct
import sys
import zlib

from mcp.server.fastmcp import FastMCP, Image


def tiny_png() -> bytes:
    """A 2x1 red-and-blue PNG, made by hand (no imaging library needed)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    pixels = b"\x00" + b"\xff\x00\x00" + b"\x00\x00\xff"
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 2, 1, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(pixels)) + chunk(b"IEND", b""))


def add(a: int, b: int) -> str:
    """Add two integers."""
    return f"{a} + {b} = {a + b}"


def shout(text: str) -> str:
    """Say the text loudly."""
    return text.upper() + "!"


def chart() -> Image:
    """A small chart as a PNG image."""
    return Image(data=tiny_png(), format="png")


def fail() -> str:
    """Always fails."""
    raise ValueError("the demo tool failed on purpose")


def crash() -> str:
    """The server process dies in the middle of this call."""
    sys.stdout.flush()
    os._exit(3)


TOOLS = (add, shout, chart, fail, crash)


def build(port: int) -> FastMCP:
    server = FastMCP("demo", host="127.0.0.1", port=port)
    offered = set(filter(None, os.environ.get("DEMO_TOOLS", "").split(",")))
    for function in TOOLS:
        if not offered or function.__name__ in offered:
            server.tool()(function)
    return server


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "http":
        build(int(sys.argv[2])).run(transport="streamable-http")
    else:
        build(0).run()
