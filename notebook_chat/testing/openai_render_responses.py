"""Render a scripted :class:`Reply` as Responses API events (streaming) or one response object.

Item kinds: one ``reasoning`` item (summary deltas), one ``message`` item (output_text deltas) and one
``function_call`` item per call; ``output_index`` follows the order in which items first appear. Argument
deltas are keyed by ``item_id`` (``fc_<n>``), not by ``call_id``, as the real API does.
"""

from __future__ import annotations

from typing import Any

from .openai_render_chat import RAW
from .openai_replies import Piece, RawEvent, Reasoning, Reply, StreamError, Text, ToolCallFragment

Event = dict[str, Any]
ItemKey = tuple[str, int]


class ResponsesRenderer:
    def __init__(self, reply: Reply, model: str) -> None:
        self.reply = reply
        self.model = model
        self.items: dict[ItemKey, dict[str, Any]] = {}
        self.sequence = 0

    def _event(self, kind: str, **fields: Any) -> Event:
        self.sequence += 1
        return {"type": kind, "sequence_number": self.sequence, **fields}

    def response(self, status: str, **fields: Any) -> dict[str, Any]:
        done = status in ("completed", "incomplete")
        output = [self._finished_item(item) for item in self.items.values()] if done else []
        usage = self.reply.token_usage
        return {
            "id": "resp_fake",
            "object": "response",
            "created_at": 1_700_000_000,
            "model": self.model,
            "status": status,
            "output": output,
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
            "incomplete_details": None,
            "error": None,
            "usage": {
                "input_tokens": usage["prompt_tokens"],
                "output_tokens": usage["completion_tokens"],
                "total_tokens": usage["total_tokens"],
            }
            if done and usage
            else None,
            **fields,
        }

    def preamble(self) -> list[Event]:
        return [
            self._event("response.created", response=self.response("in_progress")),
            self._event("response.in_progress", response=self.response("in_progress")),
        ]

    def piece_events(self) -> list[list[Event]]:
        return [self._piece(piece) for piece in self.reply.pieces]

    def _key(self, piece: Text | Reasoning | ToolCallFragment) -> ItemKey:
        if isinstance(piece, Text):
            return ("message", 0)
        if isinstance(piece, Reasoning):
            return ("reasoning", 0)
        return ("function_call", piece.index)

    def _open(self, piece: Text | Reasoning | ToolCallFragment) -> tuple[dict[str, Any], list[Event]]:
        key = self._key(piece)
        if key in self.items:
            return self.items[key], []
        index = len(self.items)
        item = self._new_item(piece, index)
        self.items[key] = item
        events = [self._event("response.output_item.added", output_index=index, item=self._public(item))]
        where = {"item_id": item["id"], "output_index": index}
        if item["type"] == "message":
            part = {"type": "output_text", "text": "", "annotations": []}
            events.append(self._event("response.content_part.added", **where, content_index=0, part=part))
        elif item["type"] == "reasoning":
            part = {"type": "summary_text", "text": ""}
            events.append(
                self._event("response.reasoning_summary_part.added", **where, summary_index=0, part=part)
            )
        return item, events

    @staticmethod
    def _new_item(piece: Text | Reasoning | ToolCallFragment, index: int) -> dict[str, Any]:
        item: dict[str, Any]
        if isinstance(piece, Text):
            item = {"type": "message", "id": f"msg_{index}", "role": "assistant", "status": "in_progress"}
            item["content"] = []
        elif isinstance(piece, Reasoning):
            item = {"type": "reasoning", "id": f"rs_{index}", "summary": []}
        else:
            item = {"type": "function_call", "id": f"fc_{index}", "call_id": piece.id or f"call_{index}"}
            item.update(name=piece.name or "", arguments="", status="in_progress")
        item["_index"], item["_text"] = index, ""
        return item

    @staticmethod
    def _public(item: dict[str, Any]) -> dict[str, Any]:
        return {key: value for key, value in item.items() if not key.startswith("_")}

    def _piece(self, piece: Piece) -> list[Event]:
        if isinstance(piece, RawEvent):
            return [{RAW: piece.data}]
        item, events = self._open(piece)
        item["_text"] += piece.text if isinstance(piece, (Text, Reasoning)) else piece.arguments
        where = {"item_id": item["id"], "output_index": item["_index"]}
        if isinstance(piece, Text):
            events.append(
                self._event(
                    "response.output_text.delta", **where, content_index=0, delta=piece.text, logprobs=[]
                )
            )
        elif isinstance(piece, Reasoning):
            events.append(
                self._event(
                    "response.reasoning_summary_text.delta", **where, summary_index=0, delta=piece.text
                )
            )
        else:
            events.append(
                self._event("response.function_call_arguments.delta", **where, delta=piece.arguments)
            )
        return events

    def _finished_item(self, item: dict[str, Any]) -> dict[str, Any]:
        public = self._public(item)
        text = item["_text"]
        if public["type"] == "message":
            public.update(
                status="completed", content=[{"type": "output_text", "text": text, "annotations": []}]
            )
        elif public["type"] == "reasoning":
            public["summary"] = [{"type": "summary_text", "text": text}]
        else:
            public.update(status="completed", arguments=text)
        return public

    def _item_done(self, item: dict[str, Any]) -> list[Event]:
        where = {"item_id": item["id"], "output_index": item["_index"]}
        text = item["_text"]
        if item["type"] == "message":
            events = [
                self._event("response.output_text.done", **where, content_index=0, text=text),
                self._event(
                    "response.content_part.done",
                    **where,
                    content_index=0,
                    part={"type": "output_text", "text": text, "annotations": []},
                ),
            ]
        elif item["type"] == "reasoning":
            events = [
                self._event("response.reasoning_summary_text.done", **where, summary_index=0, text=text)
            ]
        else:
            events = [self._event("response.function_call_arguments.done", **where, arguments=text)]
        done = self._event(
            "response.output_item.done", output_index=item["_index"], item=self._finished_item(item)
        )
        return [*events, done]

    def closing(self) -> list[Event]:
        events = [event for item in self.items.values() for event in self._item_done(item)]
        finish = self.reply.finish
        if finish in ("length", "content_filter"):
            reason = "max_output_tokens" if finish == "length" else "content_filter"
            response = self.response("incomplete", incomplete_details={"reason": reason})
            return [*events, self._event("response.incomplete", response=response)]
        return [*events, self._event("response.completed", response=self.response("completed"))]

    def failure(self, fault: StreamError) -> Event:
        if fault.responses_event == "error":
            return self._event("error", code=fault.code, message=fault.message, param=None)
        error = {"code": fault.code, "message": fault.message}
        return self._event("response.failed", response=self.response("failed", error=error))

    def final_response(self) -> dict[str, Any]:
        """The whole reply as one non-streaming response object."""
        self.piece_events()
        return self.closing()[-1]["response"]  # type: ignore[no-any-return]
