"""A streamed reply is saved into the notebook without sending its text a second time (issue 17): the kernel's
`persist` writes name the text the view's deltas brought (`append_view`, `set_view`), the browser resolves them from
its view copy, and the notebook on disk holds the whole reply — paced and as fast as possible, non-ASCII included."""

from __future__ import annotations

import pytest

from tests.e2e.chat_page import ChatPage, kernel_value
from tests.e2e.lab import Lab, active_record

pytestmark = pytest.mark.browser

STORY = "\n\n".join(f"Paragraph {n} — naïve café 😀 中文: " + " ".join(f"w{n}x{m}" for m in range(12))
                    for n in range(1, 81))
SETUP = """
from notebook_chat import Chat
from notebook_chat.testing import ScriptedProvider

STORY = {story!r}
chat = Chat(ScriptedProvider().text(STORY, chunks={chunks}, delay={delay}), key="streamed")
ops_sent, writes_sent = [], []
_send = chat.widget.send
def _recorded(content, buffers=None):
    if content.get("kind") == "persist":
        writes_sent.append(content)
        ops_sent.extend(op["op"] for op in content.get("ops") or ())
    return _send(content, buffers)
chat.widget.send = _recorded
chat
"""
SENT = 'import json\nprint("SENT", json.dumps({"writes": len(writes_sent), "ops": sorted(set(ops_sent)), ' \
       '"whole": sum(w.get("base") is None for w in writes_sent), ' \
       '"ack": list(chat.widget.last_persist_ack or ())}))'


@pytest.mark.parametrize(("chunks", "delay"), [(400, 0.005), (4000, 0.0)], ids=["paced", "as-fast-as-possible"])
def test_a_streamed_reply_is_saved_whole_while_its_writes_name_the_streamed_text(lab: Lab, chunks: int,
                                                                                 delay: float) -> None:
    lab.open_notebook("streamed.ipynb", [SETUP.format(story=STORY, chunks=chunks, delay=delay), SENT])
    lab.run_cell(0)
    chat = ChatPage(lab)
    chat.wait_ready()
    chat.send("Tell the story")
    chat.wait_reply_containing("Paragraph 80 ", timeout=60_000)
    chat.wait_state("completed")
    sent = kernel_value(lab, 1, "SENT")
    lab.page.wait_for_function("([el, n]) => Number(el.dataset.persisted ?? 0) >= n",
                               arg=[chat.root.element_handle(), sent["writes"]])
    sent = kernel_value(lab, 1, "SENT")
    assert "append_view" in sent["ops"]
    assert sent["ack"] == ["streamed", True, None]  # the last write applied
    assert sent["whole"] == 1  # only the first write: none was refused as stale (that brings the whole entry)
    lab.save()
    stored = active_record(lab.read_notebook_from_disk()["metadata"]["notebook_chat"], "streamed")
    assert [m["content"] for m in stored["messages"] if m["role"] == "assistant"] == [STORY]
