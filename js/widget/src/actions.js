// Browser→kernel actions: the same table as notebook_chat/widget/actions.py (the kernel validates; this side only
// builds them). Every action carries a request_id; the kernel answers with an "action_result".
import { t } from "./i18n.js";

/** @type {Record<string, string[]>} kind -> payload fields */
export const ACTIONS = {
  ready: ["notebook", "cell_id", "record", "locale", "writer", "record_gzip"],
  send: ["text", "temp_mentions"],
  stop: [],
  approve: ["tool_call_id", "arguments"],
  deny: ["tool_call_id", "reason"],
  continue: ["instruction"],
  skill: ["name", "active"],
  retry: ["shorter"],
  remove_message: ["message_id"],
  edit_and_resend: ["message_id", "text"],
  command: ["name", "argument"],
  complete_mentions: ["prefix"],
  new_conversation: ["title"],
  switch_conversation: ["conversation_id"],
  rename_conversation: ["conversation_id", "title"],
  delete_conversation: ["conversation_id"],
  clear_conversation: [],
  export_conversation: ["conversation_id", "format"],
  persisted: ["key", "ok", "error", "revision", "stale"],
  view_resync: [],
  view_older: ["before"],
};

export class ActionSender {
  /** @param {(msg: object, buffers?: ArrayBuffer[]) => void} post */
  constructor(post) {
    this.post = post;
    this.prefix = Math.random().toString(36).slice(2, 8);
    this.counter = 0;
    /** @type {Map<string, (error: string) => void>} */
    this.onError = new Map();
    /** @type {Map<string, (message: string|null) => void>} */
    this.onDone = new Map();
  }

  /**
   * @param {{kind: string} & Record<string, any>} msg
   * @param {(error: string) => void} [onError] shown next to the control that sent it
   * @param {(message: string|null) => void} [onDone] the kernel ran it (`message`: what a command said)
   * @param {ArrayBuffer[]} [buffers] binary buffers sent with it (a packed record: `ready`'s `record_gzip`)
   */
  send(msg, onError, onDone, buffers) {
    if (!(msg.kind in ACTIONS)) throw new Error(`unknown action kind ${msg.kind}`);
    const request_id = `${this.prefix}-${++this.counter}`;
    if (onError) this.onError.set(request_id, onError);
    if (onDone) this.onDone.set(request_id, onDone);
    this.post({ ...msg, request_id }, buffers);
    return request_id;
  }

  /**
   * An "action_result" from the kernel. Returns false when the result is not for this view.
   * @param {{request_id: string|null, ok: boolean, error: string|null, message?: string|null}} result
   * @param {(error: string) => void} fallback for errors without a registered handler
   */
  result(result, fallback) {
    const id = result.request_id;
    if (id !== null && !id.startsWith(`${this.prefix}-`)) return false;
    const handler = id === null ? undefined : this.onError.get(id);
    const done = id === null ? undefined : this.onDone.get(id);
    if (id !== null) {
      this.onError.delete(id);
      this.onDone.delete(id);
    }
    if (!result.ok) (handler ?? fallback)(result.error ?? t("action.failed"));
    else done?.(typeof result.message === "string" ? result.message : null);
    return true;
  }
}
