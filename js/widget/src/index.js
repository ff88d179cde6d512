// anywidget entry: `export default { initialize, render }`; render returns its cleanup.
// Protocol: docs/widget-protocol.md (kernel↔browser); the action table mirrors notebook_chat/widget/actions.py.
import "./styles.css";
import { ChatView } from "./chat_view.js";
import { detectLanguage, followLanguage, inLanguage, matchLanguage, t } from "./i18n.js";
import { mayHoldMath, preloadKatex } from "./katex_lazy.js";
import { connectNotebook } from "./metadata.js";
import { PatchMismatch, StaleCopy } from "./patches.js";
import { resolveViewText } from "./persist_text.js";
import { packRecord } from "./record_pack.js";

const BRIDGE_TIMEOUT_MS = 5000;
/** A promise resolved in a later task (the page may draw and handle input first). */
function nextTask() {
  return new Promise((resolve) => setTimeout(resolve, 0));
}
const NO_NOTEBOOK = {
  available: false,
  cellId: null,
  read: () => null,
  write: async () => {
    throw new Error(t("storage.unreachable"));
  },
  owns: () => false,
  claimWriter: () => ({ writer: () => false, release: () => {} }),
  flush: () => {},
  whenIdle: (/** @type {() => void} */ task, /** @type {any} */ _options) => task(),
};

/** @param {any} model @param {HTMLElement} el */
async function bridgeFor(model, el) {
  try {
    const timeout = new Promise((resolve) => setTimeout(() => resolve(NO_NOTEBOOK), BRIDGE_TIMEOUT_MS));
    return (await Promise.race([connectNotebook(model, el), timeout])) ?? NO_NOTEBOOK;
  } catch (err) {
    console.warn("notebook_chat: the notebook bridge failed", err);
    return NO_NOTEBOOK;
  }
}

export default {
  initialize() {
    return () => {};
  },

  /** @param {{model: any, el: HTMLElement}} ctx */
  render({ model, el }) {
    let disposed = false;
    /** @type {ChatView} */
    let view;
    const post = (/** @type {object} */ msg, /** @type {ArrayBuffer[]|undefined} */ buffers = undefined) => {
      if (disposed || view.dead) return;
      try {
        model.send(msg, undefined, buffers);
      } catch (err) {
        // the comm is gone (kernel restarted or shut down): say so instead of failing silently
        console.debug("notebook_chat: the kernel connection is gone", err);
        view.setDead();
      }
    };
    // this view's language: Chat(locale=...), else the page's (JupyterLab's language setting sets <html lang>); every
    // way into the view runs in it (another chat on the page may have another), and the kernel hears it in "ready"
    const locale = model.get("locale");
    const language = typeof locale === "string" && locale !== "" ? matchLanguage(locale) : detectLanguage();
    const here = (/** @type {() => any} */ fn) => inLanguage(language, fn);
    el.lang = language;
    el.dataset.language = language;
    const unfollow = followLanguage(el, language);
    view = here(() => new ChatView(el, post));
    // ipywidgets marks a model's comm dead when its kernel restarts or stops (the only change after render)
    const onCommLive = () => here(() => view.setDead());
    model.on("comm_live_update", onCommLive);
    const onHeader = () => here(() => view.setHeader(model.get("header") ?? ""));
    onHeader();

    const bridgeReady = bridgeFor(model, el);
    // One writer per chat and notebook (metadata.js): this view writes the kernel's `persist` writes into its notebook
    // only when that notebook owns the chat and no other view of the chat there writes; otherwise it only renders.
    /** @type {{writer: () => boolean, release: () => void} | null} */
    let seat = null;
    const seatReady = bridgeReady.then((bridge) => {
      const key = model.get("key") || bridge.cellId;
      if (!disposed && bridge.available && key && bridge.owns?.(key, model.get("home") ?? "")) {
        seat = bridge.claimWriter(model.get("instance") || key, () => { el.dataset.writer = "true"; });
        el.dataset.writer = String(seat.writer());
      } else {
        el.dataset.writer = "false";
      }
      return bridge;
    });
    /** One `persist` write (a versioned patch), applied to the notebook's metadata and acknowledged.
     * @param {any} bridge @param {any} msg */
    const persist = (bridge, msg) => {
      if (disposed || seat === null || !seat.writer()) return; // the view that writes answers
      const key = msg.key;
      if (msg.fallback !== undefined) {
        // the transcript for readers without the widget (sent only when it changed), whatever the patch's fate
        try {
          if (bridge.writeFallback?.(msg.fallback)) el.dataset.fallbacks = String(Number(el.dataset.fallbacks ?? 0) + 1);
        } catch (err) {
          console.warn("notebook_chat: could not write the transcript into the output", err);
        }
      }
      try {
        if (msg.unresolved) throw msg.unresolved;
        // a streamed write (only text grew) may wait for the next flush; a boundary reaches the notebook model at once
        const revision = bridge.apply(key, msg, { coalesce: msg.streaming === true });
        el.dataset.persisted = String(Number(el.dataset.persisted ?? 0) + 1); // writes handled (tests wait on it)
        post({ kind: "persisted", key, ok: true, error: null, revision, stale: false });
      } catch (err) {
        const stale = err instanceof StaleCopy || err instanceof PatchMismatch; // the kernel sends the whole record
        const error = stale ? null : String(/** @type {any} */ (err)?.message ?? err);
        post({ kind: "persisted", key, ok: false, error, revision: null, stale });
      }
    };
    const onMessage = (/** @type {any} */ msg) => {
      if (msg?.kind === "persist" && typeof msg.key === "string") {
        let write = msg;
        try {
          // streamed text the write names is taken from the view copy now, as the kernel saw it when it sent this
          write = resolveViewText(msg, (id, field) => view.copy.text(id, field));
        } catch (err) {
          write = { ...msg, unresolved: err };
        }
        // in order (each patch builds on the one before), once the page is idle: the frames that draw what came with
        // the write (a reply's last text) go first; a save of the notebook applies every waiting write before it
        seatReady.then((bridge) => bridge.whenIdle(() => persist(bridge, write), { writes: seat?.writer() === true }));
      } else here(() => view.handle(msg));
    };
    model.on("msg:custom", onMessage);
    model.on("change:header", onHeader);

    seatReady.then((bridge) => here(async () => {
      if (disposed) return;
      view.setBridge(bridge);
      const key = model.get("key") || bridge.cellId;
      view.setDraftKey(`${bridge.path ?? ""}#${model.get("key") ?? ""}`);
      const writer = seat !== null && seat.writer();
      /** @type {any} the record sent as JSON (a copy), when it is not packed */
      let record = null;
      /** @type {ArrayBuffer|null} */
      let packed = null;
      /** @type {any} the page's own copy: only read here */
      let stored = null;
      if (writer) {
        // tasks of their own: the module's evaluation and the view's construction came before, in one task
        await nextTask();
        if (disposed) return;
        // a long record goes gzip-compressed in a binary buffer (record_pack.js), a short one as a copy
        const read = () => bridge.read(key, { copy: false }) ?? null;
        try {
          packed = await packRecord(read).catch((err) => {
            console.warn("notebook_chat: could not compress the stored conversation", err);
            return null;
          });
          if (packed === null) record = structuredClone(read());
          stored = read();
        } catch (err) {
          console.warn("notebook_chat: could not read the stored conversation", err);
        }
      }
      if (disposed) return;
      // a view that only renders says so (`writer: false`): the kernel sends it the view and changes nothing else
      const role = bridge.available ? { writer } : {};
      here(() => view.actions.send({ kind: "ready", notebook: bridge.available, cell_id: bridge.cellId ?? null,
        record, locale: language, ...role, ...(packed !== null ? { record_gzip: true } : {}) },
      undefined, undefined, packed !== null ? [packed] : undefined));
      // the page waits for the kernel's first snapshot now: evaluate KaTeX meanwhile if the conversation holds math
      if (mayHoldMath(stored)) preloadKatex();
    }));

    return () => {
      disposed = true;
      seat?.release(); // the next view of this chat in this notebook writes
      model.off("msg:custom", onMessage);
      model.off("change:header", onHeader);
      model.off("comm_live_update", onCommLive);
      here(() => view.dispose());
      unfollow();
    };
  },
};
