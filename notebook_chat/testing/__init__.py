"""Test doubles shipped with the package, so users can test their own tools and plugins too."""

from .collect import Collected, collect
from .fake_openai import FakeOpenAIServer, RecordedRequest
from .openai_replies import (
    ConnectionReset,
    HttpError,
    RawEvent,
    Reasoning,
    Reply,
    Stall,
    StreamEnds,
    StreamError,
    Text,
    ToolCallFragment,
    ToolCallSpec,
    raw_json,
)
from .scripted import ScriptedProvider, ScriptedReply

__all__ = [
    "Collected",
    "ConnectionReset",
    "FakeOpenAIServer",
    "HttpError",
    "RawEvent",
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
    "raw_json",
]
