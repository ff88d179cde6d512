"""Every notice the kernel side of the widget shows a person, one table per language (the browser's labels are in
js/widget/src/i18n.js). `text(key, locale, **slots)` fills `{name}` slots; a locale without a table reads English.
Model-facing texts (the continuation prompt, denial and cancellation results) are not here: they stay in English.
tests/widget/test_strings.py keeps the tables' keys equal and every string non-empty."""

from __future__ import annotations

from collections.abc import Mapping

EN: Mapping[str, str] = {
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
    "command.unknown": "Unknown command {name}: this chat has no such command (type / to see the commands).",
}

ZH_CN: Mapping[str, str] = {
    "notice.write_failed": (
        "此对话无法保存到笔记本中（{error}）。在写入成功之前，它只存在于当前内核中：下一次更改时会再次尝试。"
        "如果问题持续，请用其他方式保存（FileStore：Chat(store=FileStore(path))）。"),
    "notice.no_notebook": "此前端（VS Code、Colab 或普通网页）无法访问笔记本文档：对话仅保存在 {store} 中。",
    "notice.refused_in_store": "{reason}。它保持原样；此对话不会被保存。",
    "notice.refused_in_notebook": "{reason}。它在笔记本中保持原样；此对话不会被保存。",
    "notice.save_failed": "无法保存对话：{error}",
    "command.unknown": "未知命令 {name}：此对话没有这个命令（输入 / 查看命令）。",
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
    """The string `key` in `locale` with its `{name}` slots filled. An unknown key is a bug: KeyError."""
    template = TABLES[table_locale(locale)].get(key) or EN[key]
    return template.format(**slots)
