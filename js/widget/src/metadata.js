// Reaching the notebook that shows a widget: read/write metadata["notebook_chat"], the displaying cell's id,
// and "insert a code cell below". Two ways in, tried in order:
//   1. the notebook-chat JupyterLab extension (js/labextension) publishes window.__notebook_chat__.findPanel(el);
//   2. fallback: model.widget_manager.context — JupyterLab/Notebook 7 hand anywidget their widget manager, whose
//      `context` is the notebook's document context (not a public anywidget API; may disappear).
// Nowhere else (VS Code, Colab, static HTML) is a notebook reachable: `available` is false.
// Writes only mark the notebook dirty; saving stays with the user (Ctrl+S) or JupyterLab's autosave.
//
// Writes cost what changed. JupyterLab's notebook model has no way to change part of a metadata value: every
// getMetadata/setMetadata of "notebook_chat" deep-copies (and compares) the whole section, every chat's every
// conversation. So the page keeps one copy of the section per notebook (`NotebookSection`, shared by every view on the
// page): a `persist` write is applied to it in place (the work is the write's size) and marks the notebook dirty, and
// the section goes into the notebook model (one setMetadata) only at a write that is more than streamed text (a turn
// starts, pauses, an approval leaves `paused`, a tool round, the end: at once), right before the notebook is saved
// (Ctrl+S, autosave: the save never misses a write), and at the latest FLUSH_AFTER_MS after a streamed write.
//
// One writer per chat and notebook: of the views of one chat (one kernel widget) in one notebook, exactly one
// applies the kernel's writes and answers them (`claimWriter`; when it goes, the next view takes over), and only a
// notebook that owns the chat (`owns`: it holds the cell that created the chat) has one.
// Every other view only renders.

import { applyWriteInPlace } from './patches.js';

export const METADATA_KEY = 'notebook_chat';
export const METADATA_VERSION = 2;
/** Versions this front end reads (1: one record per chat key; 2: {active, items} per chat key). A version-1 record
 * stays as it is until the kernel's first write, which sends the chat's whole version-2 entry. */
export const READABLE_VERSIONS = [1, 2];
const ATTACH_TIMEOUT_MS = 5000;
/** A streamed write reaches the notebook model at the latest this long after it was applied. */
export const FLUSH_AFTER_MS = 5000;
/** A task queued with `whenIdle` runs at the latest this long after it was queued. */
export const IDLE_WAIT_MS = 200;

/**
 * @typedef {Record<string, unknown>} JsonObject
 * @typedef {{
 *   available: boolean,
 *   via: 'extension' | 'widget-manager' | null,
 *   cellId: string | null,
 *   path: string | null,
 *   read: (key: string, options?: {copy?: boolean}) => JsonObject | null,
 *   write: (key: string, record: JsonObject | null) => Promise<void>,
 *   apply: (key: string, write: {revision: string, base: string|null, ops: any[]}, options?: {coalesce?: boolean})
 *     => string | null,
 *   whenIdle: (task: () => void, options?: {writes?: boolean}) => void,
 *   owns: (key: string, home: string) => boolean,
 *   claimWriter: (instance: string, onPromoted: () => void) => WriterSeat,
 *   flush: () => void,
 *   insertCellBelow: (code: string) => boolean,
 *   writeFallback: (bundle: unknown) => boolean,
 *   insertCellsBelow: (cells: {cell_type: string, source: string}[]) => boolean,
 *   save: () => Promise<void>,
 * }} NotebookHandle
 * @typedef {{writer: () => boolean, release: () => void}} WriterSeat
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
    apply: () => {
      throw new Error('no notebook document is reachable from this front end');
    },
    whenIdle: (task) => task(),
    owns: () => false,
    claimWriter: () => ({ writer: () => false, release: () => {} }),
    flush: () => {},
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
  const section = sectionOf(context);
  const cellId = listCells().find((cell) => cell.node && cell.node.contains(el))?.id ?? null;
  return {
    available: true,
    via,
    cellId,
    path: typeof context.path === 'string' ? context.path : null,
    read(key, { copy = true } = {}) {
      const record = section.entry(key);
      // without a copy: the page's own, which the caller only reads (and must read before it awaits anything)
      return record === null || !copy ? record : structuredClone(record);
    },
    async write(key, record) {
      if (typeof key !== 'string' || key === '' || !(record === null || isObject(record))) {
        throw new Error('write(key, record) needs a non-empty key and a JSON object (null deletes the key)');
      }
      section.put(key, record === null ? null : structuredClone(record));
      section.flush();
    },
    /**
     * Apply one `persist` write (versioned patch) to the entry under `key`; returns the entry's new revision.
     * Throws StaleCopy / PatchMismatch (patches.js) or a shape error, writing nothing. `coalesce`: a streamed write
     * (only text grew) that may wait for the next flush; any other write reaches the notebook model at once.
     */
    apply(key, write, options = {}) {
      if (typeof key !== 'string' || key === '') {
        throw new Error('apply(key, write) needs a non-empty key');
      }
      return section.apply(key, write, options.coalesce === true);
    },
    /** Run `task` once the page is idle, after the tasks queued before it (by any view of this notebook); a save
     * of the notebook runs every waiting task first, so it holds every write that reached the page. `writes`: the
     * task writes into the notebook, which is dirty from now on (closing it asks to save, even before the write). */
    whenIdle(task, { writes = false } = {}) {
      if (writes) section.changing();
      section.whenIdle(task);
    },
    /** This notebook owns the chat: it holds the cell that created it (`home`); a chat made outside any cell
     * (`home` "") belongs to any notebook that shows it. What a notebook stores does not count: another notebook may
     * keep a chat of its own under the same `key`, which a visiting chat must never write over. */
    owns(key, home) {
      if (!home) return true;
      const cells = notebook.cells;
      for (let i = 0; i < (cells?.length ?? 0); i++) {
        if (cells.get(i).id === home) return true;
      }
      return false;
    },
    /** Take part in choosing this notebook's one writer of the chat `instance` (see NotebookSection.claim). */
    claimWriter(instance, onPromoted) {
      return section.claim(instance, onPromoted);
    },
    /** Put what was applied into the notebook model now. */
    flush() {
      section.flush();
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

/** @type {WeakMap<object, NotebookSection>} one per notebook model on the page */
const SECTIONS = new WeakMap();

/** @param {any} context the notebook's document context @returns {NotebookSection} */
function sectionOf(context) {
  let section = SECTIONS.get(context.model);
  if (section === undefined) {
    section = new NotebookSection(context);
    SECTIONS.set(context.model, section);
  }
  return section;
}

/**
 * The page's copy of one notebook's metadata["notebook_chat"]: read from the model once, changed in place by the
 * writes, put back into the model by `flush`. A change of the section that is not a flush (the metadata editor, a
 * revert, a collaborator) drops the copy: the next write is checked against what the model holds (a stale patch is
 * refused and the kernel sends the whole entry).
 */
class NotebookSection {
  /** @param {any} context */
  constructor(context) {
    this.notebook = context.model;
    /** @type {(JsonObject & {conversations: JsonObject}) | null} */
    this.copy = null;
    this.unflushed = false;
    this.flushing = false;
    this.saving = false;
    this.changedWhileSaving = false;
    /** @type {ReturnType<typeof setTimeout> | null} */
    this.timer = null;
    /** @type {(() => void)[]} tasks waiting for the page to be idle (`whenIdle`), in order */
    this.waiting = [];
    /** @type {(() => void) | null} cancels the idle callback that runs them */
    this.cancelIdle = null;
    /** @type {Map<string, {writer: object | null, waiting: object[]}>} */
    this.seats = new Map();
    this.notebook.metadataChanged?.connect?.(this.onMetadataChanged, this);
    context.saveState?.connect?.(this.onSaveState, this);
    context.disposed?.connect?.(() => {
      this.cancelTimer();
      this.cancelIdle?.();
      this.waiting = [];
    });
  }

  /** The section (the page's copy; read from the model when there is none). Throws when it has the wrong shape. */
  current() {
    if (this.copy === null) this.copy = readSection(this.notebook);
    return this.copy;
  }

  /** The entry under `key` (not a copy: callers copy), or null. */
  entry(key) {
    const record = this.current().conversations[key];
    return isObject(record) ? record : null;
  }

  put(key, entry) {
    const section = this.current();
    if (entry === null) {
      delete section.conversations[key];
    } else {
      section.conversations[key] = entry;
    }
    section.version = METADATA_VERSION;
    this.changed();
  }

  apply(key, write, coalesce) {
    const held = this.entry(key);
    if (held !== null && typeof write?.revision === 'string' && held.revision === write.revision) {
      return write.revision; // already applied (by the view this one took over from)
    }
    const entry = applyWriteInPlace(held, write);
    this.put(key, entry);
    if (coalesce) {
      this.flushLater();
    } else {
      this.flush();
    }
    return entry === null ? null : write.revision;
  }

  /** Run `task` in the page's next idle period (at the latest IDLE_WAIT_MS from now), after the tasks before it: the
   * frames that draw what came with a write go first. */
  whenIdle(task) {
    this.waiting.push(task);
    if (this.cancelIdle !== null) return;
    const run = () => {
      this.cancelIdle = null;
      this.runWaiting();
    };
    if (typeof requestIdleCallback === 'function') {
      const handle = requestIdleCallback(run, { timeout: IDLE_WAIT_MS });
      this.cancelIdle = () => cancelIdleCallback(handle);
    } else {
      const handle = setTimeout(run, 0);
      this.cancelIdle = () => clearTimeout(handle);
    }
  }

  runWaiting() {
    this.cancelIdle?.();
    this.cancelIdle = null;
    while (this.waiting.length > 0) {
      const task = /** @type {() => void} */ (this.waiting.shift());
      try {
        task();
      } catch (err) {
        console.warn('notebook_chat: a queued write failed', err);
      }
    }
  }

  changed() {
    this.unflushed = true;
    this.changing();
  }

  /** The notebook changes (or is about to): it is dirty, also after a save that is running now. */
  changing() {
    if (this.saving) this.changedWhileSaving = true;
    if (!this.notebook.dirty) this.notebook.dirty = true;
  }

  flushLater() {
    if (this.timer === null) this.timer = setTimeout(() => this.flush(), FLUSH_AFTER_MS);
  }

  cancelTimer() {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  /** The page's copy into the notebook model (JupyterLab copies it: the page's copy stays the page's). */
  flush() {
    this.cancelTimer();
    if (!this.unflushed || this.copy === null) return;
    this.flushing = true;
    try {
      this.notebook.setMetadata(METADATA_KEY, this.copy);
    } finally {
      this.flushing = false;
    }
    this.unflushed = false;
  }

  onMetadataChanged(_model, change) {
    if (this.flushing || (change && change.key !== undefined && change.key !== METADATA_KEY)) return;
    this.cancelTimer();
    this.copy = null; // someone else changed it: what the model holds now is the copy
    this.unflushed = false;
  }

  /** A save writes what the model holds: the writes waiting for idle time are applied and the page's copy flushed
   * right before ('started' is emitted before the model is read), and a write applied while the save ran keeps the
   * notebook dirty (JupyterLab marks it clean when the save ends). */
  onSaveState(_context, state) {
    if (state === 'started') {
      this.runWaiting();
      this.flush();
      this.saving = true;
      this.changedWhileSaving = false;
    } else if (state === 'completed' || state === 'failed') {
      this.saving = false;
      if (this.changedWhileSaving && !this.notebook.dirty) this.notebook.dirty = true;
    }
  }

  /**
   * One writer per chat (`instance`: the kernel widget every view of the chat shares) in this notebook: the first
   * view that claims writes; the others wait, and when the writer goes (`release`) the next one writes
   * (`onPromoted`).
   */
  claim(instance, onPromoted) {
    let seat = this.seats.get(instance);
    if (seat === undefined) {
      seat = { writer: null, waiting: [] };
      this.seats.set(instance, seat);
    }
    const me = { onPromoted };
    const taken = seat;
    if (taken.writer === null) {
      taken.writer = me;
    } else {
      taken.waiting.push(me);
    }
    return {
      writer: () => taken.writer === me,
      release: () => {
        if (taken.writer === me) {
          this.flush();
          taken.writer = taken.waiting.shift() ?? null;
          if (taken.writer === null) {
            this.seats.delete(instance);
          } else {
            taken.writer.onPromoted();
          }
        } else {
          taken.waiting = taken.waiting.filter((other) => other !== me);
        }
      },
    };
  }
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
