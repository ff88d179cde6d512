"""Drive the dev page in Chromium: render a conversation, stream deltas, check sanitizing, save screenshots.

    /tmp/venv0/bin/python js/widget/dev/check.py [outdir]

Prints one line per check; exits non-zero if any fails. A dev aid, not a test of the real JupyterLab path.
"""

from __future__ import annotations

import functools
import http.server
import sys
import threading
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[3]
OUT = Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/nbc-dev")

HOSTILE = (
    "Hello <img src=x onerror=\"window.pwned='img'\"> <script>window.pwned='script'</script>"
    " [click](javascript:window.pwned='link') <a href=\"https://example.com\">ok</a> "
    "<button data-action=\"approve\">fake</button>\n\n"
    "Math $x^2 + y^2$ and\n\n$$\n\\int_0^1 x\\,dx\n$$\n\n```python\ndef f(x):\n    return x + 1\n```\n"
)


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


def view(messages, state="idle", phase=None, offer=None):
    status = {"request_state": state, "processing_state": phase, "error": None}
    return {"messages": messages, "status": status, "continue_offer": offer, "notice": None}


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    handler = functools.partial(QuietHandler, directory=str(ROOT))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/js/widget/dev/index.html"
    failures = 0

    def check(name: str, ok: bool) -> None:
        nonlocal failures
        failures += not ok
        print(("ok   " if ok else "FAIL ") + name)

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", headless=True,
                                    args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"])
        page = browser.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(url)
        page.wait_for_function("window.fakeModel && window.fakeModel.sent.length > 0", timeout=10000)
        ready = page.evaluate("window.fakeModel.sent[0]")
        check("render sends ready", ready["kind"] == "ready" and ready["notebook"] is False)

        user = {"id": "u1", "role": "user", "content": "hi <b>there</b>", "hidden": False}
        reply = {"id": "a1", "role": "assistant", "content": "", "reasoning_content": "", "hidden": False,
                 "loading": True}
        page.evaluate("v => kernelSends({kind: 'snapshot', view: v})", view([user, reply], "processing", "completing"))
        chunks = [HOSTILE[i:i + 7] for i in range(0, len(HOSTILE), 7)]
        for chunk in chunks:
            page.evaluate("c => kernelSends({kind: 'delta', ops: [{id: 'a1', field: 'content', append: c}]})", chunk)
        page.wait_for_timeout(200)
        check("status line says streaming", page.inner_text(".nbc-status") == "Streaming…")
        check("user text is shown as text", page.inner_text("[data-message-id=u1]") == "hi <b>there</b>")
        check("no script, handler or javascript: link ran", page.evaluate("window.pwned") is None)
        check("no img onerror attribute", page.locator("[data-message-id=a1] [onerror]").count() == 0)
        check("no javascript: href", page.locator("[data-message-id=a1] a[href^='javascript']").count() == 0)
        check("model html cannot add our buttons", page.locator("[data-message-id=a1] button[data-action=approve]").count() == 0)
        check("links open in a new tab", page.get_attribute("[data-message-id=a1] a[href^='https']", "rel") == "noopener noreferrer")
        check("math renders as MathML", page.locator("[data-message-id=a1] math").count() == 2)
        check("TeX source is not shown", "\\int" not in page.inner_text("[data-message-id=a1]"))
        check("python is highlighted", page.locator("[data-message-id=a1] .hljs-keyword").count() >= 1)
        check("code block has Copy", page.locator("[data-message-id=a1] [data-action=copy-code]").count() == 1)
        check("Insert cell is hidden without a notebook",
              page.locator("[data-message-id=a1] [data-action=insert-cell]").is_hidden())
        same_node = page.evaluate("window.n1 = document.querySelector('[data-message-id=u1]'); true")

        call = {"id": "call_1", "name": "delete_rows", "arguments": '{\n  "table": "t"\n}',
                "status": "awaiting-approval"}
        done = {**reply, "content": HOSTILE, "loading": False, "tool_calls": [call]}
        page.evaluate("v => kernelSends({kind: 'snapshot', view: v})", view([user, done], "paused"))
        page.wait_for_timeout(100)
        check("snapshot keeps unchanged nodes", same_node and page.evaluate(
            "window.n1 === document.querySelector('[data-message-id=u1]')"))
        check("status says waiting for approval", page.inner_text(".nbc-status") == "Waiting for approval")
        check("input disabled while paused", page.is_disabled("[data-field=input]"))
        page.fill("[data-field=arguments]", "{not json")
        check("invalid JSON disables Approve", page.is_disabled("[data-action=approve]"))
        page.fill("[data-field=arguments]", '{"table": "u"}')
        page.click("[data-action=approve]")
        sent = page.evaluate("window.fakeModel.sent.at(-1)")
        check("approve sends edited arguments", sent["kind"] == "approve" and sent["arguments"] == '{"table": "u"}')
        check("approve disabled after click", page.is_disabled("[data-action=approve]"))
        page.evaluate("r => kernelSends({kind: 'action_result', request_id: r, ok: false, error: 'tool gone'})",
                      sent["request_id"])
        check("failed action shows inline error", "tool gone" in page.inner_text("[data-tool-call-id=call_1]"))
        page.click("[data-action=deny]")
        page.fill("[data-field=deny-reason]", "not that table")
        page.click("[data-action=deny-confirm]")
        sent = page.evaluate("window.fakeModel.sent.at(-1)")
        check("deny sends the reason", sent["kind"] == "deny" and sent["reason"] == "not that table")
        page.screenshot(path=str(OUT / "paused.png"), full_page=True)

        denied = {**done, "tool_calls": [{**call, "status": "denied", "result": "Denied: not that table"}]}
        page.evaluate("v => kernelSends({kind: 'snapshot', view: v})",
                      view([user, denied], "aborted", offer={"message_id": "a1"}))
        page.wait_for_timeout(100)
        check("Continue appears under the message", page.evaluate(
            "document.querySelector('[data-message-id=a1]').nextElementSibling.classList.contains('nbc-continue')"))
        page.fill("[data-field=continue-instruction]", "be brief")
        page.click("[data-action=continue]")
        sent = page.evaluate("window.fakeModel.sent.at(-1)")
        check("continue sends the instruction", sent == {**sent, "kind": "continue", "instruction": "be brief"})
        page.fill("[data-field=input]", "next question")
        page.press("[data-field=input]", "Enter")
        sent = page.evaluate("window.fakeModel.sent.at(-1)")
        check("Enter sends", sent["kind"] == "send" and sent["text"] == "next question")
        page.evaluate("document.body.classList.add('dark')")
        page.screenshot(path=str(OUT / "dark.png"), full_page=True)
        check("no page errors", not errors)
        for e in errors:
            print("   ", e)
        browser.close()
    server.shutdown()
    print(f"screenshots in {OUT}")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
