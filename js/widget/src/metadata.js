// Reaching the notebook that shows a widget: read/write metadata["notebook_chat"], the displaying cell's id,
// and "insert a code cell below". Two ways in, tried in order:
//   1. the notebook-chat JupyterLab extension (js/labextension) publishes window.__notebook_chat__.findPanel(el);
//   2. fallback: model.widget_manager.context — JupyterLab/Notebook 7 hand anywidget their widget manager, whose
//      `context` is the notebook's document context (not a public anywidget API; may disappear).
// Nowhere else (VS Code, Colab, static HTML) is a notebook reachable: `available` is false.
// Writes only mark the notebook dirty; saving stays with the user (Ctrl+S) or JupyterLab's autosave.

import { applyWrite } from './patches.js';

export const METADATA_KEY = 'notebook_chat';
export const METADATA_VERSION = 2;
/** Versions this front end reads (1: one record per chat key; 2: {active, items} per chat key). A version-1 record
 * stays as it is until the kernel's first write, which sends the chat's whole version-2 entry. */
export const READABLE_VERSIONS = [1, 2];
const ATTACH_TIMEOUT_MS = 5000;

/**
 * @typedef {Record<string, unknown>} JsonObject
 * @typedef {{
 *   available: boolean,
 *   via: 'extension' | 'widget-manager' | null,
 *   cellId: string | null,
 *   path: string | null,
 *   read: (key: string) => JsonObject | null,
 *   write: (key: string, record: JsonObject | null) => Promise<void>,
 *   apply: (key: string, write: {revision: string, base: string|null, ops: any[]}) => Promise<string | null>,
 *   insertCellBelow: (code: string) => boolean,
 *   writeFallback: (bundle: unknown) => boolean,
 *   insertCellsBelow: (cells: {cell_type: string, source: string}[]) => boolean,
 *   save: () => Promise<void>,
 * }} NotebookHandle
 */

/**
 * @param {any} model anywidget model
 * @param {HTMLElement} el the element the widget renders into
 * @param {{attachTimeoutMs?: number}} [options]
 * @returns {Promise<NotebookHandle>}
 */
export async function connectNotebook(model, el, options = {}) {
  const attached = await waitUntilConnected(el, options.attachTimeoutMs ?? ATTACH_TIMEOUT_MS);
  const bridge = globalThis.__notebook_chat__;
  const panel = attached && bridge && typeof bridge.findPanel === 'function' ? bridge.findPanel(el) : null;
  if (panel && panel.context && panel.content) {
    return makeHandle('extension', panel.context, panelCells(panel), el);
  }
  const context = widgetManagerContext(model);
  if (context) {
    return makeHandle('widget-manager', context, domCells(context, el), el);
  }
  return unavailable();
}

/** @returns {NotebookHandle} */
export function unavailable() {
  return {
    available: false,
    via: null,
    cellId: null,
    path: null,
    read: () => null,
    write: async () => {
      throw new Error('no notebook document is reachable from this front end');
    },
    apply: async () => {
      throw new Error('no notebook document is reachable from this front end');
    },
    insertCellBelow: () => false,
    writeFallback: () => false,
    insertCellsBelow: () => false,
    save: async () => {},
  };
}

/**
 * @param {'extension' | 'widget-manager'} via
 * @param {any} context DocumentRegistry.IContext<INotebookModel>
 * @param {() => Array<{id: string, node: HTMLElement | null}>} listCells cells in notebook order
 * @param {HTMLElement} el
 * @returns {NotebookHandle}
 */
function makeHandle(via, context, listCells, el) {
  const notebook = context.model;
  const cellId = listCells().find((cell) => cell.node && cell.node.contains(el))?.id ?? null;
  return {
    available: true,
    via,
    cellId,
    path: typeof context.path === 'string' ? context.path : null,
    read(key) {
      const conversations = readSection(notebook).conversations;
      const record = conversations[key];
      return isObject(record) ? JSON.parse(JSON.stringify(record)) : null;
    },
    async write(key, record) {
      if (typeof key !== 'string' || key === '' || !(record === null || isObject(record))) {
        throw new Error('write(key, record) needs a non-empty key and a JSON object (null deletes the key)');
      }
      const section = readSection(notebook);
      const conversations = { ...section.conversations };
      if (record === null) {
        delete conversations[key];
      } else {
        conversations[key] = JSON.parse(JSON.stringify(record));
      }
      notebook.setMetadata(METADATA_KEY, { ...section, version: METADATA_VERSION, conversations });
      if (!notebook.dirty) {
        notebook.dirty = true;
      }
    },
    /**
     * Apply one `persist` write (versioned patch) to the entry under `key`; returns the entry's new revision.
     * Throws StaleCopy / PatchMismatch (patches.js) or a shape error, writing nothing.
     */
    async apply(key, write) {
      if (typeof key !== 'string' || key === '') {
        throw new Error('apply(key, write) needs a non-empty key');
      }
      const section = readSection(notebook);
      const conversations = { ...section.conversations };
      const entry = applyWrite(conversations[key] ?? null, write);
      if (entry === null) {
        delete conversations[key];
      } else {
        conversations[key] = entry;
      }
      notebook.setMetadata(METADATA_KEY, { ...section, version: METADATA_VERSION, conversations });
      if (!notebook.dirty) {
        notebook.dirty = true;
      }
      return entry === null ? null : write.revision;
    },
    /** Ctrl+S pressed inside the widget (which keeps keys from the notebook's shortcuts). */
    async save() {
      await context.save();
    },
    /**
     * The kernel's static transcript (`persist`'s `fallback`: text/plain and text/html) into this widget's own
     * output, so GitHub, nbviewer and a kernel-less JupyterLab read the conversation. Written to the shared
     * model with the 'silent-change' origin: the saved notebook gets it, the live output is not re-rendered.
     */
    writeFallback(bundle) {
      const located = widgetOutput(notebook, cellId, el);
      if (!located || !isObject(bundle)) {
        return false;
      }
      const { cell, index, output } = located;
      const data = { ...output.data };
      let changed = false;
      for (const mime of FALLBACK_MIMES) {
        const stored = Array.isArray(data[mime]) ? data[mime].join('') : data[mime];
        if (typeof bundle[mime] === 'string' && bundle[mime] !== stored) {
          data[mime] = bundle[mime];
          changed = true;
        }
      }
      if (!changed) {
        return true; // the output already says this: the notebook stays clean
      }
      cell.updateOutputs(index, index + 1, [{ ...output, data }], 'silent-change');
      if (!notebook.dirty) {
        notebook.dirty = true;
      }
      return true;
    },
    /** Cells in order right below the widget's cell (an export: markdown and code cells). */
    insertCellsBelow(cells) {
      if (cellId === null || !Array.isArray(cells)) {
        return false;
      }
      const index = listCells().findIndex((cell) => cell.id === cellId);
      if (index < 0) {
        return false;
      }
      const made = cells
        .filter((cell) => isObject(cell) && typeof cell.source === 'string')
        .map((cell) => ({ cell_type: cell.cell_type === 'code' ? 'code' : 'markdown', source: cell.source, metadata: {} }));
      notebook.sharedModel.insertCells(index + 1, made);
      return true;
    },
    insertCellBelow(code) {
      if (cellId === null || typeof code !== 'string') {
        return false;
      }
      const index = listCells().findIndex((cell) => cell.id === cellId);
      if (index < 0) {
        return false;
      }
      notebook.sharedModel.insertCell(index + 1, { cell_type: 'code', source: code, metadata: {} });
      return true;
    },
  };
}

/**
 * The notebook_chat section, copied; throws (writing nothing) when it exists but has the wrong shape.
 * @returns {{version?: unknown, conversations: JsonObject} & JsonObject}
 */
function readSection(notebook) {
  const raw = notebook.getMetadata(METADATA_KEY);
  if (raw === undefined || raw === null) {
    return { conversations: {} };
  }
  if (!isObject(raw)) {
    throw new Error(`notebook metadata "${METADATA_KEY}" is not an object; left untouched`);
  }
  if (raw.version !== undefined && !READABLE_VERSIONS.includes(raw.version)) {
    throw new Error(`notebook metadata "${METADATA_KEY}" has version ${JSON.stringify(raw.version)}; ` +
      `this front end understands ${READABLE_VERSIONS.join(' and ')}; left untouched`);
  }
  const conversations = raw.conversations ?? {};
  if (!isObject(conversations)) {
    throw new Error(`notebook metadata "${METADATA_KEY}.conversations" is not an object; left untouched`);
  }
  return { ...raw, conversations: { ...conversations } };
}

const FALLBACK_MIMES = ['text/plain', 'text/html'];
const WIDGET_MIME = 'application/vnd.jupyter.widget-view+json';

/** The output (in the shared model) that shows the widget drawn in `el`: its cell, index and JSON. */
function widgetOutput(notebook, cellId, el) {
  const child = el.closest('.jp-OutputArea-child');
  const area = child && child.parentElement;
  const cell = cellId && notebook.sharedModel && Array.isArray(notebook.sharedModel.cells)
    ? notebook.sharedModel.cells.find((c) => c.getId && c.getId() === cellId) : null;
  if (!child || !area || !cell || typeof cell.getOutputs !== 'function' || typeof cell.updateOutputs !== 'function') {
    return null;
  }
  const index = Array.from(area.children).filter((c) => c.classList.contains('jp-OutputArea-child')).indexOf(child);
  const output = cell.getOutputs()[index];
  if (!output || !isObject(output.data) || !isObject(output.data[WIDGET_MIME])) {
    return null;
  }
  return { cell, index, output };
}

/** Cells of a NotebookPanel (extension path): exact, from the Notebook widget. */
function panelCells(panel) {
  return () => panel.content.widgets.map((cell) => ({ id: cell.model.id, node: cell.node }));
}

/** Cells of a bare document context (fallback): pair the model's cells with the DOM cells by position. */
function domCells(context, el) {
  return () => {
    const cells = context.model.cells;
    const ids = [];
    for (let i = 0; i < cells.length; i++) {
      ids.push(cells.get(i).id);
    }
    const notebookNode = el.closest('.jp-Notebook');
    const nodes = notebookNode ? Array.from(notebookNode.querySelectorAll('.jp-Cell')) : [];
    // Windowed rendering can leave cells out of the DOM; then positions mean nothing.
    return ids.map((id, i) => ({ id, node: nodes.length === ids.length ? nodes[i] : null }));
  };
}

function widgetManagerContext(model) {
  try {
    const context = model && model.widget_manager && model.widget_manager.context;
    const notebook = context && context.model;
    if (notebook && typeof notebook.getMetadata === 'function' && typeof notebook.setMetadata === 'function') {
      return context;
    }
  } catch {
    // a widget manager without a context (VS Code, Colab, HTML export)
  }
  return null;
}

/** Render runs before the element is attached: wait (bounded) until it is in the document. */
function waitUntilConnected(el, timeoutMs) {
  if (el.isConnected) {
    return Promise.resolve(true);
  }
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve) => {
    const poll = () => {
      if (el.isConnected) {
        resolve(true);
      } else if (Date.now() > deadline) {
        resolve(false);
      } else {
        setTimeout(poll, 25);
      }
    };
    poll();
  });
}

function isObject(value) {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
