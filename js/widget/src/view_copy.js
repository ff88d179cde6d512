// The view this browser last drew, kept so a turn boundary costs what changed: the kernel sends a `view_patch` of this
// copy (ops of patches.js) instead of the whole view, and `delta`s change the copy as they change the messages. A patch
// for another revision, or one that does not fit, drops the copy: the view asks for the whole view (`view_resync`).
// The reference is notebook_chat/widget/view_copy.py; tests drive both with the same messages.
// One copy per message, not two: the view to draw shares what the copy does not own (a snapshot's parsed message,
// which the drawing code only reads), and after a patch it shares the copy's messages (drawn nodes keep their own
// text and compare a message by its JSON, so a later change to the copy in place cannot reach them unseen).

import { PatchMismatch, applyOps } from "./patches.js";

export const RESYNC = "resync";

export class ViewCopy {
  constructor() {
    /** @type {any} */
    this.view = null;
    /** @type {any} */
    this.revision = null;
    /** @type {Map<string, any>} */
    this.byId = new Map();
  }

  /**
   * The view to draw after a kernel message (a copy), RESYNC when the whole view must be asked for, or null.
   * @param {any} msg
   */
  take(msg) {
    if (msg.kind === "snapshot") {
      this.view = structuredClone(msg.view);
      this.revision = msg.revision ?? null;
      this.index();
      return msg.view;
    }
    if (msg.kind === "delta") {
      if (this.view !== null) applyDelta(this.byId, msg.ops ?? []);
      return null;
    }
    if (msg.kind === "view_patch") {
      if (this.view === null) return null; // no copy yet: the whole view is on its way
      if (msg.base !== this.revision) return this.lost();
      let view;
      try {
        view = applyOps(this.view, msg.ops ?? []);
      } catch (error) {
        if (error instanceof PatchMismatch) return this.lost();
        throw error;
      }
      if (typeof view !== "object" || view === null || Array.isArray(view)) return this.lost();
      this.view = view;
      this.revision = msg.revision;
      this.index();
      return drawable(view);
    }
    return null;
  }

  /** The text of a message's field in the copy (null: no copy, no such message, not a string).
   * @param {string} id @param {string} field @returns {string|null} */
  text(id, field) {
    const value = this.byId.get(id)?.[field];
    return typeof value === "string" ? value : null;
  }

  index() {
    this.byId = new Map();
    for (const message of this.view?.messages ?? []) {
      if (message && typeof message === "object" && typeof message.id === "string") this.byId.set(message.id, message);
    }
  }

  lost() {
    this.view = null;
    this.revision = null;
    this.byId = new Map();
    return RESYNC;
  }
}

/** The view to draw after a patch: its own copy of everything but the messages, which it shares with the copy.
 * @param {any} view */
function drawable(view) {
  const { messages, ...rest } = view;
  const drawn = structuredClone(rest);
  if (Array.isArray(messages)) drawn.messages = messages.slice();
  else if (messages !== undefined) drawn.messages = structuredClone(messages);
  return drawn;
}

/** @param {Map<string, any>} byId @param {any[]} ops */
export function applyDelta(byId, ops) {
  for (const op of ops) {
    const message = byId.get(op?.id);
    const field = op?.field;
    const text = op?.append;
    if (!message || typeof field !== "string" || typeof text !== "string") continue;
    if (field === "content" || field === "reasoning_content") {
      message[field] = textOf(message[field]) + text;
    } else if (field.startsWith("args:")) {
      const callId = field.slice("args:".length);
      for (const call of Array.isArray(message.tool_calls) ? message.tool_calls : []) {
        if (call && typeof call === "object" && call.id === callId) {
          call.arguments = textOf(call.arguments) + text;
          break;
        }
      }
    }
  }
}

/** @param {any} value */
function textOf(value) {
  return typeof value === "string" ? value : "";
}
