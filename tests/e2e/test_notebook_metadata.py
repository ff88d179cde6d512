"""The notebook bridge (js/widget/src/metadata.js + the notebook-chat extension) in a real JupyterLab."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.e2e.lab import Lab
from tests.e2e.probe import INSERT_CELL, SAVE_RECORD, SETUP, SHOW_STORE, STORED, WAIT_READY

pytestmark = pytest.mark.browser

CELLS = [SETUP, WAIT_READY, SAVE_RECORD, SHOW_STORE]


def printed(text: str, label: str) -> Any:
    match = re.search(rf"^{label} (.*)$", text, re.MULTILINE)
    assert match, f"no {label} line in output: {text!r}"
    return json.loads(match.group(1))


def test_a_persisted_record_survives_save_and_kernel_restart(lab: Lab) -> None:
    lab.open_notebook("persist.ipynb", CELLS)
    lab.run_cells(0, 1)
    first = printed(lab.wait_for_output(1, "^READY"), "READY")
    assert (first["via"], first["cell_id"], first["record"]) == ("extension", "cell-0", None)

    lab.run_cell(2)
    reply = printed(lab.wait_for_output(2, "^REPLY"), "REPLY")
    assert {**reply, "revision": None} == {"kind": "persisted", "key": "conv-1", "ok": True, "error": None,
                                           "revision": None}
    lab.save()
    on_disk = lab.read_notebook_from_disk()["metadata"]
    assert on_disk["notebook_chat"] == {"version": 2, "conversations": {"conv-1": {**STORED,
                                                                                  "revision": reply["revision"]}}}
    assert on_disk["kernelspec"]["name"] == "python3"

    lab.restart_kernel()
    lab.run_cells(0, 1, 3)
    assert printed(lab.wait_for_output(1, "^READY"), "READY")["record"] == {**STORED, "revision": reply["revision"]}
    assert printed(lab.wait_for_output(3, "^STORE"), "STORE") is None  # a new kernel has saved nothing yet


def test_the_bridge_falls_back_to_the_widget_managers_document_context(lab: Lab) -> None:
    lab.open_notebook("fallback.ipynb", CELLS)
    lab.page.evaluate("delete window.__notebook_chat__")
    lab.run_cells(0, 1, 2)
    ready = printed(lab.wait_for_output(1, "^READY"), "READY")
    assert (ready["via"], ready["cell_id"], ready["path"]) == ("widget-manager", "cell-0", lab.path)
    revision = printed(lab.wait_for_output(2, "^REPLY"), "REPLY")["revision"]
    assert lab.notebook_metadata("notebook_chat") == {"version": 2, "conversations": {"conv-1": {
        **STORED, "revision": revision}}}


def test_a_write_over_corrupt_metadata_is_refused_and_leaves_it_untouched(lab: Lab) -> None:
    lab.open_notebook("corrupt.ipynb", CELLS, metadata={"notebook_chat": "not an object"})
    lab.run_cells(0, 1, 2)
    ready = printed(lab.wait_for_output(1, "^READY"), "READY")
    assert ready["record"] is None
    assert "is not an object; left untouched" in ready["error"]
    reply = printed(lab.wait_for_output(2, "^REPLY"), "REPLY")
    assert reply["ok"] is False
    assert "left untouched" in reply["error"]
    assert lab.notebook_metadata("notebook_chat") == "not an object"


def test_insert_cell_below_adds_a_code_cell_under_the_widgets_cell(lab: Lab) -> None:
    lab.open_notebook("insert.ipynb", [SETUP, WAIT_READY, INSERT_CELL])
    lab.run_cells(0, 1, 2)
    lab.wait_for_cell_count(4)
    assert printed(lab.wait_for_output(3, "^REPLY"), "REPLY") == {"kind": "inserted", "ok": True}
    expect(lab.cell(1).locator(".jp-InputArea-editor")).to_contain_text("x = 41 + 1  # inserted by the probe")


def test_a_reopened_notebook_draws_the_widget_again_and_hands_it_the_record(lab: Lab) -> None:
    lab.open_notebook("reopen.ipynb", [*CELLS[:3], "probe.ready = None", WAIT_READY])
    lab.run_cells(0, 1, 2, 3)
    revision = printed(lab.wait_for_output(2, "^REPLY"), "REPLY")["revision"]
    lab.save()
    lab.close_and_reopen()
    lab.run_cell(4)
    assert printed(lab.wait_for_output(4, "^READY"), "READY")["record"] == {**STORED, "revision": revision}
