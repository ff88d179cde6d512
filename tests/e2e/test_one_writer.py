"""One writer per chat (docs/widget-protocol.md "One writer per chat"), in a real JupyterLab: a second view of the
chat's output only renders (a streamed reply is written as patches, never as whole-entry resends, and the metadata
is what the kernel wrote), and another notebook attached to the same kernel that shows the chat gets nothing in its
metadata."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.chat_page import ChatPage, kernel_value
from tests.e2e.lab import Lab

pytestmark = pytest.mark.browser

REPLY = "streamed " * 80

CHAT = f'''
from notebook_chat import Chat
from notebook_chat.testing import ScriptedProvider
chat = Chat(ScriptedProvider().text({REPLY!r}, chunks=80, delay=0.04), key="shared")
chat
'''

WRITES = '''
import json
entry = chat.store.load_entry(chat.key)
print("WRITES " + json.dumps({"counts": dict(chat.widget.persist_counts), "revision": chat.store.revision(chat.key),
                             "entry": entry}))
'''


def wait_writer_roles(lab: Lab, expected: list[str], timeout: float = 30_000) -> None:
    """Every chat view on the page has decided whether it writes (`data-writer`); they say `expected`."""
    lab.page.wait_for_function(
        "want => { const roles = [...document.querySelectorAll('.nbc-root')].map(el => el.dataset.writer ?? '');"
        " return JSON.stringify(roles.sort()) === JSON.stringify(want); }",
        arg=sorted(expected), timeout=timeout)


def kernel_writes(lab: Lab, cell: int) -> dict[str, Any]:
    value: dict[str, Any] = kernel_value(lab, cell, "WRITES")
    return value


def test_a_second_view_of_the_output_only_renders_a_streamed_reply_goes_as_patches_and_the_metadata_is_the_kernels(
        lab: Lab) -> None:
    lab.open_notebook("two_views.ipynb", [CHAT, WRITES])
    lab.run_cell(0)
    chat = ChatPage(lab)
    chat.wait_ready()
    lab.output(0).click(button="right")
    lab.page.locator("li[data-command='notebook:create-output-view']").click()  # "Create New View for Output"
    wait_writer_roles(lab, ["true", "false"])
    second = lab.page.locator(".jp-LinkedOutputView .nbc-root")
    second.locator("[data-field=input]").wait_for()

    chat.send("Stream a long reply")
    chat.wait_state("completed")
    second.locator(".nbc-message[data-role=assistant]", has_text="streamed streamed").wait_for()
    lab.page.wait_for_function("el => el.dataset.state === 'completed'", arg=second.element_handle())

    writes = kernel_writes(lab, 1)
    assert writes["counts"]["whole"] == 1  # the chat's first write; the second view made the kernel resend nothing
    assert writes["counts"]["patch"] >= 3  # the turn's start, streamed text, its end
    stored = lab.notebook_metadata("notebook_chat")["conversations"]["shared"]
    assert stored["revision"] == writes["revision"]
    assert {k: v for k, v in stored.items() if k != "revision"} == writes["entry"]
    assert REPLY.strip() in [m["content"].strip() for m in writes["entry"]["items"][writes["entry"]["active"]]
                             ["messages"]]


def test_another_notebook_on_the_same_kernel_that_shows_the_chat_gets_nothing_in_its_metadata(lab: Lab) -> None:
    owner = lab.open_notebook("owner.ipynb", [CHAT, WRITES])
    lab.run_cell(0)
    ChatPage(lab).wait_ready()
    kernel_id = lab.page.evaluate("() => window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.id")
    visitor = lab.write_notebook("visitor.ipynb", ["chat"])
    file = lab.server.root / visitor  # cell ids are unique across notebooks (the harness numbers them from cell-0)
    file.write_text(file.read_text().replace('"cell-0"', '"visitor-cell-0"'))
    # the visitor notebook uses the owner's running kernel (what Kernel → Change Kernel… → the owner's session does)
    lab.page.evaluate("([path, id]) => window.jupyterapp.commands.execute('docmanager:open', {path, kernel: {id}})"
                      ".then(() => true)", [visitor, kernel_id])
    lab.page.wait_for_function(
        "([path, id]) => { const w = window.jupyterapp.shell.currentWidget;"
        " return w?.context?.path === path && w.sessionContext?.session?.kernel?.id === id; }",
        arg=[visitor, kernel_id], timeout=60_000)
    lab.path = visitor
    lab.wait_for_cell_count(1)
    lab.wait_idle()
    lab.run_cell(0)
    here = ChatPage(lab)
    here.wait_ready()
    wait_writer_roles(lab, ["true", "false"])  # the owner's view (its tab is in the background) and this one

    here.send("Chat from the visitor")
    here.wait_state("completed")
    assert lab.notebook_metadata("notebook_chat") is None

    lab.page.evaluate("path => window.jupyterapp.commands.execute('docmanager:open', {path}).then(() => true)", owner)
    lab.page.wait_for_function("path => window.jupyterapp.shell.currentWidget?.context?.path === path", arg=owner)
    lab.path = owner
    writes = kernel_writes(lab, 1)
    assert writes["counts"]["whole"] == 1
    stored = lab.notebook_metadata("notebook_chat")["conversations"]["shared"]
    assert stored["revision"] == writes["revision"]
    messages = stored["items"][stored["active"]]["messages"]
    assert [m["content"] for m in messages if m["role"] == "user"] == ["Chat from the visitor"]


SLOW_CHAT = f'''
from notebook_chat import Chat
from notebook_chat.testing import ScriptedProvider
chat = Chat(ScriptedProvider().text({REPLY!r}, chunks=80, delay=0.15), key="slow")
chat
'''


def test_ctrl_s_while_a_reply_streams_saves_the_text_the_notebook_model_has_not_been_given_yet(lab: Lab) -> None:
    lab.open_notebook("save_mid_stream.ipynb", [SLOW_CHAT])
    lab.run_cell(0)
    chat = ChatPage(lab)
    chat.wait_ready()
    chat.send("Stream slowly")
    # a few streamed writes applied in the page: they wait for the next boundary (or 5 s) before the model gets them
    lab.page.wait_for_function("el => Number(el.dataset.persisted ?? 0) >= 4", arg=chat.root.element_handle(),
                               timeout=30_000)

    def reply(section: Any) -> str:
        record = (section or {}).get("conversations", {}).get("slow", {})
        messages = record.get("items", {}).get(record.get("active"), {}).get("messages", [])
        return "".join(m.get("content") or "" for m in messages if m["role"] == "assistant")

    in_model = reply(lab.notebook_metadata("notebook_chat"))
    lab.save()
    on_disk = reply(lab.read_notebook_from_disk()["metadata"].get("notebook_chat"))
    assert len(on_disk) > len(in_model)  # the save put the page's copy into the model first
    assert on_disk.startswith(in_model)
    assert chat.root.get_attribute("data-state") == "processing"  # still streaming: no boundary wrote it
