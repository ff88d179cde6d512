// A JupyterLab notebook document for node tests and the benchmark: the real shared model (@jupyter/ydoc's
// YNotebook, which JupyterLab's NotebookModel delegates getMetadata/setMetadata/metadataChanged to), with the
// NotebookModel's `dirty` flag and `cells`, in a document context whose `saveState` is a real lumino Signal, as
// JupyterLab's Context emits it ("started" before it reads the model, then "completed").

import { YNotebook } from "@jupyter/ydoc";
import { Signal } from "@lumino/signaling";

/** @param {{cellIds?: string[]}} [options] */
export function openNotebook(options = {}) {
  const shared = YNotebook.create({});
  (options.cellIds ?? []).forEach((id, index) => shared.insertCell(index, { cell_type: "code", source: "", id }));
  const calls = { getMetadata: 0, setMetadata: 0 };
  const model = {
    sharedModel: shared,
    dirty: false,
    metadataChanged: shared.metadataChanged,
    getMetadata(key) {
      calls.getMetadata += 1;
      return shared.getMetadata(key);
    },
    setMetadata(key, value) {
      calls.setMetadata += 1;
      if (value === undefined) shared.deleteMetadata(key);
      else shared.setMetadata(key, value);
    },
    cells: {
      get length() {
        return shared.cells.length;
      },
      get: (index) => ({ id: shared.cells[index].getId() }),
    },
  };
  const context = {
    model,
    path: "test.ipynb",
    saveState: new Signal({}),
    /** What JupyterLab's Context does on Ctrl+S: "started", read the model, write it, mark it clean, "completed". */
    async save() {
      context.saveState.emit("started");
      const saved = structuredClone(shared.getMetadata("notebook_chat") ?? null);
      await Promise.resolve();
      model.dirty = false;
      context.saveState.emit("completed");
      return saved;
    },
  };
  return { context, model, shared, calls, dispose: () => shared.dispose() };
}

/** The element a view draws into (attached; in no cell). */
export function viewElement() {
  return { isConnected: true, contains: () => false, closest: () => null };
}

/** Let metadata.js find `context` as the extension would (window.__notebook_chat__.findPanel). */
export function publishPanel(context) {
  globalThis.__notebook_chat__ = { findPanel: () => ({ context, content: { widgets: [] } }) };
}
