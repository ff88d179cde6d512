// The composer's unsent text outlives its view: a re-render (the cell re-run, the chat shown again, the notebook
// re-opened in the same tab) finds the draft under the chat's key. Kept in sessionStorage (this tab only), in
// memory where storage is unavailable; cleared when the text is sent.

const PREFIX = "notebook_chat:draft:";
/** @type {Map<string, string>} */
const memory = new Map();

function storage() {
  try {
    return globalThis.sessionStorage ?? null;
  } catch {
    return null; // storage refused (sandboxed frame, privacy settings)
  }
}

/** @param {string} key @returns {string} */
export function readDraft(key) {
  if (!key) return "";
  try {
    return storage()?.getItem(PREFIX + key) ?? memory.get(key) ?? "";
  } catch {
    return memory.get(key) ?? "";
  }
}

/** @param {string} key @param {string} text an empty text removes the draft */
export function writeDraft(key, text) {
  if (!key) return;
  if (text === "") memory.delete(key);
  else memory.set(key, text);
  try {
    const store = storage();
    if (text === "") store?.removeItem(PREFIX + key);
    else store?.setItem(PREFIX + key, text);
  } catch {
    // quota or refused: the in-memory copy still serves this page
  }
}
