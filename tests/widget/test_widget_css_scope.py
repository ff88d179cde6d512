"""Every rule of the built widget CSS applies inside the widget only: each selector starts at the widget root, so
loading the widget never restyles the rest of JupyterLab (a bare `[hidden]` rule once did)."""

from __future__ import annotations

from pathlib import Path

import tinycss2

CSS = Path(__file__).resolve().parents[2] / "notebook_chat" / "static" / "widget.css"
ROOT = ".nbc-root"
NESTED_AT_RULES = ("media", "supports", "container", "layer")
NAMED_AT_RULES = ("keyframes", "-webkit-keyframes")


def selectors(prelude: list[tinycss2.ast.Node]) -> list[str]:
    return [part.strip() for part in tinycss2.serialize(prelude).split(",")]


def unscoped(rules: list[tinycss2.ast.Node]) -> list[str]:
    """Selectors (and at-rules) of ``rules`` that could match outside the widget root."""
    found: list[str] = []
    for rule in rules:
        if rule.type == "qualified-rule":
            found += [s for s in selectors(rule.prelude)
                      if not (s == ROOT or s.startswith((f"{ROOT} ", f"{ROOT}>", f"{ROOT}[", f"{ROOT}:", f"{ROOT}.")))]
        elif rule.type == "at-rule" and rule.lower_at_keyword in NESTED_AT_RULES:
            found += unscoped(tinycss2.parse_rule_list(rule.content or [], skip_comments=True, skip_whitespace=True))
        elif rule.type == "at-rule" and rule.lower_at_keyword in NAMED_AT_RULES:
            name = tinycss2.serialize(rule.prelude).strip()
            if not name.startswith("nbc-"):
                found.append(f"@{rule.at_keyword} {name}")
        elif rule.type == "at-rule":
            found.append(f"@{rule.at_keyword} (unknown scope)")
        elif rule.type == "error":
            found.append(f"unparseable CSS: {rule.message}")
    return found


def built_rules() -> list[tinycss2.ast.Node]:
    return tinycss2.parse_stylesheet(CSS.read_text(encoding="utf-8"), skip_comments=True, skip_whitespace=True)


def test_every_rule_of_the_built_widget_css_is_scoped_under_the_widget_root() -> None:
    rules = built_rules()
    assert len(rules) > 50  # the real stylesheet, not an empty build
    assert unscoped(rules) == []


def test_the_scope_check_catches_a_global_rule() -> None:
    rules = tinycss2.parse_stylesheet("[hidden]{display:none!important}.nbc-root .a{}@media print{.b{}}"
                                      "@keyframes spin{}", skip_comments=True, skip_whitespace=True)
    assert unscoped(rules) == ["[hidden]", ".b", "@keyframes spin"]
