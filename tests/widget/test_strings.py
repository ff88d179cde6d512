"""The kernel's notice table (notebook_chat/widget/strings.py) is complete in English and Simplified Chinese, and
Chat(locale=...) picks it (the browser's table is checked by js/widget/test/i18n.test.js)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from notebook_chat.widget import strings
from notebook_chat.widget.strings import EN, TABLES, ZH_CN, table_locale, text


def slots(template: str) -> list[str]:
    return sorted(re.findall(r"\{(\w+)\}", template))


def test_english_and_simplified_chinese_have_the_same_keys() -> None:
    assert sorted(ZH_CN) == sorted(EN)


@pytest.mark.parametrize("locale", list(TABLES))
def test_no_notice_is_empty_and_each_has_the_english_slots(locale: str) -> None:
    for key, template in TABLES[locale].items():
        assert template.strip(), f"{locale} {key} is empty"
        assert slots(template) == slots(EN[key]), key


def test_every_notice_key_the_widget_uses_is_in_the_table() -> None:
    folder = Path(strings.__file__).parent
    source = "\n".join((folder / name).read_text() for name in ("chat.py", "chat_widget.py"))
    used = set(re.findall(r'notice_text\(\s*"([^"]+)"', source))
    assert used, "no notice looked up: the test reads the wrong files"
    assert used <= set(EN)


@pytest.mark.parametrize(("tag", "table"), [("zh-CN", "zh-CN"), ("zh_CN", "zh-CN"), ("zh", "zh-CN"),
                                            ("en", "en"), ("fr", "en"), (None, "en")])
def test_a_language_tag_picks_its_table(tag: str | None, table: str) -> None:
    assert table_locale(tag) == table


def test_a_notice_is_written_in_the_chats_language() -> None:
    assert text("notice.save_failed", "zh-CN", error="disk full") == "无法保存对话：disk full"
    assert text("notice.save_failed", None, error="disk full") == "The conversation could not be saved: disk full"
    with pytest.raises(KeyError):
        text("notice.nothing")


def test_chat_locale_reaches_the_widget() -> None:
    from notebook_chat import Chat
    from notebook_chat.testing import ScriptedProvider

    assert Chat(ScriptedProvider(), key="zh", locale="zh-CN").widget.locale == "zh-CN"
    assert Chat(ScriptedProvider(), key="page").widget.locale == ""
