"""A long reply's blocks out of the reader's view are not laid out or painted until they come near it
(js/widget/src/styles.css, `content-visibility: auto`), except blocks that may be wider than the message — a table, a
paragraph with a formula — which containment would clip. In a real JupyterLab: what the browser says it skips, and what
the reader reaches by scrolling."""

from __future__ import annotations

import pytest

from tests.e2e.chat_page import ChatPage, open_chat
from tests.e2e.lab import Lab

pytestmark = pytest.mark.browser

WIDE_TABLE = "| " + " | ".join(f"column {n:02d} with a long header" for n in range(24)) + " |\n" + \
    "|" + "---|" * 24 + "\n| " + " | ".join(f"value{n:02d}" for n in range(24)) + " |\n\n"
WIDE_FORMULA = "A formula: $" + " + ".join(f"x_{{{n}}}^{{{n}}}" for n in range(80)) + "$ ends here.\n\n"
SECTIONS = "".join(f"## Section {n}\n\nParagraph {n} with **bold words** and more text to read.\n\n"
                   for n in range(1, 151))
REPLY = WIDE_TABLE + WIDE_FORMULA + SECTIONS + "The end of the report."
SETUP = f"""
from notebook_chat import Chat
from notebook_chat.testing import ScriptedProvider

chat = Chat(ScriptedProvider().text({REPLY!r}, chunks=4), key="offscreen")
chat
"""

# whether the browser renders an element's content (false inside a block skipped by `content-visibility: auto`)
RENDERED = "el => el.checkVisibility({ contentVisibilityAuto: true })"


def long_reply(lab: Lab) -> ChatPage:
    chat = open_chat(lab, "offscreen.ipynb", [SETUP])
    chat.send("Write the report")
    chat.wait_reply_containing("The end of the report.")
    return chat


def content(chat: ChatPage):
    return chat.messages("assistant").last.locator(".nbc-content")


def test_a_long_replys_paragraphs_far_above_the_view_are_not_rendered_and_those_in_view_are(lab: Lab) -> None:
    chat = long_reply(lab)
    body = content(chat)
    assert body.locator("p", has_text="Paragraph 1 with").locator("strong").evaluate(RENDERED) is False
    assert body.locator("p", has_text="Paragraph 150 with").locator("strong").evaluate(RENDERED) is True
    assert body.locator("p", has_text="The end of the report.").evaluate(RENDERED) is True


def test_scrolling_up_to_a_skipped_paragraph_renders_it(lab: Lab) -> None:
    chat = long_reply(lab)
    first = content(chat).locator("p", has_text="Paragraph 1 with")
    first.scroll_into_view_if_needed()
    lab.page.wait_for_function(RENDERED, arg=first.locator("strong").element_handle())
    box, view = first.bounding_box(), chat.root.locator(".nbc-messages").bounding_box()
    assert box is not None
    assert view is not None
    assert view["y"] <= box["y"]
    assert box["y"] + box["height"] <= view["y"] + view["height"]


def test_a_wide_table_and_a_wide_formula_far_above_the_view_are_rendered_whole(lab: Lab) -> None:
    chat = long_reply(lab)
    body = content(chat)
    table = body.locator("table")
    formula = body.locator("p", has_text="A formula:").locator("math")
    assert table.locator("td").last.evaluate(RENDERED) is True
    assert formula.locator("mi").last.evaluate(RENDERED) is True
    # wider than the message, and nothing clips them: the list scrolls sideways to their right edge
    widths = chat.root.locator(".nbc-messages").evaluate(
        """(list) => {
          const body = list.querySelector('.nbc-message[data-role=assistant]:last-of-type .nbc-content');
          const right = (el) => el.getBoundingClientRect().right - list.getBoundingClientRect().left + list.scrollLeft;
          return { body: body.clientWidth, list: list.scrollWidth, table: right(body.querySelector('table')),
                   formula: right(body.querySelector('math')) };
        }""")
    assert widths["table"] > widths["body"]
    assert widths["formula"] > widths["body"]
    assert widths["list"] >= max(widths["table"], widths["formula"]) - 1
    for element in (table, formula):
        clip = element.evaluate("""(el) => {
          for (let a = el.parentElement; a && !a.classList.contains('nbc-messages'); a = a.parentElement) {
            const style = getComputedStyle(a);
            if (style.contentVisibility !== 'visible' || /paint|strict|content/.test(style.contain)) return a.tagName;
          }
          return null;
        }""")
        assert clip is None  # no ancestor inside the list contains (clips) its paint
