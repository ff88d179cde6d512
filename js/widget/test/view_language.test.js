// Each view keeps its own language (two chats on one page may differ): code that runs inside a view — built, a
// kernel message, an event inside its element, a timer it started — looks strings up in that view's language.
import { test } from "node:test";
import assert from "node:assert/strict";
import { bound, currentLanguage, followLanguage, inLanguage, t } from "../src/i18n.js";

const SEND = { en: "Send", "zh-CN": "发送" };

test("inside a view its language is used, and the one before comes back after", () => {
  const outside = t("composer.send");
  assert.equal(inLanguage("zh-CN", () => t("composer.send")), SEND["zh-CN"]);
  assert.equal(inLanguage("en", () => inLanguage("zh-CN", () => t("composer.send")) + t("composer.send")),
    SEND["zh-CN"] + SEND.en);
  assert.equal(t("composer.send"), outside);
});

test("a language is restored even when the view's code throws", () => {
  const before = currentLanguage();
  assert.throws(() => inLanguage("zh-CN", () => {
    throw new Error("boom");
  }));
  assert.equal(currentLanguage(), before);
});

test("a callback a view starts runs later in that view's language, whatever ran in between", async () => {
  const later = inLanguage("zh-CN", () => bound(() => t("composer.send")));
  const other = inLanguage("en", () => bound(() => t("composer.send")));
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.equal(inLanguage("en", later), SEND["zh-CN"]);
  assert.equal(inLanguage("zh-CN", other), SEND.en);
});

test("events inside two views' elements run each view's handlers in its own language", () => {
  const zh = new EventTarget();
  const en = new EventTarget();
  const undo = [followLanguage(zh, "zh-CN"), followLanguage(en, "en")];
  const heard = [];
  for (const el of [zh, en, zh]) {
    el.addEventListener("click", () => heard.push(t("composer.send")));
  }
  zh.dispatchEvent(new Event("click"));
  en.dispatchEvent(new Event("click"));
  assert.deepEqual(heard, [SEND["zh-CN"], SEND["zh-CN"], SEND.en]);
  for (const stop of undo) stop();
});

test("an unknown language is refused", () => {
  assert.throws(() => inLanguage("fr", () => t("composer.send")), /no strings for language fr/);
  assert.throws(() => followLanguage(new EventTarget(), "xx"));
});

test("a plugin's command description is shown as written, even when it looks like a table key", async () => {
  const { describe } = await import("../src/slash_commands.js");
  const run = () => {};
  assert.equal(describe({ name: "x", description: "slash.retry", plugin: true, run }), "slash.retry");
  assert.equal(inLanguage("zh-CN", () => describe({ name: "retry", description: "slash.retry", run })),
    "重新发送失败的请求");
});
