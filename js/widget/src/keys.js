// Keys pressed inside the widget stay inside it. JupyterLab and Notebook 7 handle shortcuts from `keydown` on the
// document (Shift+Enter runs the cell, command-mode letters change cells): every key event stops at the widget
// root, and `data-lm-suppress-shortcuts` tells Lumino's command registry to skip events from inside it even when
// it listens before us (capture). The root is focusable (tabindex -1), so a click on a message puts the focus in
// the widget, not on the notebook cell — Esc then stops the turn from anywhere inside.

const KEY_EVENTS = /** @type {const} */ (["keydown", "keyup", "keypress"]);

/**
 * @param {HTMLElement} root
 * Ctrl/Cmd+S still saves the notebook (through `onSave`): it is not a notebook shortcut but the document's save.
 * @param {{onEscape: (e: KeyboardEvent) => boolean, onSave: () => boolean}} handlers onEscape returns true when it used the key (an inner
 *   control that uses Esc itself calls preventDefault, and the root leaves it alone)
 * @returns {() => void} undo
 */
export function containKeys(root, handlers) {
  root.tabIndex = -1;
  root.dataset.lmSuppressShortcuts = "true";
  const stop = (/** @type {Event} */ event) => {
    const e = /** @type {KeyboardEvent} */ (event);
    const escape = e.type === "keydown" && e.key === "Escape" && !e.isComposing && !e.defaultPrevented;
    if (escape && handlers.onEscape(e)) e.preventDefault();
    const save = e.type === "keydown" && (e.ctrlKey || e.metaKey) && !e.altKey && e.key.toLowerCase() === "s";
    if (save && handlers.onSave()) e.preventDefault();
    e.stopPropagation();
  };
  // Lumino matches a shortcut's selector from the event target upwards and stops at the first element carrying the
  // mark: a focused element that matches a command-mode selector itself (the message log, a button) must carry it too
  const mark = (/** @type {FocusEvent} */ e) => {
    if (e.target instanceof HTMLElement) e.target.dataset.lmSuppressShortcuts = "true";
  };
  root.addEventListener("focusin", mark);
  for (const name of KEY_EVENTS) root.addEventListener(name, stop);
  return () => {
    root.removeEventListener("focusin", mark);
    for (const name of KEY_EVENTS) root.removeEventListener(name, stop);
  };
}
