// Citation numbers in the text (shared/citations.js through shared/transcript.js) in jsdom: each number where
// the site put its citation, linking to the source (http(s) only) and naming its footnote.
import { test } from "node:test";
import assert from "node:assert/strict";
import { loadPage } from "./dom_env.mjs";

const page = loadPage("<!doctype html><body></body>");
globalThis.window = page;
globalThis.chrome = { i18n: { getMessage: (key) => key } };
const { renderMessage } = await import("../shared/transcript.js");

const answer = (text, citations) => ({ id: "a", role: "assistant", parts: [{ type: "text", text, citations }] });
const refs = (node) => [...node.querySelectorAll("sup.cite-ref")].map((sup) => {
  const a = sup.querySelector("a");
  const note = node.querySelector(`#${sup.firstElementChild.getAttribute("aria-describedby")}`);
  return [sup.textContent, a?.getAttribute("href") ?? null, note?.querySelector("a, span")?.textContent];
});

test("ChatGPT browsing markers become numbers in place", () => {
  const text = "Founded in 2014 【3:0†source】【3:1†source】 and sold.";
  const cites = [
    { title: "Crunchbase", url: "https://crunchbase.com/x", start: 16, end: 28 },
    { title: "WAF", url: "https://signalsciences.com/", start: 28, end: 40 },
  ];
  const node = renderMessage(answer(text, cites), { site: "chatgpt" });
  assert.deepEqual(refs(node), [["1", "https://crunchbase.com/x", "Crunchbase"], ["2", "https://signalsciences.com/", "WAF"]]);
  assert.equal(node.querySelector(".markdown p").textContent, "Founded in 2014 12 and sold.");
  for (const a of node.querySelectorAll("sup a")) assert.equal(`${a.rel}|${a.target}`, "noopener noreferrer|_blank");
});

test("ChatGPT search chips of a cited url become its number; stale spans are not used", () => {
  const url = "https://developers.google.com/gmail/api/guides/batch?utm_source=chatgpt.com";
  const text = `Batch them ([Google Developers](${url})). Unrelated ([Other](https://other.org/)).`;
  const node = renderMessage(answer(text, [{ title: "Batching", url, start: 2, end: 9 }]), { site: "chatgpt" });
  assert.deepEqual(refs(node), [["1", url, "Batching"]]);
  assert.equal(node.querySelector(".markdown p").textContent, "Batch them 1. Unrelated (Other).");
});

test("Claude spans: the number follows the cited words; a cited block without a span ends with it", () => {
  const node = renderMessage(answer("It rains today. Wind is west.", [{ title: "Weather", url: "https://w.org/", start: 0, end: 15 }]), { site: "claude" });
  assert.equal(node.querySelector(".markdown p").textContent, "It rains today.1 Wind is west.");
  const block = renderMessage(answer("A storm comes.", [{ url: "https://abc7news.com/weather/" }]), { site: "anthropic" });
  assert.deepEqual(refs(block), [["1", "https://abc7news.com/weather/", "abc7news.com"]]);
});

test("unsafe sources are numbers without links; a number never lands inside code or a link", () => {
  const text = "Run `make` now [docs](https://d.org/).";
  const cites = [{ title: "bad", url: "javascript:alert(1)", start: 0, end: 9 }, { title: "d", url: "https://d.org/", start: 15, end: 24 }];
  const node = renderMessage(answer(text, cites), { site: "claude" });
  assert.equal(node.querySelectorAll("[href^='javascript'], code sup, a sup").length, 0);
  assert.equal(node.querySelector("code").textContent, "make");
  assert.deepEqual(refs(node), [["1", null, "bad"], ["2", "https://d.org/", "d"]]);
  assert.ok(!node.textContent.includes("\uE000"));
});

test("text that looks like a token stays text", () => {
  const text = "\uE000deadbeef0000:1\uE001 plain";
  const node = renderMessage(answer(text, [{ title: "s", url: "https://s.org/" }]), { site: "claude" });
  assert.ok(node.querySelector(".markdown").textContent.startsWith("\uE000deadbeef0000:1\uE001"));
  assert.equal(node.querySelectorAll("sup.cite-ref").length, 1);
});

test("spans count code points, as the readers keep them: an emoji before the marker does not shift it", () => {
  const text = "Wave 👋 【0†source】 done";
  const node = renderMessage(answer(text, [{ title: "s", url: "https://s.org/", start: 7, end: 17 }]), { site: "chatgpt" });
  assert.equal(node.querySelector(".markdown p").textContent, "Wave 👋 1 done");
});

test("several sources of one marker: all their numbers in its place", () => {
  const text = "Sold 【1†source】.";
  const cites = ["https://a.org/", "https://b.org/"].map((url) => ({ url, start: 5, end: 15 }));
  const node = renderMessage(answer(text, cites), { site: "chatgpt" });
  assert.equal(node.querySelector(".markdown p").textContent, "Sold 12.");
});
