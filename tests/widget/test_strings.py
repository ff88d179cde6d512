"""The kernel's one table of user-facing sentences (notebook_chat/engine/notices.py) is complete in English and
Simplified Chinese, every notice and refusal goes through it, and a notice is said in the view's language:
Chat(locale=...), else the page's (JupyterLab's) language the view reports. The browser's table is checked by
js/widget/test/i18n.test.js."""

from __future__ import annotations

import ast
import copy
import pickle
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

import notebook_chat
from notebook_chat.engine.notices import EN, TABLES, ZH_CN, Notice, say, say_error, table_locale, text
from notebook_chat.widget.magics import _CALL

PACKAGE = Path(notebook_chat.__file__).parent
SOURCES = sorted(p for p in PACKAGE.rglob("*.py") if p.name != "notices.py")
CJK = re.compile(r"[\u4e00-\u9fff]")


def slots(template: str) -> list[str]:
    return sorted(re.findall(r"\{(\w+)(?:![rs])?\}", template))


def test_english_and_simplified_chinese_have_the_same_keys() -> None:
    assert sorted(ZH_CN) == sorted(EN)


@pytest.mark.parametrize("locale", list(TABLES))
def test_no_sentence_is_empty_and_each_has_the_english_slots(locale: str) -> None:
    for key, template in TABLES[locale].items():
        assert template.strip(), f"{locale} {key} is empty"
        assert slots(template) == slots(EN[key]), key


def test_every_chinese_sentence_is_translated() -> None:
    """Written in Chinese, unless it is only slots and punctuation ("{first} {second}")."""
    for key, template in ZH_CN.items():
        english = re.sub(r"\{\w+(?:![rs])?\}", "", EN[key])
        if re.search(r"[A-Za-z]{2,}", english):
            assert CJK.search(template), f"zh-CN {key} is not translated: {template!r}"


# -- every sentence goes through the table -----------------------------------------------------------------------

SINK_CALLS = {"set_notice", "ActionError", "Notice", "print", "Markdown", "HTML"}
"""Calls whose first argument a person reads (Notice: its key must be a table key, never a sentence)."""
SINK_KEYWORDS = {"refused", "notice"}
"""Keyword arguments a person reads (LoadedConversation(refused=..., notice=...) and friends)."""
USER_FACING = {"widget"}
"""Packages whose every sentence a person reads: refusals of a browser action, Chat(...)'s and the magics' errors,
the magics' cell output, the transcript, the exports. Each raise there, and each literal sentence (outside
docstrings and logs), goes through the table."""
USER_FACING_FUNCTIONS = {
    "plugins/continuation.py": {"_refusal"},  # why Continue is refused (the widget's Continue, /continue)
    "plugins/mentions.py": {"prepare"},  # an @mention refused before sending
    "tools/mention_source.py": {"unknown"},
    "plugins/skills.py": {"skill", "deselect", "_missing"},  # a skill chip toggled; an Approve that can't run
    "plugins/tools.py": {"_resume", "_arguments_problem"},  # an Approve that can't run the call
    "persistence/conversation_list.py": {"check_title"},  # a conversation renamed in the header
    "persistence/chat_entry.py": {"with_record"},  # a new conversation beyond the limit
    "persistence/notebook_store.py": {"save"},
    "engine/engine.py": {"load"},
}
"""Functions elsewhere whose errors answer a person's action in the widget (same rule)."""
NOT_SENTENCES = {
    ("widget/chat.py", "the stored chat"): "where a broken record was found, inside a diagnostic detail",
    ("widget/magics.py", _CALL): "the code a %%chat cell is rewritten to",
    ("widget/view_model.py", "cancelled by user"): "the reason code ToolPlugin stores, matched, never shown",
    ("widget/transcript.py", '<div class="'): "markup",
    ("persistence/notebook_store.py", "a store saves JSON objects, got "): "a programmer's bug (a record not a dict)",
    ("persistence/chat_entry.py", "a store saves JSON objects, got "): "a programmer's bug (a record not a dict)",
}
"""Literals in those places that look like sentences but no person reads as one (with the reason)."""
SENTENCE = re.compile(r"[A-Za-z]{2,} [A-Za-z]{2,}")


def written_out(node: ast.expr | None, sentences: frozenset[str] = frozenset()) -> bool:
    """A sentence written in the source: a string, an f-string, a .format() or a + of strings, or a name the module
    binds to one of those (`sentences`: such names, e.g. a module constant or `self.problem`)."""
    if isinstance(node, ast.Name | ast.Attribute):
        return (node.id if isinstance(node, ast.Name) else node.attr) in sentences
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str) and node.value != ""
    if isinstance(node, ast.JoinedStr):
        return True
    if isinstance(node, ast.BinOp):
        return written_out(node.left, sentences) or written_out(node.right, sentences)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format":
        return written_out(node.func.value, sentences)
    if isinstance(node, ast.IfExp):
        return written_out(node.body, sentences) or written_out(node.orelse, sentences)
    if isinstance(node, ast.BoolOp):
        return any(written_out(value, sentences) for value in node.values)
    return False


def bound_sentences(tree: ast.AST) -> frozenset[str]:
    """The names (and attributes) the module assigns a written-out sentence to, longer than one word."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None and written_out(node.value):
            if isinstance(node.value, ast.Constant) and " " not in str(node.value.value):
                continue  # a word, a code, a name: not a sentence
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                if isinstance(target, ast.Name | ast.Attribute):
                    names.add(target.id if isinstance(target, ast.Name) else target.attr)
    return frozenset(names)


def table_keys(node: ast.expr) -> set[object]:
    """The keys a Notice's first argument can be: a string, or either side of a conditional expression."""
    if isinstance(node, ast.Constant):
        return {node.value}
    if isinstance(node, ast.IfExp):
        return table_keys(node.body) | table_keys(node.orelse)
    return {None}


def call_name(node: ast.Call) -> str:
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def bypasses(source: str, module: str) -> Iterator[str]:
    """Each place in `source` where a user-facing sentence is written out instead of looked up in the table."""
    tree = ast.parse(source)
    sentences = bound_sentences(tree)
    reads = user_facing_nodes(tree, module)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = call_name(node)
            if name in SINK_CALLS and name != "Notice" and node.args and written_out(node.args[0], sentences):
                yield f"{module}:{node.lineno} {name}(<a written-out sentence>)"
            if name == "Notice" and node.args and not table_keys(node.args[0]) <= set(EN):
                yield f"{module}:{node.lineno} Notice({ast.unparse(node.args[0])}) is not a table key"
            for keyword in node.keywords:
                if keyword.arg in SINK_KEYWORDS and written_out(keyword.value, sentences):
                    yield f"{module}:{node.lineno} {keyword.arg}=<a written-out sentence>"
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Attribute) and t.attr == "notice"
                                                for t in node.targets) and written_out(node.value, sentences):
            yield f"{module}:{node.lineno} .notice = <a written-out sentence>"
        if (isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and id(node) in reads
                and call_name(node.exc) not in SINK_CALLS and node.exc.args
                and written_out(node.exc.args[0], sentences) and not exempt(module, node.exc.args[0])):
            yield f"{module}:{node.lineno} raise {call_name(node.exc)}(<a written-out sentence>)"


def user_facing_nodes(tree: ast.AST, module: str) -> set[int]:
    """The ids of the nodes in `tree` a person reads (USER_FACING, USER_FACING_FUNCTIONS)."""
    if module.split("/")[0] in USER_FACING:
        return {id(node) for node in ast.walk(tree)}
    names = USER_FACING_FUNCTIONS.get(module, set())
    return {id(node) for fn in ast.walk(tree) if isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef)
            and fn.name in names for node in ast.walk(fn)}


def exempt(module: str, node: ast.expr) -> bool:
    """A message built from a literal NOT_SENTENCES lists (no person reads it)."""
    return any(isinstance(inner, ast.Constant) and (module, inner.value) in NOT_SENTENCES for inner in ast.walk(node))


def literal_sentences(tree: ast.AST, module: str) -> Iterator[str]:
    """Each literal sentence (a string or an f-string's text with two words in it) written in a place a person
    reads, except docstrings, log and warning calls, and NOT_SENTENCES."""
    reads = user_facing_nodes(tree, module)
    quiet: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            quiet.add(id(node.value))  # a docstring (of a module, class, function or attribute)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and isinstance(
                node.func.value, ast.Name) and node.func.value.id in {"log", "logger", "logging", "warnings"}:
            quiet.update(id(inner) for inner in ast.walk(node))
    for node in ast.walk(tree):
        if (isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) in reads
                and id(node) not in quiet and SENTENCE.search(node.value)
                and (module, node.value) not in NOT_SENTENCES):
            yield f"{module}:{node.lineno} a sentence written out: {node.value[:60]!r}"


def test_no_notice_or_refusal_in_the_package_is_written_out_instead_of_taken_from_the_table() -> None:
    found = [place for path in SOURCES
             for place in bypasses(path.read_text(), path.relative_to(PACKAGE).as_posix())]
    assert found == []


def test_no_sentence_a_person_reads_is_written_in_the_source_instead_of_the_table() -> None:
    found = [place for path in SOURCES
             for place in literal_sentences(ast.parse(path.read_text()), path.relative_to(PACKAGE).as_posix())]
    assert found == []


WRITTEN = {
    "a constant": 'NOT_SENT = "The message was not sent."',
    "an f-string": 'def f(n):\n    return f"{n} messages were not sent"',
    "a dict value": 'LABELS = {"user": "Your message"}',
    "an argument": 'def f(out):\n    out.update(Markdown("Sent to the chat"))',
    "an exception": 'def f():\n    raise RuntimeError("the loop is not running")',
}


@pytest.mark.parametrize("kind", list(WRITTEN))
def test_the_literal_scan_finds_every_kind_of_written_sentence_in_a_user_facing_module(kind: str) -> None:
    assert len(list(literal_sentences(ast.parse(WRITTEN[kind]), "widget/magics.py"))) == 1


@pytest.mark.parametrize("kind", list(WRITTEN))
def test_the_literal_scan_finds_them_in_a_user_facing_function_elsewhere_too(kind: str) -> None:
    source = "def _refusal(engine):\n" + "\n".join("    " + line for line in WRITTEN[kind].splitlines())
    assert len(list(literal_sentences(ast.parse(source), "plugins/continuation.py"))) == 1


@pytest.mark.parametrize("source", [
    'def f():\n    """Says what the function does."""',
    'def f():\n    log.debug("the action %s failed", kind)',
    'KEY = "magic.not_sent"',
    'LABEL = "Chat"',
])
def test_the_literal_scan_passes_docstrings_logs_keys_and_single_words(source: str) -> None:
    assert list(literal_sentences(ast.parse(source), "widget/magics.py")) == []


def test_the_literal_scan_passes_model_facing_and_diagnostic_modules() -> None:
    """A tool result, the continuation prompt, a broken record's path: English on purpose (not a person's UI)."""
    prompt = ast.parse('PROMPT = "Continue from where you stopped."')
    assert list(literal_sentences(prompt, "plugins/continuation.py")) == []


BYPASSES = {
    "a string": '"The store is gone."',
    "a constant": "GONE",
    "a constant's format": "GONE_IN.format(name)",
    "an attribute set before": "self.problem",
    "an f-string": 'f"The store {name} is gone."',
    "a format": '"The store {} is gone.".format(name)',
    "a concatenation": '"The store " + name',
    "a choice": 'name or "The store is gone."',
}
SINKS = {
    "set_notice": "ctx.set_notice({})",
    "ActionError": "raise ActionError({}, request_id)",
    "refused=": "LoadedConversation(None, refused={})",
    "notice=": "LoadedConversation(record, notice={})",
    "state.notice": "self.state.notice = {}",
    "ValueError (widget)": "raise ValueError({})",
    "RuntimeError (widget)": "raise RuntimeError({})",
    "print": "print({})",
    "Markdown": "out.update(Markdown({}))",
}


@pytest.mark.parametrize("sink", list(SINKS))
@pytest.mark.parametrize("sentence", list(BYPASSES))
def test_the_scan_finds_every_way_of_writing_a_sentence_out_at_every_sink(sink: str, sentence: str) -> None:
    source = ('GONE = "The store is gone."\nGONE_IN = "The store {} is gone."\n'
              f"def f(self, ctx, name, request_id, record):\n    self.problem = f'{{name}} is gone'\n"
              f"    {SINKS[sink].format(BYPASSES[sentence])}\n")
    assert len(list(bypasses(source, "widget/chat.py"))) == 1


@pytest.mark.parametrize("source", [
    'ctx.set_notice(Notice("notice.save_failed", error=error))',
    'raise ActionError(Notice("action.no_commands"))',
    "ctx.set_notice(None)",
    'raise ValueError(result.get("error") or Notice("chat.not_waiting", call=call))',
])
def test_the_scan_accepts_sentences_taken_from_the_table(source: str) -> None:
    assert list(bypasses(f"def f(ctx, error, result, call):\n    {source}\n", "widget/chat.py")) == []


def test_a_notice_whose_key_is_not_in_the_table_is_found() -> None:
    assert list(bypasses('Notice("notice.nothing")\n', "x.py")) == ['x.py:1 Notice(\'notice.nothing\') is not a '
                                                                    'table key']


def test_every_key_of_the_table_is_used_somewhere() -> None:
    source = "\n".join(path.read_text() for path in SOURCES)
    unused = [key for key in EN if f'"{key}"' not in source]
    assert unused == []


# -- saying a notice in a language ---------------------------------------------------------------------------------

@pytest.mark.parametrize(("tag", "table"), [("zh-CN", "zh-CN"), ("zh_CN", "zh-CN"), ("zh", "zh-CN"),
                                            ("zh-Hans", "zh-CN"), ("en", "en"), ("en-GB", "en"), ("fr", "en"),
                                            (None, "en")])
def test_a_language_tag_picks_its_table(tag: str | None, table: str) -> None:
    assert table_locale(tag) == table


def test_a_notice_is_its_english_sentence_and_says_itself_in_chinese() -> None:
    notice = Notice("notice.save_failed", error="disk full")
    assert notice == "The conversation could not be saved: disk full"
    assert notice.say("zh-CN") == "无法保存对话：disk full"
    assert say(notice, None) == notice


def test_a_notice_in_a_slot_is_said_in_the_same_language() -> None:
    notice = Notice("notice.refused_in_store", reason=Notice("load.secret", error="sk-..."))
    assert notice.say("zh-CN") == "记录中含有密钥，已拒绝：sk-...。它保持原样；此对话不会被保存。"


def test_a_plugins_own_sentence_is_shown_as_it_is() -> None:
    assert say("Plugin text", "zh-CN") == "Plugin text"


def test_a_notice_survives_copy_and_pickle_with_its_key() -> None:
    notice = Notice("tools.already_decided", n=2, ids="a, b")
    for again in (copy.copy(notice), copy.deepcopy(notice), pickle.loads(pickle.dumps(notice))):
        assert isinstance(again, Notice)
        assert again.say("zh-CN") == notice.say("zh-CN")


def test_an_unknown_key_is_a_bug() -> None:
    with pytest.raises(KeyError):
        text("notice.nothing")
    with pytest.raises(KeyError):
        Notice("notice.nothing")


# -- what a person reads is said in the chat's language --------------------------------------------------------

def test_the_kernel_less_transcript_is_written_in_its_language() -> None:
    from notebook_chat.widget.transcript import transcript_bundle

    messages = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    plain = transcript_bundle(messages, title="Demo", locale="zh-CN")["text/plain"]
    assert plain == "对话 — Demo\n\n你:\nhi\n\n助手:\nhello"
    assert "还没有消息。" in transcript_bundle([], locale="zh-CN")["text/html"]


def test_an_export_has_its_headings_in_its_language() -> None:
    from notebook_chat.widget.export import conversation_markdown

    messages = [{"role": "user", "content": "hi"},
                {"role": "assistant", "content": "", "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": "look", "arguments": "{}"}}]},
                {"role": "tool", "tool_call_id": "c1", "content": "seen"}]
    text = conversation_markdown(messages, None, "zh-CN")  # type: ignore[arg-type]
    assert text.startswith("# 对话\n\n## 你\n\nhi\n\n## 助手\n\n**工具调用 `look`**")
    assert "结果：\n\n```text\nseen\n```" in text


async def test_a_refused_continue_says_why_in_the_views_language() -> None:
    from notebook_chat import Chat
    from notebook_chat.testing import ScriptedProvider

    chat = Chat(ScriptedProvider(), restore_timeout=0)
    with pytest.raises(ValueError, match="no turn to continue") as refused:
        await chat.continue_turn()
    assert say_error(refused.value, "zh-CN") == "无法继续：还没有可继续的轮次"
    assert str(refused.value) == "Continue is not possible: there is no turn to continue yet"


def test_an_error_carrying_a_notice_inside_a_notice_is_said_in_the_same_language() -> None:
    notice = Notice("notice.save_failed", error=ValueError(Notice("conversations.too_many", limit=3)))
    assert notice.say("zh-CN") == "无法保存对话：一个对话最多保存 3 个会话；请先删除一些"
    assert notice == "The conversation could not be saved: a chat holds at most 3 conversations; delete some first"


@pytest.mark.parametrize("bad", [[""], ["x" * 2_001], ["p"] * 13])
def test_bad_prompts_given_to_chat_are_refused_with_a_sentence_of_the_table(bad: list[str]) -> None:
    from notebook_chat import Chat
    from notebook_chat.testing import ScriptedProvider

    with pytest.raises(ValueError, match="prompt") as refused:
        Chat(ScriptedProvider(), prompts=bad, restore_timeout=0)
    assert isinstance(refused.value.args[0], Notice)
    assert CJK.search(say_error(refused.value, "zh-CN"))


async def test_an_unknown_mention_is_refused_in_the_views_language() -> None:
    from notebook_chat import Chat
    from notebook_chat.testing import ScriptedProvider

    chat = Chat(ScriptedProvider(), restore_timeout=0, namespace={})
    with pytest.raises(ValueError, match="ghost") as refused:
        await chat.send("what is @ghost?")
    assert say_error(refused.value, "zh-CN") == (
        "@ghost：内核的命名空间中没有名为 'ghost' 的变量。"
        "没有发送任何内容。要把 @ 作为文字发送，请把它放在反引号中（`@name`）。")
