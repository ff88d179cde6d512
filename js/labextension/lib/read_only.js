// The read-only view of a chat whose widget model is missing (a notebook opened without running its cells:
// ipywidgets says "Error displaying widget: model not found"). Drawn from the notebook's metadata: every
// conversation stored under the chat's key, in both layouts (version 1: one record per key; version 2:
// `{active, items: {id: record}}`). Metadata is untrusted: only text is put into the page (textContent), never
// markup from the record, and what is drawn is bounded. Without a stored entry the kernel's transcript in the same
// output (notebook_chat/widget/transcript.py) is shown, through the notebook's own sanitizer.

const MODEL_NOT_FOUND = 'Error displaying widget: model not found';
const METADATA_KEY = 'notebook_chat';
const WIDGET_MIME = 'application/vnd.jupyter.widget-view+json';
const TRANSCRIPT_CLASS = 'notebook-chat-transcript';
export const READ_ONLY_CLASS = 'notebook-chat-read-only';
const MAX_CONVERSATIONS = 1000;
const MAX_MESSAGES = 500;
const MAX_TEXT_CHARS = 20000;
const MAX_LINE_CHARS = 300;

const STRINGS = {
  en: {
    note: 'Read-only: the conversation saved in this notebook. Run this cell to continue it.',
    notes: 'Read-only: the {n} conversations saved in this notebook. Run this cell to continue.',
    user: 'You',
    assistant: 'Assistant',
    conversation: 'Conversation {n}',
    active: '(active)',
    empty: 'No messages yet.',
    earlier: '{n} earlier messages not shown',
    more: '[… {n} more characters]',
    call: 'Tool call',
  },
  'zh-CN': {
    note: '只读：此笔记本中保存的对话。运行此单元格以继续对话。',
    notes: '只读：此笔记本中保存的 {n} 个对话。运行此单元格以继续。',
    user: '你',
    assistant: '助手',
    conversation: '对话 {n}',
    active: '（当前）',
    empty: '还没有消息。',
    earlier: '未显示较早的 {n} 条消息',
    more: '[… 还有 {n} 个字符]',
    call: '工具调用',
  },
};

function strings() {
  const lang = (document.documentElement.lang || (globalThis.navigator && navigator.language) || 'en').toLowerCase();
  return lang.startsWith('zh') ? STRINGS['zh-CN'] : STRINGS.en;
}

function isObject(value) {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The renderer node ipywidgets filled with its one "model not found" text node (cheap to test). */
export function isModelNotFound(node) {
  return node.nodeType === 1 && node.childNodes.length === 1 && node.firstChild.nodeType === 3 &&
    node.firstChild.data === MODEL_NOT_FOUND;
}

/** An output drawn as its text/plain (an untrusted notebook: the widget's renderer is not used). */
export function isPlainTextOutput(node) {
  return node.nodeType === 1 && node.classList.contains('jp-OutputArea-output') &&
    node.getAttribute('data-mime-type') === 'text/plain' && !node.classList.contains(READ_ONLY_CLASS);
}

/** The cell and output (model JSON) that `node` renders, or null. */
function outputOf(panel, node) {
  const child = node.closest('.jp-OutputArea-child');
  const area = child && child.parentElement;
  const cell = panel.content.widgets.find((widget) => widget.node.contains(node));
  const outputs = cell && cell.model && cell.model.outputs;
  if (!child || !area || !outputs) {
    return null;
  }
  const index = Array.from(area.children).filter((c) => c.classList.contains('jp-OutputArea-child')).indexOf(child);
  const output = index >= 0 && index < outputs.length ? outputs.get(index) : null;
  return output ? { cell, output: typeof output.toJSON === 'function' ? output.toJSON() : output } : null;
}

/** The conversations of a stored entry, `[[id, record]]` in stored order, and the active id. */
export function conversationsOf(entry) {
  if (!isObject(entry)) {
    return { items: [], active: null };
  }
  if ('items' in entry) {
    const items = isObject(entry.items) ? Object.entries(entry.items).filter(([, r]) => isObject(r)) : [];
    const active = typeof entry.active === 'string' ? entry.active : null;
    return { items: items.slice(0, MAX_CONVERSATIONS), active };
  }
  return { items: [['main', entry]], active: 'main' };
}

function textOf(content, t) {
  let text = content;
  if (Array.isArray(content)) {
    text = content.filter((part) => isObject(part) && part.type === 'text' && typeof part.text === 'string')
      .map((part) => part.text).join('\n');
  }
  text = typeof text === 'string' ? text : '';
  return text.length > MAX_TEXT_CHARS
    ? `${text.slice(0, MAX_TEXT_CHARS)}\n${t.more.replace('{n}', String(text.length - MAX_TEXT_CHARS))}` : text;
}

function clip(text) {
  return text.length > MAX_LINE_CHARS ? `${text.slice(0, MAX_LINE_CHARS)} …` : text;
}

function callLines(message, results, t) {
  if (!Array.isArray(message.tool_calls)) {
    return [];
  }
  const states = isObject(message.state) && isObject(message.state.tool_calls) ? message.state.tool_calls : {};
  const lines = [];
  for (const call of message.tool_calls) {
    if (!isObject(call) || !isObject(call.function)) {
      continue;
    }
    const id = String(call.id);
    const name = typeof call.function.name === 'string' ? call.function.name : '?';
    const args = typeof call.function.arguments === 'string' ? call.function.arguments : '';
    const status = isObject(states[id]) && typeof states[id].status === 'string' ? `: ${states[id].status}` : '';
    const result = results.get(id);
    const outcome = result ? textOf(result.content, t).trim() : '';
    lines.push(`${t.call} ${clip(`${name}(${args})`)}${status}${outcome ? ` → ${clip(outcome)}` : ''}`);
  }
  return lines;
}

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) {
    node.className = className;
  }
  if (text !== undefined) {
    node.textContent = text;
  }
  return node;
}

function drawConversation(id, record, number, isActive, t) {
  const section = element('section', `${READ_ONLY_CLASS}-conversation`);
  section.dataset.conversationId = id;
  const title = typeof record.title === 'string' && record.title ? record.title.slice(0, 200)
    : t.conversation.replace('{n}', String(number));
  section.append(element('h3', `${READ_ONLY_CLASS}-title`, isActive ? `${title} ${t.active}` : title));
  const messages = Array.isArray(record.messages) ? record.messages.filter(isObject) : [];
  const results = new Map(messages.filter((m) => m.role === 'tool').map((m) => [String(m.tool_call_id), m]));
  let visible = messages.filter((m) => (m.role === 'user' || m.role === 'assistant') &&
    !(isObject(m.metadata) && m.metadata.hidden));
  const leftOut = Math.max(0, visible.length - MAX_MESSAGES);
  visible = visible.slice(leftOut);
  if (leftOut) {
    section.append(element('p', `${READ_ONLY_CLASS}-earlier`, t.earlier.replace('{n}', String(leftOut))));
  }
  const list = element('div', `${READ_ONLY_CLASS}-messages`);
  list.setAttribute('role', 'list');
  for (const message of visible) {
    const item = element('div', `${READ_ONLY_CLASS}-message`);
    item.setAttribute('role', 'listitem');
    item.dataset.role = message.role;
    item.append(element('strong', `${READ_ONLY_CLASS}-role`, message.role === 'user' ? t.user : t.assistant));
    const text = textOf(message.content, t).trim();
    if (text) {
      item.append(element('div', `${READ_ONLY_CLASS}-text`, text));
    }
    for (const line of callLines(message, results, t)) {
      item.append(element('code', `${READ_ONLY_CLASS}-call`, line));
    }
    list.append(item);
  }
  if (!visible.length) {
    list.append(element('p', `${READ_ONLY_CLASS}-empty`, t.empty));
  }
  section.append(list);
  return section;
}

const STYLE = `
.${READ_ONLY_CLASS} { font-size: var(--jp-content-font-size1); color: var(--jp-content-font-color1); }
.${READ_ONLY_CLASS}-note { padding: 4px 8px; margin-bottom: 6px; border-left: 3px solid var(--jp-brand-color1);
  background: var(--jp-layout-color2); color: var(--jp-ui-font-color1); font-size: var(--jp-ui-font-size1); }
.${READ_ONLY_CLASS}-title { font-size: var(--jp-content-font-size2); margin: 8px 0 4px; }
.${READ_ONLY_CLASS}-message { margin: 4px 0; padding: 4px 8px; border-radius: 4px; }
.${READ_ONLY_CLASS}-message[data-role="user"] { background: var(--jp-layout-color2); }
.${READ_ONLY_CLASS}-text { white-space: pre-wrap; overflow-wrap: anywhere; }
.${READ_ONLY_CLASS}-call { display: block; white-space: pre-wrap; overflow-wrap: anywhere; margin-top: 2px;
  font-size: var(--jp-code-font-size); }
.${READ_ONLY_CLASS}-role { display: block; font-size: var(--jp-ui-font-size1); color: var(--jp-ui-font-color2); }
`;

function ensureStyle() {
  if (!document.getElementById(`${READ_ONLY_CLASS}-style`)) {
    const style = element('style');
    style.id = `${READ_ONLY_CLASS}-style`;
    style.textContent = STYLE;
    document.head.append(style);
  }
}

function transcriptHtml(output) {
  let html = output && isObject(output.data) ? output.data['text/html'] : null;
  html = Array.isArray(html) ? html.join('') : html;
  return typeof html === 'string' && html.includes(`class="${TRANSCRIPT_CLASS}"`) ? html : null;
}

function keyOf(output, cell) {
  const meta = isObject(output.metadata) && isObject(output.metadata[METADATA_KEY]) ? output.metadata[METADATA_KEY] : {};
  if (typeof meta.key === 'string' && meta.key) {
    return meta.key;
  }
  return cell.model && typeof cell.model.id === 'string' ? cell.model.id : null;
}

function storedEntry(panel, key) {
  const section = panel.context && panel.context.model ? panel.context.model.getMetadata(METADATA_KEY) : null;
  const conversations = isObject(section) && isObject(section.conversations) ? section.conversations : {};
  return key !== null && Object.prototype.hasOwnProperty.call(conversations, key) ? conversations[key] : null;
}

/** Draw the chat output rendered by `node` (model not found, or its text/plain in an untrusted notebook) read-only;
 * false when it is not a chat's output (then nothing changes). */
export function drawReadOnly(panel, node) {
  const located = outputOf(panel, node);
  if (!located) {
    return false;
  }
  const { cell, output } = located;
  if (!isObject(output.data) || !(WIDGET_MIME in output.data)) {
    return false;
  }
  const html = transcriptHtml(output);
  const { items, active } = conversationsOf(storedEntry(panel, keyOf(output, cell)));
  if (!items.length && html === null) {
    return false;
  }
  const t = strings();
  ensureStyle();
  const banner = element('div', `${READ_ONLY_CLASS}-note`, items.length > 1 ? t.notes.replace('{n}', String(items.length)) : t.note);
  banner.setAttribute('role', 'note');
  const body = element('div', `${READ_ONLY_CLASS}-body`);
  if (items.length) {
    items.forEach(([id, record], index) => {
      body.append(drawConversation(id, record, index + 1, items.length > 1 && id === active, t));
    });
  } else {
    const sanitizer = panel.content.rendermime && panel.content.rendermime.sanitizer;
    body.classList.add('jp-RenderedHTMLCommon');
    if (sanitizer && typeof sanitizer.sanitize === 'function') {
      body.innerHTML = sanitizer.sanitize(html);
    } else {
      body.textContent = new DOMParser().parseFromString(html, 'text/html').body.textContent || '';
    }
  }
  node.textContent = '';
  node.classList.add(READ_ONLY_CLASS);
  node.setAttribute('aria-label', banner.textContent);
  node.append(banner, body);
  return true;
}
