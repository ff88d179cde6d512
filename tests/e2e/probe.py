"""A minimal anywidget that uses js/widget/src/metadata.js as the chat widget does, for browser tests of the
notebook bridge. Its cells are plain source strings for `Lab.open_notebook`."""

from __future__ import annotations

from pathlib import Path

SOURCES = Path(__file__).resolve().parents[2] / "js" / "widget" / "src"
METADATA_JS = SOURCES / "metadata.js"
PATCHES_JS = SOURCES / "patches.js"


def bridge_module() -> str:
    """patches.js + metadata.js as one ES module (the widget bundles them; the probe inlines them)."""
    metadata = "\n".join(line for line in METADATA_JS.read_text().splitlines() if not line.startswith("import "))
    return PATCHES_JS.read_text() + "\n" + metadata

RENDER_JS = """
export default {
  async render({ model, el }) {
    el.className = 'nc-probe';
    el.textContent = 'probe: connecting';
    const notebook = await connectNotebook(model, el);
    const onMessage = async (msg) => {
      if (msg.kind === 'persist') {
        try {
          const revision = await notebook.apply(msg.key, msg);
          model.send({ kind: 'persisted', key: msg.key, ok: true, error: null, revision });
        } catch (error) {
          model.send({ kind: 'persisted', key: msg.key, ok: false, error: String(error.message ?? error) });
        }
      } else if (msg.kind === 'insert') {
        model.send({ kind: 'inserted', ok: notebook.insertCellBelow(msg.code) });
      }
    };
    model.on('msg:custom', onMessage);
    let record = null;
    let error = null;
    try {
      record = notebook.read(model.get('key'));
    } catch (e) {
      error = String(e.message ?? e);
    }
    model.send({ kind: 'ready', notebook: notebook.available, via: notebook.via, cell_id: notebook.cellId,
                 path: notebook.path, record, error });
    el.textContent = `probe ready via ${notebook.via}`;
    return () => model.off('msg:custom', onMessage);
  },
};
"""

SETUP = f'''
import asyncio, json, pathlib
import anywidget, traitlets
from notebook_chat.persistence.notebook_store import NotebookMetadataStore

class Probe(anywidget.AnyWidget):
    _esm = {bridge_module()!r} + {RENDER_JS!r}
    key = traitlets.Unicode("conv-1").tag(sync=True)

    def __init__(self):
        super().__init__()
        self.ready = None
        self.replies = []
        self.store = NotebookMetadataStore(lambda write: self.send({{"kind": "persist", **write}}))
        self.on_msg(self._on_msg)

    def _on_msg(self, _widget, msg, _buffers):
        if msg.get("kind") == "ready":
            self.ready = msg
        else:
            self.replies.append(msg)

    async def wait(self, what, timeout=20):
        for _ in range(int(timeout / 0.05)):
            if what():
                return
            await asyncio.sleep(0.05)
        raise TimeoutError("the browser did not answer")

probe = Probe()
probe
'''.strip()

WAIT_READY = 'await probe.wait(lambda: probe.ready is not None)\nprint("READY", json.dumps(probe.ready))'

SAVE_RECORD = '''
probe.store.save("conv-1", {"version": 1, "messages": [{"role": "user", "content": "kept across restarts"}],
                            "turns": [], "paused_turn": None, "updated_at": "2026-01-01T00:00:00.000Z"})
await probe.wait(lambda: probe.replies)
print("REPLY", json.dumps(probe.replies[-1]))
'''.strip()

SHOW_STORE = 'print("STORE", json.dumps(probe.store.load("conv-1")))'
"""What this kernel's store holds: only what this kernel saved (the browser's copy arrives with "ready")."""

INSERT_CELL = '''
probe.send({"kind": "insert", "code": "x = 41 + 1  # inserted by the probe"})
await probe.wait(lambda: probe.replies)
print("REPLY", json.dumps(probe.replies[-1]))
'''.strip()

RECORD = {"version": 1, "messages": [{"role": "user", "content": "kept across restarts"}], "turns": [],
          "paused_turn": None, "updated_at": "2026-01-01T00:00:00.000Z"}

STORED = {"active": "main", "items": {"main": RECORD}}
"""What the notebook keeps under the chat's key once RECORD is saved (container version 2; the browser adds the
entry's `revision`)."""
