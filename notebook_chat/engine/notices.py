"""Every sentence the kernel side shows a person (notices, refusals of a browser action), one table per language
(the browser's labels are in js/widget/src/i18n.js). Every layer builds them with ``Notice(key, **slots)``: a ``str``
whose value is the English sentence (what code, logs and exceptions read) that keeps its key and slots, so the widget
says it again in the language of the view (``say(notice, "zh-CN")``). A slot may hold another Notice (a reason).

Model-facing texts (the continuation prompt, denial and cancellation results) are not here: they stay in English.
tests/widget/test_strings.py keeps the tables' keys and slots equal, every string non-empty, every key used here, and
fails when a notice or a refusal is written as a literal instead of going through this table.
"""

from __future__ import annotations

from collections.abc import Mapping

EN: Mapping[str, str] = {
    # notebook storage (widget/chat.py)
    "notice.write_failed": (
        "This chat could not be stored in the notebook ({error}). It lives only in this kernel until a write "
        "succeeds: the next change tries again. Save your work another way if this persists "
        "(a FileStore: Chat(store=FileStore(path)))."),
    "notice.no_notebook": (
        "No notebook document is reachable from this front end (VS Code, Colab, a plain page): the conversation "
        "is kept in {store} only."),
    "notice.refused_in_store": "{reason}. It is kept untouched; this chat is not saved.",
    "notice.refused_in_notebook": "{reason}. It is kept untouched in the notebook; this chat is not saved.",
    "notice.save_failed": "The conversation could not be saved: {error}",
    "notice.not_an_object": (
        "The conversation stored in this notebook is not a JSON object (got {type}); left untouched."),
    "notice.packed_unreadable": (
        "The conversation stored in this notebook reached the kernel compressed and could not be unpacked ({error}); "
        "left untouched."),
    "notice.joined": "{first} {second}",
    # reading a stored conversation (persistence/loading.py)
    "load.unusable": "the stored conversation can't be used: {reason}",
    "load.conversations_unusable": "the stored conversations can't be used: {error}",
    "load.not_strict_json": "the record is not strict JSON: {error}",
    "load.secret": "the record carries a secret and is refused: {error}",
    "load.store_unreadable": "the conversation store can't be read: {error}",
    "load.paused_dropped": "the stored paused turn was dropped: the paused turn can't be restored: {error}",
    # a restored history repaired (engine/restored.py)
    "restore.repaired": "The stored conversation was repaired: {parts}. Nothing was run.",
    "restore.answered": "{n} tool call(s) without a result got '{result}'",
    "restore.dropped": "{n} tool result(s) without their call were dropped",
    "restore.closed": "{n} answered tool call(s) still marked running or awaiting approval were marked {status}",
    "restore.list": "{first}; {second}",
    # tools and approvals (plugins/tools.py)
    "tools.not_restored": "{reason}. Nothing was run; the messages are kept.",
    "tools.paused_unreadable": "the stored paused turn can't be read: {error}",
    "tools.paused_not_restored": "the stored paused turn was not restored: {reason}",
    "tools.already_decided": (
        "{n} tool call(s) were already decided in an earlier kernel on this machine (approval ledger), so they were "
        "not offered again: {ids}."),
    "tools.ledger_unwritable": (
        "The approval ledger {path} can't be written ({error}): a call approved here could be offered again if "
        "the notebook is closed without saving."),
    # an Approve that can't run the call (plugins/tools.py, plugins/skills.py): the refusal in the widget
    "tools.unregistered": (
        "the tool {name!r} is not registered in this kernel, so the call can't run here; register it and try again, "
        "or deny the call"),
    "tools.arguments_not_object": "arguments must be a JSON object (a string or a dict)",
    "tools.edited_not_json": "the edited arguments are not valid JSON: {error}",
    "tools.edited_not_object": "the edited arguments must be a JSON object",
    "skills.missing": (
        "the skill {name!r} is not available in this kernel (available: {available}), so the call can't run; deny "
        "it, or give the chat that skill and try again"),
    "skills.gone": (
        "the skill {name!r} is no longer on disk ({path} is missing), so the call can't run; deny it, or restore "
        "the folder and try again"),
    # MCP servers (tools/mcp_server.py)
    "mcp.unavailable": "the MCP server {label!r} is not available ({error}): its tools are left out",
    # the chat's refusals of a user action (widget/chat.py, widget/recovery.py)
    "chat.empty_message": "the message is empty",
    "chat.turn_running": "a turn is running: wait for it, stop it, or decide the pending tool calls first",
    "chat.turn_paused": "a turn waits for an approval: wait for it, stop it, or decide the pending tool calls first",
    "chat.continue_refused": "Continue is not possible: {reason}",
    "chat.not_waiting": "tool call {call!r} is not waiting for a decision",
    "command.unknown": "Unknown command {name}: this chat has no such command (type / to see the commands).",
    "recovery.busy_running": "{action} is not possible while a turn is running: stop it first",
    "recovery.busy_paused": "{action} is not possible while a tool call waits for approval: approve or deny it first",
    "recovery.retrying": "Retry",
    "recovery.removing": "Removing a message",
    "recovery.editing": "Editing a message",
    "recovery.nothing_to_retry": "Retry is offered only after a turn that failed: there is nothing to retry",
    "recovery.no_user_message": "Retry needs a user message to send again: there is none",
    "recovery.not_yours": "message {id!r} is not a message you sent: only those can be removed",
    "recovery.no_such_message": "there is no message {id!r} in this conversation",
    "recovery.not_last": "only the last message you sent can be edited and sent again",
    # a browser action that does not match the action table (widget/actions.py)
    "action.not_object": "an action must be a JSON object, got {type}",
    "action.bad_request_id": "request_id must be a string of at most 256 characters",
    "action.unknown_kind": "unknown action kind {kind!r} (known: {known})",
    "action.unexpected_fields": "{kind}: unexpected field(s) {fields}",
    "action.missing_field": "{kind}: missing field {name!r}",
    "action.null_field": "{kind}: field {name!r} must not be null",
    "action.wrong_type": "{kind}: field {name!r} must be {wanted}, got {got}",
    "action.too_long": "{kind}: field {name!r} is longer than {limit} characters",
    "action.empty_field": "{kind}: field {name!r} must not be empty",
    "action.not_a_choice": "{kind}: field {name!r} must be one of {choices}",
    "action.not_json": "{kind}: {name} is not valid JSON ({error})",
    "action.not_json_object": "{kind}: {name} must be a JSON object",
    "action.no_recovery": "this chat cannot retry, remove or edit messages",
    "action.no_commands": "this chat has no commands",
    # bad arguments to Chat(...) (widget/chat.py): raised in the cell that makes the chat
    "chat.bad_prompt": "prompts must be non-empty strings, got {item!r}",
    "chat.prompt_too_long": "a prompt is longer than {limit} characters",
    "chat.too_many_prompts": "at most {limit} prompts, got {n}",
    "chat.builtin_command": "/{name} is one of the widget's own commands: a plugin can't add it (built-in: {builtin})",
    "chat.no_browser_reason": "the browser gave no reason",
    # the conversations of a chat (widget/chat_conversations.py, widget/controller.py, persistence)
    "conversations.running": (
        "a reply is being written in this conversation: stop it or wait for it before you {what}"),
    "conversations.to_new": "start a new conversation",
    "conversations.to_delete": "delete it",
    "conversations.to_clear": "clear it",
    "conversations.to_switch": "switch to another conversation",
    "conversations.unknown": "this chat has no conversation {id!r} (see chat.conversations)",
    "conversations.unreadable": "the conversation {id!r} can't be opened: {reason}. It is kept untouched.",
    "conversations.single": "this chat holds a single conversation",
    "conversations.title_empty": "a conversation title must be non-empty text",
    "conversations.title_too_long": "a conversation title is at most {limit} characters, got {n}",
    "conversations.too_many": "a chat holds at most {limit} conversations; delete some first",
    "engine.load_while_running": "a turn is running: stop it before loading another conversation",
    # why Continue is refused (plugins/continuation.py): the reason slot of chat.continue_refused
    "continue.running": "a turn is running: Continue is offered only after it stops",
    "continue.paused": "the turn is waiting for a tool approval: approve or deny the call instead",
    "continue.no_turn": "there is no turn to continue yet",
    "continue.completed": "the latest turn completed normally: there is nothing to continue",
    "continue.ended": "the latest turn ended {reason!r}, which can't be continued",
    # skills chosen by the user (plugins/skills.py: the skill chips, chat.skills.select)
    "skills.unknown": "no skill named {name!r} (available: {available})",
    "skills.always": "skill_mode='always' keeps every skill active: use 'manual' or 'auto' to choose",
    # %%chat / %chat (widget/magics.py): Markdown in the cell's output, or the error of the cell
    "magic.sending": "*Sent to the chat; the reply streams in the chat widget…*",
    "magic.no_chat": (
        "There is no chat to send to: display one first (a cell ending in `chat = Chat()`), or name it: "
        "`%%chat my_chat`."),
    "magic.not_defined": "%%chat {name}: the variable {name!r} is not defined.",
    "magic.not_a_chat": "%%chat {name}: the variable {name!r} is a {type}, not a Chat.",
    "magic.no_loop": "%chat needs the kernel's running event loop (run it in a Jupyter kernel)",
    "magic.not_sent": "**Not sent:** {error}",
    "magic.waiting": (
        "**Waiting for your approval in the chat widget:** {names}. Approve or Deny there (or with "
        "`await chat.approve(...)`); the reply appears here when the turn ends."),
    "magic.failed": "**The turn failed:** {error}. Continue is offered in the chat widget.",
    "magic.stopped": "**Stopped.**",
    "magic.no_reply": "*(the turn ended without a text reply)*",
    # @mentions refused before sending (plugins/mentions.py, tools/mention_source.py)
    "mentions.refused": "{problems} Nothing was sent. Put a literal @ in backticks (`@name`) to send it as text.",
    "mentions.too_many": "the message mentions {n} names; at most {limit} can be described",
    "mentions.unknown": "@{name}: there is no variable named {name!r} in the kernel's namespace.",
    "mentions.no_error": "No exception has been raised in this kernel yet (nothing to describe for @error).",
    # the kernel-less transcript (widget/transcript.py) and the exports (widget/export.py)
    "transcript.heading": "Chat",
    "transcript.heading_titled": "Chat — {title}",
    "transcript.earlier": "({n} earlier messages not shown)",
    "transcript.empty": "No messages yet.",
    "transcript.more": "[… {n} more characters]",
    "transcript.tool_call": "Tool call {call}",
    "role.user": "You",
    "role.assistant": "Assistant",
    "role.system": "System",
    "export.untitled": "Conversation",
    "export.tool_call": "**Tool call `{name}`**",
    "export.result": "Result:",
}

ZH_CN: Mapping[str, str] = {
    "notice.write_failed": (
        "此对话无法保存到笔记本中（{error}）。在写入成功之前，它只存在于当前内核中：下一次更改时会再次尝试。"
        "如果问题持续，请用其他方式保存（FileStore：Chat(store=FileStore(path))）。"),
    "notice.no_notebook": "此前端（VS Code、Colab 或普通网页）无法访问笔记本文档：对话仅保存在 {store} 中。",
    "notice.refused_in_store": "{reason}。它保持原样；此对话不会被保存。",
    "notice.refused_in_notebook": "{reason}。它在笔记本中保持原样；此对话不会被保存。",
    "notice.save_failed": "无法保存对话：{error}",
    "notice.not_an_object": "此笔记本中保存的对话不是 JSON 对象（而是 {type}）；保持原样。",
    "notice.packed_unreadable": "此笔记本中保存的对话以压缩形式送达内核，但无法解压（{error}）；保持原样。",
    "notice.joined": "{first} {second}",
    "load.unusable": "无法使用保存的对话：{reason}",
    "load.conversations_unusable": "无法使用保存的对话列表：{error}",
    "load.not_strict_json": "记录不是严格的 JSON：{error}",
    "load.secret": "记录中含有密钥，已拒绝：{error}",
    "load.store_unreadable": "无法读取对话存储：{error}",
    "load.paused_dropped": "已丢弃保存的暂停轮次：无法恢复暂停的轮次：{error}",
    "restore.repaired": "保存的对话已修复：{parts}。没有运行任何内容。",
    "restore.answered": "{n} 个没有结果的工具调用得到了“{result}”",
    "restore.dropped": "丢弃了 {n} 个没有对应调用的工具结果",
    "restore.closed": "{n} 个已有结果但仍标记为运行中或等待批准的工具调用被标记为 {status}",
    "restore.list": "{first}；{second}",
    "tools.not_restored": "{reason}。没有运行任何内容；消息已保留。",
    "tools.paused_unreadable": "无法读取保存的暂停轮次：{error}",
    "tools.paused_not_restored": "保存的暂停轮次未恢复：{reason}",
    "tools.already_decided": "有 {n} 个工具调用已在本机之前的内核中做出决定（批准记录），因此不再提供：{ids}。",
    "tools.ledger_unwritable": (
        "无法写入批准记录 {path}（{error}）：如果笔记本未保存就关闭，此处批准的调用可能会再次被提供。"),
    "tools.unregistered": "工具 {name!r} 没有在此内核中注册，因此调用无法在这里运行；请注册它后再试，或拒绝该调用",
    "tools.arguments_not_object": "参数必须是 JSON 对象（字符串或 dict）",
    "tools.edited_not_json": "编辑后的参数不是有效的 JSON：{error}",
    "tools.edited_not_object": "编辑后的参数必须是 JSON 对象",
    "skills.missing": (
        "技能 {name!r} 在此内核中不可用（可用：{available}），因此调用无法运行；请拒绝它，或为对话提供该技能后再试"),
    "skills.gone": "技能 {name!r} 已不在磁盘上（缺少 {path}），因此调用无法运行；请拒绝它，或恢复该文件夹后再试",
    "mcp.unavailable": "MCP 服务器 {label!r} 不可用（{error}）：已略去它的工具",
    "chat.empty_message": "消息为空",
    "chat.turn_running": "本轮正在进行：请等待、停止它，或先处理待决的工具调用",
    "chat.turn_paused": "本轮正在等待批准：请等待、停止它，或先处理待决的工具调用",
    "chat.continue_refused": "无法继续：{reason}",
    "chat.not_waiting": "工具调用 {call!r} 没有在等待决定",
    "command.unknown": "未知命令 {name}：此对话没有这个命令（输入 / 查看命令）。",
    "recovery.busy_running": "本轮正在进行，无法{action}：请先停止它",
    "recovery.busy_paused": "有工具调用正在等待批准，无法{action}：请先批准或拒绝它",
    "recovery.retrying": "重试",
    "recovery.removing": "删除消息",
    "recovery.editing": "编辑消息",
    "recovery.nothing_to_retry": "只有在一轮失败后才能重试：没有可重试的内容",
    "recovery.no_user_message": "重试需要一条可再次发送的用户消息：没有这样的消息",
    "recovery.not_yours": "消息 {id!r} 不是你发送的：只能删除你发送的消息",
    "recovery.no_such_message": "此对话中没有消息 {id!r}",
    "recovery.not_last": "只能编辑并重新发送你发送的最后一条消息",
    "action.not_object": "操作必须是 JSON 对象，而不是 {type}",
    "action.bad_request_id": "request_id 必须是最多 256 个字符的字符串",
    "action.unknown_kind": "未知的操作类型 {kind!r}（已知：{known}）",
    "action.unexpected_fields": "{kind}：意外的字段 {fields}",
    "action.missing_field": "{kind}：缺少字段 {name!r}",
    "action.null_field": "{kind}：字段 {name!r} 不能为 null",
    "action.wrong_type": "{kind}：字段 {name!r} 必须是 {wanted}，而不是 {got}",
    "action.too_long": "{kind}：字段 {name!r} 超过 {limit} 个字符",
    "action.empty_field": "{kind}：字段 {name!r} 不能为空",
    "action.not_a_choice": "{kind}：字段 {name!r} 必须是以下之一：{choices}",
    "action.not_json": "{kind}：{name} 不是有效的 JSON（{error}）",
    "action.not_json_object": "{kind}：{name} 必须是 JSON 对象",
    "action.no_recovery": "此对话无法重试、删除或编辑消息",
    "action.no_commands": "此对话没有命令",
    "chat.bad_prompt": "提示必须是非空字符串，而不是 {item!r}",
    "chat.prompt_too_long": "有一个提示超过了 {limit} 个字符",
    "chat.too_many_prompts": "最多 {limit} 个提示，而不是 {n} 个",
    "chat.builtin_command": "/{name} 是小部件自带的命令：插件不能添加它（内置命令：{builtin}）",
    "chat.no_browser_reason": "浏览器没有给出原因",
    "conversations.running": "此对话正在写入回复：请先停止或等待它，然后再{what}",
    "conversations.to_new": "新建对话",
    "conversations.to_delete": "删除它",
    "conversations.to_clear": "清空它",
    "conversations.to_switch": "切换到其他对话",
    "conversations.unknown": "此对话中没有会话 {id!r}（参见 chat.conversations）",
    "conversations.unreadable": "无法打开会话 {id!r}：{reason}。它保持原样。",
    "conversations.single": "此对话只有一个会话",
    "conversations.title_empty": "会话标题必须是非空文本",
    "conversations.title_too_long": "会话标题最多 {limit} 个字符，而不是 {n} 个",
    "conversations.too_many": "一个对话最多保存 {limit} 个会话；请先删除一些",
    "engine.load_while_running": "本轮正在进行：请先停止它，再加载其他会话",
    "continue.running": "本轮正在进行：停止后才能继续",
    "continue.paused": "本轮正在等待工具批准：请批准或拒绝该调用",
    "continue.no_turn": "还没有可继续的轮次",
    "continue.completed": "最近一轮已正常完成：没有可继续的内容",
    "continue.ended": "最近一轮以 {reason!r} 结束，无法继续",
    "skills.unknown": "没有名为 {name!r} 的技能（可用：{available}）",
    "skills.always": "skill_mode='always' 让所有技能始终启用：请用 'manual' 或 'auto' 来选择",
    "magic.sending": "*已发送到对话；回复会在对话小部件中流式显示…*",
    "magic.no_chat": (
        "没有可发送的对话：请先显示一个对话（以 `chat = Chat()` 结尾的单元格），或指定它的名字：`%%chat my_chat`。"),
    "magic.not_defined": "%%chat {name}：变量 {name!r} 未定义。",
    "magic.not_a_chat": "%%chat {name}：变量 {name!r} 是 {type}，不是 Chat。",
    "magic.no_loop": "%chat 需要内核正在运行的事件循环（请在 Jupyter 内核中运行）",
    "magic.not_sent": "**未发送：**{error}",
    "magic.waiting": (
        "**正在对话小部件中等待你的批准：**{names}。请在那里批准或拒绝（或用 `await chat.approve(...)`）；"
        "本轮结束后回复会显示在这里。"),
    "magic.failed": "**本轮失败：**{error}。可以在对话小部件中继续。",
    "magic.stopped": "**已停止。**",
    "magic.no_reply": "*（本轮结束，没有文本回复）*",
    "mentions.refused": "{problems}没有发送任何内容。要把 @ 作为文字发送，请把它放在反引号中（`@name`）。",
    "mentions.too_many": "消息提到了 {n} 个名字；最多只能描述 {limit} 个",
    "mentions.unknown": "@{name}：内核的命名空间中没有名为 {name!r} 的变量。",
    "mentions.no_error": "此内核中还没有引发过异常（@error 没有可描述的内容）。",
    "transcript.heading": "对话",
    "transcript.heading_titled": "对话 — {title}",
    "transcript.earlier": "（未显示较早的 {n} 条消息）",
    "transcript.empty": "还没有消息。",
    "transcript.more": "[… 还有 {n} 个字符]",
    "transcript.tool_call": "工具调用 {call}",
    "role.user": "你",
    "role.assistant": "助手",
    "role.system": "系统",
    "export.untitled": "对话",
    "export.tool_call": "**工具调用 `{name}`**",
    "export.result": "结果：",
}

TABLES: Mapping[str, Mapping[str, str]] = {"en": EN, "zh-CN": ZH_CN}


def table_locale(locale: str | None) -> str:
    """The table for a language tag: "zh", "zh_CN", "zh-Hans" → "zh-CN"; anything else (or None) → "en"."""
    if locale is None:
        return "en"
    if locale in TABLES:
        return locale
    return "zh-CN" if locale.lower().replace("_", "-").startswith("zh") else "en"


def text(key: str, locale: str | None = None, **slots: object) -> str:
    """The string `key` in `locale` with its slots filled (a Notice, or an error carrying one, in a slot is said in
    `locale` too). An unknown key is a bug: KeyError."""
    template = TABLES[table_locale(locale)].get(key) or EN[key]
    return template.format(**{name: say(value, locale) if isinstance(value, Notice | BaseException) else value
                              for name, value in slots.items()})


class Notice(str):
    """A sentence from the table: the English text as the string's value, its key and slots kept to say it again in
    another language (``notice.say("zh-CN")``)."""

    key: str
    slots: dict[str, object]

    def __new__(cls, key: str, **slots: object) -> Notice:
        made = super().__new__(cls, text(key, "en", **slots))
        made.key = key
        made.slots = slots
        return made

    def say(self, locale: str | None) -> str:
        return text(self.key, locale, **self.slots)

    def __reduce__(self) -> tuple[object, ...]:
        return (_rebuild, (self.key, self.slots))

    def __copy__(self) -> Notice:
        return self

    def __deepcopy__(self, memo: object) -> Notice:
        return self


def _rebuild(key: str, slots: dict[str, object]) -> Notice:
    return Notice(key, **slots)


def say(value: object, locale: str | None) -> str:
    """``value`` in ``locale`` when it is a Notice (or an error carrying one); any other text (a plugin's own
    sentence) as it is."""
    if isinstance(value, BaseException):
        return say_error(value, locale)
    return value.say(locale) if isinstance(value, Notice) else str(value)


def say_error(exc: BaseException, locale: str | None) -> str:
    """An error for a person: its Notice in ``locale``, any other error's text as it is (its type without one)."""
    if len(exc.args) == 1 and isinstance(exc.args[0], Notice):
        return exc.args[0].say(locale)
    return str(exc) or type(exc).__name__
