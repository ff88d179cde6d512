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
from notebook_chat.engine.notices import EN, TABLES, ZH_CN, Notice, say, table_locale, text

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

SINK_CALLS = {"set_notice", "ActionError", "Notice"}
"""Calls whose first argument a person reads (Notice: its key must be a table key, never a sentence)."""
SINK_KEYWORDS = {"refused", "notice"}
"""Keyword arguments a person reads (LoadedConversation(refused=..., notice=...) and friends)."""
REFUSING = {"widget/chat.py", "widget/recovery.py"}
"""Modules whose ValueErrors answer a user action in the browser (their sentences go through the table too)."""
CONSTRUCTION = {"_prompts", "_build_engine"}
"""Functions in those modules whose errors a programmer reads (bad arguments to Chat(...)): English on purpose."""


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
    construction: set[int] = set()
    for fn in ast.walk(tree):
        if isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef) and fn.name in CONSTRUCTION:
            construction.update(id(n) for n in ast.walk(fn))
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
        if (module in REFUSING and isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call)
                and call_name(node.exc) == "ValueError" and id(node) not in construction
                and node.exc.args and written_out(node.exc.args[0], sentences)):
            yield f"{module}:{node.lineno} raise ValueError(<a written-out sentence>)"


def test_no_notice_or_refusal_in_the_package_is_written_out_instead_of_taken_from_the_table() -> None:
    found = [place for path in SOURCES
             for place in bypasses(path.read_text(), path.relative_to(PACKAGE).as_posix())]
    assert found == []


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
