// Every string a person reads in the widget, one table per language. `t(key, params)` looks a key up in the page's
// language (JupyterLab sets <html lang>; else the browser's), falls back to English, and fills `{name}` slots.
// The zh-CN table is a first pass; a missing key falls back to English, an unknown key throws (a typo is a bug).

/** @type {Record<string, string>} */
const en = {
  "composer.label": "Message",
  "continue.instruction_label": "Continue instruction",
  "a11y.messages": "Conversation",
  "a11y.user_message": "You",
  "a11y.assistant_message": "Assistant",
  "a11y.reply_finished": "Reply: {text}",
  "code.copy_named": "Copy {lang} code",
  "code.copy_unnamed": "Copy code",
  "code.insert_named": "Insert {lang} code as a cell below",
  "code.insert_unnamed": "Insert code as a cell below",
  "tool.deny_reason_label": "Deny reason",
  "tool.group": "Tool call {name}: {status}",
  "composer.placeholder": "Message (Enter to send, Shift+Enter for a new line, Esc to stop)",
  "composer.send": "Send",
  "composer.stop": "Stop",
  "composer.wait_reply": "Sends after the reply",
  "composer.wait_reply_title": "A reply is streaming: press Enter again when it has finished, or Esc to stop it.",
  "composer.wait_approval": "Decide the tool call first",
  "composer.wait_approval_title": "The turn waits for Approve / Deny on a tool call above.",
  "status.requesting": "Requesting…",
  "status.streaming": "Streaming…",
  "status.calling_tools": "Calling tools…",
  "status.pausing": "Waiting for approval…",
  "status.working": "Working…",
  "status.paused": "Waiting for approval",
  "status.aborted": "Stopped",
  "status.error": "Error: {error}",
  "status.error_unknown": "the request failed",
  "end.max_tokens": "The reply was cut off at the token limit.",
  "end.aborted": "Stopped before the reply finished.",
  "end.error": "The request failed.",
  "end.interrupted": "The turn was interrupted (the kernel stopped before it ended).",
  "continue.button": "Continue",
  "continue.instruction": "Optional instruction",
  "retry.button": "Retry",
  "retry.title": "Send the same request again",
  "recovery.label": "Recover from the failed request",
  "recovery.shorter": "Retry with a shorter history",
  "recovery.remove": "Remove message",
  "recovery.edit": "Edit",
  "recovery.edit_label": "Edit the message",
  "recovery.resend": "Send edited message",
  "usage.total": "Tokens this conversation: {input} in · {output} out",
  "storage.none": "not saved in notebook metadata",
  "storage.none_title":
    "No notebook document is reachable from this view; the kernel keeps the conversation in its own store.",
  "dead.kernel": "The kernel restarted — run this cell again to continue.",
  "scroll.jump": "Jump to latest ↓",
  "thinking.summary": "Thinking",
  "code.copy": "Copy",
  "code.copied": "Copied",
  "code.copy_failed": "Copy failed",
  "code.insert": "Insert cell below",
  "tool.unnamed": "(unnamed tool)",
  "tool.status.running": "running",
  "tool.status.success": "done",
  "tool.status.failed": "failed",
  "tool.status.cancelled": "cancelled",
  "tool.status.awaiting-approval": "awaiting approval",
  "tool.status.denied": "denied",
  "tool.status.pending": "pending",
  "tool.arguments": "Arguments",
  "tool.arguments_editable": "Arguments (editable before approving)",
  "tool.arguments_json": "Arguments as JSON",
  "tool.other_arguments": "Other arguments (JSON)",
  "tool.result": "Result",
  "tool.output": "Output",
  "tool.full_text": "Full text output",
  "tool.edited": "You edited the arguments before approving.",
  "tool.approved": "Approved",
  "tool.approved_by": "Approved by {who}",
  "tool.denied": "Denied",
  "tool.denied_reason": "Denied: {reason}",
  "tool.cancelled": "Cancelled",
  "tool.image_alt": "tool output",
  "tool.approve": "Approve",
  "tool.deny": "Deny",
  "tool.deny_reason": "Reason (optional, sent to the model)",
  "tool.deny_confirm": "Deny tool call",
  "tool.deny_cancel": "Cancel",
  "tool.invalid_json": "Arguments are not valid JSON: {error}",
  "tool.not_object": "Arguments must be a JSON object.",
  "mentions.label": "Variables to mention",
  "mentions.chips": "Mentioned",
  "mentions.temp": "sent this turn only",
  "skills.label": "Skills",
  "skills.active": "active: its instructions go with every request",
  "skills.inactive": "inactive",
  "skills.turn_on": "click to turn on",
  "skills.turn_off": "click to turn off",
};

/** @type {Record<string, string>} */
const zhCN = {
  "composer.label": "消息",
  "continue.instruction_label": "继续时的说明",
  "a11y.messages": "对话",
  "a11y.user_message": "你",
  "a11y.assistant_message": "助手",
  "a11y.reply_finished": "回复：{text}",
  "code.copy_named": "复制 {lang} 代码",
  "code.copy_unnamed": "复制代码",
  "code.insert_named": "将 {lang} 代码插入为下方的单元格",
  "code.insert_unnamed": "将代码插入为下方的单元格",
  "tool.deny_reason_label": "拒绝理由",
  "tool.group": "工具调用 {name}：{status}",
  "composer.placeholder": "输入消息（Enter 发送，Shift+Enter 换行，Esc 停止）",
  "composer.send": "发送",
  "composer.stop": "停止",
  "composer.wait_reply": "回复结束后发送",
  "composer.wait_reply_title": "正在生成回复：结束后再按 Enter，或按 Esc 停止。",
  "composer.wait_approval": "请先处理工具调用",
  "composer.wait_approval_title": "本轮正在等待对上方工具调用的批准或拒绝。",
  "status.requesting": "正在请求…",
  "status.streaming": "正在生成…",
  "status.calling_tools": "正在调用工具…",
  "status.pausing": "等待批准…",
  "status.working": "处理中…",
  "status.paused": "等待批准",
  "status.aborted": "已停止",
  "status.error": "错误：{error}",
  "status.error_unknown": "请求失败",
  "end.max_tokens": "回复因达到 token 上限而被截断。",
  "end.aborted": "回复完成前已停止。",
  "end.error": "请求失败。",
  "end.interrupted": "本轮被中断（内核在结束前停止）。",
  "continue.button": "继续",
  "continue.instruction": "可选的补充说明",
  "retry.button": "重试",
  "retry.title": "再次发送同一请求",
  "recovery.label": "从失败的请求中恢复",
  "recovery.shorter": "用更短的历史重试",
  "recovery.remove": "删除消息",
  "recovery.edit": "编辑",
  "recovery.edit_label": "编辑消息",
  "recovery.resend": "发送编辑后的消息",
  "usage.total": "本对话 token：输入 {input} · 输出 {output}",
  "storage.none": "未保存在笔记本元数据中",
  "storage.none_title": "此视图无法访问笔记本文档；对话保存在内核自己的存储中。",
  "dead.kernel": "内核已重启——请重新运行此单元格以继续。",
  "scroll.jump": "跳到最新 ↓",
  "thinking.summary": "思考过程",
  "code.copy": "复制",
  "code.copied": "已复制",
  "code.copy_failed": "复制失败",
  "code.insert": "在下方插入单元格",
  "tool.unnamed": "（未命名工具）",
  "tool.status.running": "运行中",
  "tool.status.success": "完成",
  "tool.status.failed": "失败",
  "tool.status.cancelled": "已取消",
  "tool.status.awaiting-approval": "等待批准",
  "tool.status.denied": "已拒绝",
  "tool.status.pending": "待处理",
  "tool.arguments": "参数",
  "tool.arguments_editable": "参数（批准前可编辑）",
  "tool.arguments_json": "JSON 形式的参数",
  "tool.other_arguments": "其他参数（JSON）",
  "tool.result": "结果",
  "tool.output": "输出",
  "tool.full_text": "完整文本输出",
  "tool.edited": "你在批准前修改了参数。",
  "tool.approved": "已批准",
  "tool.approved_by": "由{who}批准",
  "tool.denied": "已拒绝",
  "tool.denied_reason": "已拒绝：{reason}",
  "tool.cancelled": "已取消",
  "tool.image_alt": "工具输出",
  "tool.approve": "批准",
  "tool.deny": "拒绝",
  "tool.deny_reason": "理由（可选，会发送给模型）",
  "tool.deny_confirm": "拒绝此调用",
  "tool.deny_cancel": "取消",
  "tool.invalid_json": "参数不是有效的 JSON：{error}",
  "tool.not_object": "参数必须是 JSON 对象。",
  "mentions.label": "可提及的变量",
  "mentions.chips": "已提及",
  "mentions.temp": "仅本轮发送",
  "skills.label": "技能",
  "skills.active": "已启用：其说明随每个请求发送",
  "skills.inactive": "未启用",
  "skills.turn_on": "点击启用",
  "skills.turn_off": "点击停用",
};

/** @type {Record<string, Record<string, string>>} */
export const DICTIONARIES = { en, "zh-CN": zhCN };

let current = "";

/** The page's language, matched to a table ("zh", "zh-Hans" → "zh-CN"), else "en". */
export function detectLanguage() {
  const wanted = [
    globalThis.document?.documentElement?.lang,
    ...(globalThis.navigator?.languages ?? []),
    globalThis.navigator?.language,
  ];
  for (const tag of wanted) {
    if (!tag) continue;
    if (tag in DICTIONARIES) return tag;
    if (tag.toLowerCase().startsWith("zh")) return "zh-CN";
    if (tag.toLowerCase().startsWith("en")) return "en";
  }
  return "en";
}

/** @param {string} language a key of DICTIONARIES (tests; a page follows its own language) */
export function setLanguage(language) {
  if (!(language in DICTIONARIES)) throw new Error(`no strings for language ${language}`);
  current = language;
}

/** @param {string} key @param {Record<string, string|number>} [params] @returns {string} */
export function t(key, params) {
  if (!(key in en)) throw new Error(`unknown string key ${key}`);
  const table = DICTIONARIES[current || (current = detectLanguage())] ?? en;
  const text = table[key] ?? en[key];
  if (!params) return text;
  return text.replace(/\{(\w+)\}/g, (slot, name) => (name in params ? String(params[name]) : slot));
}
