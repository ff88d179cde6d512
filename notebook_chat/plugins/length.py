"""Opt-in automatic continuation when a reply is cut at the output-token limit (finish_reason "length")."""

from __future__ import annotations

from ..engine import Plugin, PluginContext
from ..engine.messages import user_message

AUTO_CONTINUE_TEXT = (
    "Your previous reply was cut off at the output-token limit. Continue exactly where it stopped; "
    "do not repeat what is already written."
)


class LengthPlugin(Plugin):
    """``auto_continue=False`` by default: the turn then ends ``max-tokens`` and the user may click Continue."""

    name = "length"

    def __init__(self, *, auto_continue: bool = False, max_continuations: int = 3) -> None:
        self.auto_continue = auto_continue
        self.max_continuations = max_continuations

    async def on_after_request(self, ctx: PluginContext) -> None:
        if not self.auto_continue or ctx.finish_reason != "length":
            return
        done = ctx.custom_context.get("length_continuations", 0)
        if type(done) is not int or done < 0:  # a restored paused turn's context is notebook data: no cap lifted
            done = self.max_continuations
        if done >= self.max_continuations:
            return
        ctx.custom_context["length_continuations"] = done + 1
        ctx.append_message(user_message(AUTO_CONTINUE_TEXT, hidden=True, continuation="length"))
        ctx.request_next()
