"""The only layer that imports ipywidgets / anywidget / IPython: the chat widget and the Chat facade."""

from .chat import Chat, default_provider
from .chat_widget import ChatWidget

__all__ = ["Chat", "ChatWidget", "default_provider"]
