// Every string a person reads in the widget, one table per language (the kernel's notices have their own table,
// notebook_chat/engine/notices.py). `t(key, params)` looks a key up in the widget's language — Chat(locale=...), else
// the page's: JupyterLab's language setting sets <html lang> (@jupyterlab/translation-extension, once its language
// pack is loaded), else the browser's — and fills `{name}` slots. Each view keeps its own language (see `current`).
// test/i18n.test.js keeps both tables' keys equal and non-empty; an unknown key throws (a typo is a bug).

/** @type {Record<string, string>} */
const en = {
  "slash.menu": "Commands",
  "slash.argument.instruction": "instruction",
  "slash.argument.text": "text",
  "slash.continue": "Continue the interrupted turn, with an optional instruction",
  "slash.retry": "Send the failed request again",
  "slash.new": "Start a new conversation",
  "slash.clear": "Clear this conversation",
  "slash.stop": "Stop the running turn",
  "slash.help": "Show the keyboard shortcuts and commands",
  "slash.unknown": "Unknown command {name} (type / to see the commands; // sends a message starting with /)",
  "slash.busy": "A turn is running: {name} works once it has ended (/stop ends it).",
  "slash.nothing_to_continue": "Nothing to continue: Continue is offered after a turn was stopped, failed or cut off.",
  "slash.nothing_to_stop": "Nothing to stop: no turn is running.",
  "slash.continuing": "Continuing the turn…",
  "slash.retrying": "Retrying…",
  "slash.new_done": "Starting a new conversation…",
  "slash.clear_done": "Clearing the conversation…",
  "slash.help_shown": "The keyboard shortcuts are shown below the message box.",
  "slash.ran": "Ran {name}.",
  "slash.running": "Running {name}…",
  "slash.failed": "The command failed: {error}",
  "help.button": "Keyboard shortcuts",
  "help.title": "Keyboard shortcuts and commands",
  "help.enter": "Send the message (or run the / command)",
  "help.shift_enter": "New line in the message",
  "help.escape": "Stop the running turn; close a menu or the deny form",
  "help.tab": "Move between the chat's controls in reading order",
  "help.buttons": "Press the focused button (Approve, Deny, Continue, Copy…)",
  "help.slash": "At the start of the message: the command menu",
  "help.menu": "Choose in the command menu, run, close",
  "help.save": "Save the notebook",
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
  "action.failed": "the action failed",
  "end.max_tokens": "The reply was cut off at the token limit.",
  "end.aborted": "Stopped before the reply finished.",
  "end.error": "The request failed.",
  "end.error_detail": "The request failed: {error}",
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
  "usage.reply": "{input} tokens in · {output} out",
  "usage.reply_total": "{total} tokens",
  "reply.left_out_one": "1 older turn was not sent (it did not fit the context window)",
  "reply.left_out": "{n} older turns were not sent (they did not fit the context window)",
  "storage.none": "not saved in notebook metadata",
  "storage.none_title":
    "No notebook document is reachable from this view; the kernel keeps the conversation in its own store.",
  "storage.unreachable": "no notebook document is reachable from this view",
  "dead.kernel": "The kernel restarted — run this cell again to continue.",
  "scroll.jump": "Jump to latest ↓",
  "empty.intro": "Chatting with {provider}. The model runs tools here, in this kernel, next to your data.",
  "empty.intro_plain": "The model runs tools here, in this kernel, next to your data.",
  "empty.tools": "Tools it can call:",
  "empty.no_tools": "No tools yet: register Python functions with @tool and pass them as Chat(tools=[...]).",
  "empty.needs_approval": "(asks you first)",
  "thinking.summary": "Thinking",
  "code.copy": "Copy",
  "message.copy": "Copy",
  "message.copy_title": "Copy this message as markdown",
  "message.regenerate": "Regenerate",
  "message.regenerate_title": "Send your last message again for a new reply (this reply is replaced)",
  "message.edit": "Edit",
  "message.edit_title": "Edit your last message and send it again (what followed it is replaced)",
  "message.edit_label": "Edit your message",
  "message.edit_send": "Send",
  "message.edit_cancel": "Cancel",
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
  "tool.status.stopped": "stopped",
  "tool.stopped": "Not run: the turn was stopped before a decision.",
  "tool.by_user": "by you",
  "tool.by_code": "from code",
  "tool.approved_line": "Approved {who} · {when}",
  "tool.denied_line": "Denied {who} · {when}",
  "tool.denied_line_reason": "Denied {who} · {when}: {reason}",
  "tool.denied_reason": "Denied: {reason}",
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
  "mentions.once": "@ this turn only",
  "mentions.once_title": "Describe the mentioned variables for this message only: not kept in the notebook, not sent again",
  "skills.label": "Skills",
  "skills.active": "active: its instructions go with every request",
  "skills.inactive": "inactive",
  "skills.turn_on": "click to turn on",
  "skills.turn_off": "click to turn off",
  "conversations.label": "Conversations",
  "conversations.list": "Conversations",
  "conversations.list_count": "{title} ({count}) ▾",
  "conversations.new": "New conversation",
  "conversations.untitled": "New conversation",
  "conversations.rename": "Rename",
  "conversations.rename_named": "Rename “{title}”",
  "conversations.delete": "Delete",
  "conversations.delete_named": "Delete “{title}”",
  "conversations.delete_confirm": "Delete “{title}” for good?",
  "conversations.clear": "Clear",
  "conversations.clear_confirm": "Empty this conversation (its messages are gone for good)?",
  "conversations.confirm_yes": "Yes",
  "conversations.confirm_no": "Cancel",
  "conversations.copy": "Copy as Markdown",
  "conversations.download": "Download Markdown",
  "conversations.cells": "Insert as cells",
  "conversations.cells_failed": "The cells could not be inserted: no notebook is reachable from this view.",
  "conversations.mark_paused": "waits for approval",
  "conversations.mark_interrupted": "interrupted",
  "conversations.mark_running": "running",
};

/** @type {Record<string, string>} */
const zhCN = {
  "slash.menu": "命令",
  "slash.argument.instruction": "说明",
  "slash.argument.text": "文本",
  "slash.continue": "继续被中断的一轮对话，可附加说明",
  "slash.retry": "重新发送失败的请求",
  "slash.new": "开始新的对话",
  "slash.clear": "清空当前对话",
  "slash.stop": "停止正在进行的一轮",
  "slash.help": "显示键盘快捷键和命令",
  "slash.unknown": "未知命令 {name}（输入 / 查看命令；以 // 开头可发送以 / 开头的消息）",
  "slash.busy": "本轮正在进行：{name} 需在结束后使用（/stop 可结束本轮）。",
  "slash.nothing_to_continue": "没有可继续的内容：只有在一轮被停止、失败或截断后才能继续。",
  "slash.nothing_to_stop": "没有可停止的内容：当前没有正在进行的一轮。",
  "slash.continuing": "正在继续本轮…",
  "slash.retrying": "正在重试…",
  "slash.new_done": "正在开始新的对话…",
  "slash.clear_done": "正在清空对话…",
  "slash.help_shown": "键盘快捷键显示在输入框下方。",
  "slash.ran": "已运行 {name}。",
  "slash.running": "正在运行 {name}…",
  "slash.failed": "命令失败：{error}",
  "help.button": "键盘快捷键",
  "help.title": "键盘快捷键和命令",
  "help.enter": "发送消息（或运行 / 命令）",
  "help.shift_enter": "在消息中换行",
  "help.escape": "停止正在进行的一轮；关闭菜单或拒绝表单",
  "help.tab": "按阅读顺序在聊天控件之间移动",
  "help.buttons": "按下获得焦点的按钮（批准、拒绝、继续、复制…）",
  "help.slash": "在消息开头：打开命令菜单",
  "help.menu": "在命令菜单中选择、运行、关闭",
  "help.save": "保存笔记本",
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
  "action.failed": "操作失败",
  "end.max_tokens": "回复因达到 token 上限而被截断。",
  "end.aborted": "回复完成前已停止。",
  "end.error": "请求失败。",
  "end.error_detail": "请求失败：{error}",
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
  "usage.reply": "输入 {input} token · 输出 {output}",
  "usage.reply_total": "{total} token",
  "reply.left_out_one": "有 1 轮较早的对话未发送（超出上下文窗口）",
  "reply.left_out": "有 {n} 轮较早的对话未发送（超出上下文窗口）",
  "storage.none": "未保存在笔记本元数据中",
  "storage.none_title": "此视图无法访问笔记本文档；对话保存在内核自己的存储中。",
  "storage.unreachable": "此视图无法访问笔记本文档",
  "dead.kernel": "内核已重启——请重新运行此单元格以继续。",
  "scroll.jump": "跳到最新 ↓",
  "empty.intro": "正在与 {provider} 对话。模型在这个内核里、在你的数据旁边运行工具。",
  "empty.intro_plain": "模型在这个内核里、在你的数据旁边运行工具。",
  "empty.tools": "可调用的工具：",
  "empty.no_tools": "还没有工具：用 @tool 注册 Python 函数，并通过 Chat(tools=[...]) 传入。",
  "empty.needs_approval": "（运行前需你批准）",
  "thinking.summary": "思考过程",
  "code.copy": "复制",
  "message.copy": "复制",
  "message.copy_title": "以 Markdown 复制此消息",
  "message.regenerate": "重新生成",
  "message.regenerate_title": "再次发送你的上一条消息以获得新回复（此回复将被替换）",
  "message.edit": "编辑",
  "message.edit_title": "编辑你的上一条消息并重新发送（其后的内容将被替换）",
  "message.edit_label": "编辑你的消息",
  "message.edit_send": "发送",
  "message.edit_cancel": "取消",
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
  "tool.status.stopped": "已停止",
  "tool.stopped": "未运行：本轮在做出决定前已停止。",
  "tool.by_user": "由你",
  "tool.by_code": "由代码",
  "tool.approved_line": "{who}批准 · {when}",
  "tool.denied_line": "{who}拒绝 · {when}",
  "tool.denied_line_reason": "{who}拒绝 · {when}：{reason}",
  "tool.denied_reason": "已拒绝：{reason}",
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
  "mentions.once": "@ 仅本轮",
  "mentions.once_title": "所提及的变量只为这条消息描述：不保存在笔记本中，也不再次发送",
  "skills.label": "技能",
  "skills.active": "已启用：其说明随每个请求发送",
  "skills.inactive": "未启用",
  "skills.turn_on": "点击启用",
  "skills.turn_off": "点击停用",
  "conversations.label": "对话",
  "conversations.list": "对话",
  "conversations.list_count": "{title}（{count}）▾",
  "conversations.new": "新对话",
  "conversations.untitled": "新对话",
  "conversations.rename": "重命名",
  "conversations.rename_named": "重命名“{title}”",
  "conversations.delete": "删除",
  "conversations.delete_named": "删除“{title}”",
  "conversations.delete_confirm": "永久删除“{title}”？",
  "conversations.clear": "清空",
  "conversations.clear_confirm": "清空此对话（消息将被永久删除）？",
  "conversations.confirm_yes": "确定",
  "conversations.confirm_no": "取消",
  "conversations.copy": "复制为 Markdown",
  "conversations.download": "下载 Markdown",
  "conversations.cells": "插入为单元格",
  "conversations.cells_failed": "无法插入单元格：此视图无法访问笔记本。",
  "conversations.mark_paused": "等待批准",
  "conversations.mark_interrupted": "已中断",
  "conversations.mark_running": "运行中",
};

/** @type {Record<string, Record<string, string>>} */
export const DICTIONARIES = { en, "zh-CN": zhCN };

/**
 * The language of the view whose code runs now. Each view has its own (two chats on one page may differ): the view
 * sets it at every way in — built, a kernel message, an event inside its element (`inLanguage`, `followLanguage`),
 * a timer or promise it started (`bound`) — so `t` needs no view passed around. "" = not inside a view: the page's.
 */
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

/** The table for a language tag ("zh", "zh_CN", "zh-Hans" → "zh-CN"; else "en"). @param {string} tag */
export function matchLanguage(tag) {
  if (tag in DICTIONARIES) return tag;
  return tag.toLowerCase().startsWith("zh") ? "zh-CN" : "en";
}

/** @param {string} language */
function checked(language) {
  if (!(language in DICTIONARIES)) throw new Error(`no strings for language ${language}`);
  return language;
}

/** Set the language for what runs next (tests; a view uses `inLanguage`). @param {string} language */
export function setLanguage(language) {
  current = checked(language);
}

/**
 * Run `fn` with `language` in effect, then put the previous one back.
 * @template T @param {string} language @param {() => T} fn @returns {T}
 */
export function inLanguage(language, fn) {
  const before = current;
  current = checked(language);
  try {
    return fn();
  } finally {
    current = before;
  }
}

/**
 * `fn`, to run later (a timer, an animation frame, a promise) in the language in effect now.
 * @template {(...args: any[]) => any} F @param {F} fn @returns {F}
 */
export function bound(fn) {
  const language = current;
  return /** @type {F} */ ((...args) => (language ? inLanguage(language, () => fn(...args)) : fn(...args)));
}

const EVENTS = ["click", "dblclick", "keydown", "keyup", "keypress", "input", "change", "focus", "blur", "focusin",
  "focusout", "pointerdown", "pointerup", "mousedown", "mouseup", "compositionend", "paste", "copy", "toggle",
  "scroll", "submit"];

/**
 * Every event inside `el` runs its handlers in `language` (capturing, so before any handler inside). Returns the
 * undo. @param {HTMLElement} el @param {string} language
 */
export function followLanguage(el, language) {
  checked(language);
  const enter = () => {
    current = language;
  };
  for (const type of EVENTS) el.addEventListener(type, enter, true);
  return () => {
    for (const type of EVENTS) el.removeEventListener(type, enter, true);
  };
}

/** The language in effect ("" outside a view: the page's is used). */
export function currentLanguage() {
  return current;
}

/** @param {string} key @param {Record<string, string|number>} [params] @returns {string} */
export function t(key, params) {
  if (!(key in en)) throw new Error(`unknown string key ${key}`);
  const table = DICTIONARIES[current || detectLanguage()] ?? en;
  const text = table[key] ?? en[key];
  if (!params) return text;
  return text.replace(/\{(\w+)\}/g, (slot, name) => (name in params ? String(params[name]) : slot));
}
