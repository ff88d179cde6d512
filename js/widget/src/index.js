// anywidget entry: `export default { initialize, render }`; render returns its cleanup.
// Protocol: docs/widget-protocol.md (kernel↔browser); the action table mirrors notebook_chat/widget/actions.py.
import "./styles.css";
import { ChatView } from "./chat_view.js";
import { connectNotebook } from "./metadata.js";

const BRIDGE_TIMEOUT_MS = 5000;
const NO_NOTEBOOK = {
  available: false,
  cellId: null,
  read: () => null,
  write: async () => {
    throw new Error("no notebook document is reachable from this view");
  },
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
    const post = (/** @type {object} */ msg) => {
      if (disposed || view.dead) return;
      try {
        model.send(msg);
      } catch (err) {
        // the comm is gone (kernel restarted or shut down): say so instead of failing silently
        console.debug("notebook_chat: the kernel connection is gone", err);
        view.setDead();
      }
    };
    view = new ChatView(el, post);
    // ipywidgets marks a model's comm dead when its kernel restarts or stops (the only change after render)
    const onCommLive = () => view.setDead();
    model.on("comm_live_update", onCommLive);
    const onHeader = () => view.setHeader(model.get("header") ?? "");
    onHeader();

    const bridgeReady = bridgeFor(model, el);
    /** @param {string} key @param {object} record */
    const persist = async (key, record) => {
      const bridge = await bridgeReady;
      if (disposed) return;
      if (!bridge.available) {
        post({ kind: "persisted", key, ok: false, error: "no notebook document is reachable from this view" });
        return;
      }
      try {
        await bridge.write(key, record);
        post({ kind: "persisted", key, ok: true, error: null });
      } catch (err) {
        post({ kind: "persisted", key, ok: false, error: String(/** @type {any} */ (err)?.message ?? err) });
      }
    };
    const onMessage = (/** @type {any} */ msg) => {
      if (msg?.kind === "persist" && typeof msg.key === "string") persist(msg.key, msg.record);
      else view.handle(msg);
    };
    model.on("msg:custom", onMessage);
    model.on("change:header", onHeader);

    bridgeReady.then((bridge) => {
      if (disposed) return;
      view.setBridge(bridge);
      const key = model.get("key") || bridge.cellId;
      view.setDraftKey(`${bridge.path ?? ""}#${model.get("key") ?? ""}`);
      let record = null;
      if (bridge.available && key) {
        try {
          record = bridge.read(key) ?? null;
        } catch (err) {
          console.warn("notebook_chat: could not read the stored conversation", err);
        }
      }
      view.actions.send({ kind: "ready", notebook: bridge.available, cell_id: bridge.cellId ?? null, record });
    });

    return () => {
      disposed = true;
      model.off("msg:custom", onMessage);
      model.off("change:header", onHeader);
      model.off("comm_live_update", onCommLive);
      view.dispose();
    };
  },
};
