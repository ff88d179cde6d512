"""Providers: OpenAI Chat Completions and Responses (any compatible base URL) and the offline demo model."""

from .demo import DemoModel
from .openai_chat import OpenAIChat
from .openai_responses import OpenAIResponses

__all__ = ["DemoModel", "OpenAIChat", "OpenAIResponses"]
