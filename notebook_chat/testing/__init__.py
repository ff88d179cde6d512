"""Test doubles shipped with the package, so users can test their own tools and plugins too."""

from .collect import Collected, collect
from .fake_openai import FakeOpenAIServer, RecordedRequest
from .openai_replies import (
    ConnectionReset,
    HttpError,
    Reasoning,
    Reply,
    Stall,
    StreamEnds,
    StreamError,
    Text,
    ToolCallFragment,
    ToolCallSpec,
)
from .scripted import ScriptedProvider, ScriptedReply

__all__ = [
    "Collected",
    "ConnectionReset",
    "FakeOpenAIServer",
    "HttpError",
    "Reasoning",
    "RecordedRequest",
    "Reply",
    "ScriptedProvider",
    "ScriptedReply",
    "Stall",
    "StreamEnds",
    "StreamError",
    "Text",
    "ToolCallFragment",
    "ToolCallSpec",
    "collect",
]
