"""Markdown sanitized by the browser's own HTML Sanitizer API (js/widget/src/native_sanitizer.js) gives the nodes
DOMPurify gives, in Chromium, for everything marked and KaTeX make; markdown with raw HTML still goes to DOMPurify; and
nothing in hostile markdown runs. The widget's markdown module is bundled with its esbuild and loaded into a page."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from tests.e2e.markdown_corpus import katex_corpus, markdown_corpus

pytestmark = pytest.mark.browser

WIDGET_JS = Path(__file__).resolve().parents[2] / "js" / "widget"

ENTRY = """
import * as markdown from "./src/markdown.js";
const sanitizeNatively = markdown.sanitizeNatively;
const serialized = (fragment) => { const holder = document.createElement("div"); holder.append(fragment);
  return holder.innerHTML; };
window.nbc = {
  // the texts whose marked HTML the two sanitizers turn into different nodes
  differences: (texts) => texts.flatMap((text) => {
    const html = markdown.markdownToHtml(text);
    const purified = serialized(markdown.sanitizeToFragment(html));
    const native = serialized(sanitizeNatively(html));
    return purified === native ? [] : [{ text, purified, native }];
  }),
  available: sanitizeNatively !== null,
  rendered: (text) => serialized(markdown.renderMarkdownFragment(text, markdown.markdownTokens.lex(text))),
  renderedWhole: (text) => markdown.renderMarkdown(text),
  natively: (text) => serialized(sanitizeNatively(markdown.markdownToHtml(text))),
  holdsRawHtml: (text) => markdown.holdsRawHtml(text, markdown.markdownTokens.lex(text)),
};
"""


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> str:
    esbuild = WIDGET_JS / "node_modules" / ".bin" / "esbuild"
    if not esbuild.exists():
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--silent"], check=True, cwd=WIDGET_JS)
    entry = WIDGET_JS / ".sanitizer-test-entry.js"
    target = tmp_path_factory.mktemp("bundle") / "markdown.js"
    entry.write_text(ENTRY)
    try:
        subprocess.run([str(esbuild), str(entry), "--bundle", "--format=iife", f"--outfile={target}",
                        "--log-level=warning"], check=True, cwd=WIDGET_JS)
    finally:
        entry.unlink()
    return target.read_text()


@pytest.fixture
def page(chromium: Browser, bundle: str) -> Iterator[Page]:
    page = chromium.new_page()
    page.goto("about:blank")
    page.add_script_tag(content=bundle)
    try:
        yield page
    finally:
        page.close()


def differences(page: Page, texts: list[str]) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = page.evaluate("(texts) => nbc.differences(texts)", texts)
    return found


def test_this_chromium_has_the_html_sanitizer_api(page: Page) -> None:
    assert page.evaluate("nbc.available") is True


def test_every_katex_command_environment_macro_and_symbol_sanitizes_natively_as_dompurify_does(page: Page) -> None:
    corpus = katex_corpus()
    assert len(corpus) > 500  # read from KaTeX's sources, not a few hand-picked formulas
    assert differences(page, corpus) == []


def test_every_markdown_construct_in_every_block_sanitizes_natively_as_dompurify_does(page: Page) -> None:
    corpus = markdown_corpus()
    assert len(corpus) > 200
    assert differences(page, corpus) == []


def test_links_drawn_through_the_browser_sanitizer_open_apart_and_lose_script_urls(page: Page) -> None:
    html = page.evaluate("(t) => nbc.natively(t)",
                         "[ok](https://example.com) [js](javascript:alert(1)) ![i](javascript:alert(2))")
    assert '<a href="https://example.com" target="_blank" rel="noopener noreferrer">ok</a>' in html
    assert "javascript:" not in html


def test_markdown_with_raw_html_keeps_the_content_of_elements_only_dompurify_unwraps(page: Page) -> None:
    text = "Before <details><summary>More</summary>the hidden part</details>\n\n<custom-tag>kept text</custom-tag>"
    assert page.evaluate("(t) => nbc.holdsRawHtml(t)", text) is True
    drawn = page.evaluate("(t) => nbc.rendered(t)", text)
    assert "the hidden part" in drawn
    assert "kept text" in drawn
    assert "custom-tag" not in drawn


def test_less_than_signs_in_code_and_math_are_not_raw_html(page: Page) -> None:
    text = "If `a < b` then $x<y$:\n\n```html\n<div onclick=\"x()\">code</div>\n```\n\nSee <https://example.com>."
    assert page.evaluate("(t) => nbc.holdsRawHtml(t)", text) is False
    drawn = page.evaluate("(t) => nbc.rendered(t)", text)
    assert "&lt;div onclick" in drawn
    assert "<div onclick" not in drawn


def test_a_whole_render_and_a_render_of_its_tokens_give_the_same_html(page: Page) -> None:
    for text in [*markdown_corpus()[::7], *katex_corpus()[::25]]:
        assert page.evaluate("(t) => nbc.renderedWhole(t) === nbc.rendered(t)", text), text


def test_hostile_markdown_keeps_no_script_handler_or_script_url(page: Page) -> None:
    hostile = [
        "[a](javascript:window.__pwned=1)", "![i](x \"t\")<img src=x onerror=window.__pwned=2>",
        "<script>window.__pwned=3</script>", "$\\href{javascript:window.__pwned=4}{x}$",
        "<svg><animate onbegin=window.__pwned=5 attributeName=x dur=1s></svg>", "<a href='jav&#x09;ascript:x'>t</a>",
        "[b](JaVaScRiPt:x) [c](vbscript:x) ![d](javascript:x) [e](java\tscript:x)",
        "<form action=x><button>go</button></form> <iframe src=x></iframe>",
    ]
    found = page.evaluate("""(texts) => texts.flatMap((text) => {
        const body = document.createElement('div');
        body.append(document.createRange().createContextualFragment(nbc.rendered(text)));
        return [...body.querySelectorAll('*')].flatMap((el) => [
          ...(/^(script|iframe|form|button|animate|set)$/i.test(el.localName) ? [el.localName] : []),
          ...[...el.attributes].filter((a) => /^on/i.test(a.name) || /script:/i.test(a.value.replace(/\\s/g, '')))
            .map((a) => `${el.localName} ${a.name}=${a.value}`)]);
      })""", hostile)
    assert found == []
    assert page.evaluate("window.__pwned") is None
