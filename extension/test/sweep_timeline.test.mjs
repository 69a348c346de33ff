// The sweep on the Sept-2026 chatgpt.com markup (tests/fixtures/dom_chatgpt/chatgpt_2026_09_timeline.html, built
// from published live measurements: see SOURCE.txt) and on claude.ai's partial mounting (rows of the real saved
// page ys_edges_claude_001.html, repeated): every message once, in order, complete only when provable.
import { test } from "node:test";
import assert from "node:assert/strict";
import { fixture, loadPage, withoutScripts } from "./dom_env.mjs";
import { virtualList } from "./virtual_list.mjs";
import { sweep } from "../content/sweep.js";
import { chatgpt } from "../sites/chatgpt.js";
import { claude } from "../sites/claude.js";

const FAST = { topSettleMs: 150, idleMs: 1500 };
const PROMPTS = ["How do I keep a sourdough starter alive", "And when I'm back?", "Write me a tiny Python helper",
  "Compare rye and whole wheat", "Show me what a healthy starter looks like", "Which hydration", "Is it safe to eat the hooch",
  "My loaf is flat", "How long should the bulk ferment", "Can I freeze baked bread", "Summarise the schedule", "Thanks!"];

function timelinePage() {
  const window = loadPage(withoutScripts(fixture("dom_chatgpt", "chatgpt_2026_09_timeline.html")));
  const root = window.document.querySelector("[data-app-action-timeline-scroll]");
  const mount = root.firstElementChild;
  const rows = [...mount.querySelectorAll(":scope > [data-turn-key]")];
  return { window, root, mount, rows };
}

function assertWholeThread(result) {
  assert.equal(result.turns.length, 24, JSON.stringify(result.diagnostics));
  assert.deepEqual(result.turns.map((turn) => turn.role), Array.from({ length: 24 }, (_, i) => (i % 2 ? "assistant" : "user")));
  PROMPTS.forEach((prompt, i) => assert.ok(result.turns[2 * i].markdown.startsWith(prompt), `turn ${i}: ${result.turns[2 * i].markdown}`));
  assert.equal(new Set(result.turns.map((turn) => turn.key)).size, 24);
}

test("Sept-2026 ChatGPT markup, all mounted: both messages of every turn, no labels, attachments on their side", async () => {
  timelinePage();
  const result = await sweep(chatgpt.dom, FAST);
  assertWholeThread(result);
  assert.equal(result.complete, true, JSON.stringify(result.diagnostics));
  assert.deepEqual(result.warnings, []);
  const text = result.turns.map((turn) => turn.markdown).join("\n");
  assert.ok(!/ChatGPT said|Good response/.test(text), "screen-reader labels and buttons are not content");
  assert.match(result.turns[1].markdown, /1\. Feed 1:5:5/);
  assert.match(result.turns[5].markdown, /```python\ndef scale\(recipe, factor\):/);
  assert.match(result.turns[7].markdown, /\| Rye \| Fast \| Sour, earthy \|/);
  assert.deepEqual(result.turns[6].attachments, [{ name: "flours.pdf", kind: "file", url: null }]);
  assert.deepEqual(result.turns[7].attachments, []);
  // the image-only answer has no text body: it is kept with its image
  assert.equal(result.turns[9].markdown, "");
  assert.deepEqual(result.turns[9].attachments, [{ name: "Generated image 1", kind: "image", url: null }]);
  // a two-block answer is one message
  assert.match(result.turns[11].markdown, /70 percent hydration\.\n\nOnce shaping feels easy/);
  assert.ok(result.turns.every((turn) => /^6f1c[0-9a-f-]+:(user|assistant)$/.test(turn.key)));
});

test("Sept-2026 ChatGPT timeline: column-reverse, 3 turns mounted, older ones loading at the top: read whole, in order", async () => {
  const { root, mount, rows } = timelinePage();
  const list = virtualList({ root, mount, rows, reversed: true, loaded: 5, batch: 3, loadDelay: 30 });
  root.scrollTop = -150; // the user had scrolled up a little: the newest turn is not mounted
  assert.ok(mount.children.length <= 4);
  const result = await sweep(chatgpt.dom, FAST);
  list.stop();
  assertWholeThread(result);
  assert.equal(result.complete, true, JSON.stringify(result.diagnostics));
  assert.equal(list.state.loaded, 12);
  assert.equal(root.scrollTop, -150, "the scroll position is restored");
});

test("a hidden tab loads no older turns: the capture is partial, never complete", { timeout: 30_000 }, async () => {
  const { window, root, mount, rows } = timelinePage();
  Object.defineProperty(window.document, "visibilityState", { configurable: true, value: "hidden" });
  globalThis.requestAnimationFrame = () => 0; // a hidden tab renders no frames
  const list = virtualList({ root, mount, rows, reversed: true, loaded: 5, paused: () => window.document.visibilityState === "hidden" });
  const result = await sweep(chatgpt.dom, { topSettleMs: 100, idleMs: 400 });
  list.stop();
  assert.equal(result.complete, false);
  assert.equal(result.diagnostics.timedOut, true);
  assert.equal(result.turns.length, 10, "what was seen is kept");
  assert.ok(result.turns[0].markdown.startsWith("My loaf is flat"), "the oldest turn read is the oldest one loaded");
});

test("a turn that stays an empty placeholder makes the capture partial", async () => {
  const { window, root, mount, rows } = timelinePage();
  const empty = window.document.createElement("div");
  empty.setAttribute("data-turn-key", rows[6].getAttribute("data-turn-key"));
  const list = virtualList({ root, mount, rows, reversed: true, placeholder: (i) => (i === 6 ? empty : null) });
  const result = await sweep(chatgpt.dom, FAST);
  list.stop();
  assert.equal(result.turns.length, 22);
  assert.equal(result.diagnostics.neverRendered, 1);
  assert.equal(result.complete, false);
});

test("the older ChatGPT markup still reads (conversation-turn articles)", async () => {
  loadPage(withoutScripts(fixture("dom_chatgpt", "aicb_chatgpt_loggedout_fullpage.html")));
  const result = await sweep(chatgpt.dom, FAST);
  assert.deepEqual(result.turns.map((turn) => turn.role), ["user", "assistant", "user", "assistant"]);
  assert.equal(result.complete, true);
});

/** A long Claude thread made of the real page's two rows, repeated, mounted like claude.ai does: a few rows at a time. */
function claudeThread(total) {
  const window = loadPage(withoutScripts(fixture("dom_claude", "ys_edges_claude_001.html")), "https://claude.ai/chat/x");
  const document = window.document;
  const [userRow, answerRow] = [0, 1].map((i) => document.querySelector(`[data-index="${i}"]`));
  const mount = userRow.parentElement;
  const root = mount.parentElement;
  root.style.overflowY = "auto";
  const rows = Array.from({ length: total }, (_, i) => {
    const row = (i % 2 ? answerRow : userRow).cloneNode(true);
    row.setAttribute("data-index", String(i));
    row.removeAttribute("data-last-message");
    const article = row.querySelector("[aria-setsize]");
    article?.setAttribute("aria-setsize", String(total));
    article?.setAttribute("aria-posinset", String(i + 1));
    const body = row.querySelector("[data-testid='user-message']") || row.querySelector(".standard-markdown");
    const marker = document.createElement("p");
    marker.textContent = `row marker ${i}`;
    body.prepend(marker);
    return row;
  });
  return { root, mount, rows };
}

test("claude.ai partial mounting: a 30-message thread opened mid-way is read whole, in order", async () => {
  const { root, mount, rows } = claudeThread(30);
  const list = virtualList({ root, mount, rows, rowHeight: 400, view: 900, start: 5000 });
  const result = await sweep(claude.dom, FAST);
  list.stop();
  assert.equal(result.turns.length, 30, JSON.stringify(result.diagnostics));
  result.turns.forEach((turn, i) => assert.ok(turn.markdown.includes(`row marker ${i}`), `row ${i}`));
  assert.deepEqual(result.turns.map((turn) => turn.key), Array.from({ length: 30 }, (_, i) => `index-${i}`));
  assert.equal(result.complete, true, JSON.stringify(result.diagnostics));
});

test("claude.ai: older rows that load only at the top are read too", async () => {
  const { root, mount, rows } = claudeThread(24);
  const list = virtualList({ root, mount, rows, rowHeight: 400, view: 900, loaded: 8, batch: 8, loadDelay: 40 });
  const result = await sweep(claude.dom, FAST);
  list.stop();
  assert.equal(result.turns.length, 24, JSON.stringify(result.diagnostics));
  assert.equal(result.complete, true);
});

test("claude.ai: a thread whose oldest rows never load is partial (its first index was never seen)", async () => {
  const { root, mount, rows } = claudeThread(24);
  const list = virtualList({ root, mount, rows, rowHeight: 400, view: 900, loaded: 8, paused: () => true });
  const result = await sweep(claude.dom, { topSettleMs: 100, idleMs: 300 });
  list.stop();
  assert.equal(result.turns.length, 8);
  assert.equal(result.complete, false);
  assert.equal(result.diagnostics.gapless, false);
});

test("what cannot be read as text is kept as a note and counted in warnings", async () => {
  const { window } = timelinePage();
  const answer = window.document.querySelectorAll("[data-markdown-text-style='assistant-message']")[1];
  answer.insertAdjacentHTML("beforeend", "<iframe title='Deep research report' src='https://chatgpt.com/deep-research/x'></iframe><canvas></canvas>");
  const result = await sweep(chatgpt.dom, FAST);
  assert.match(result.turns[3].markdown, /\[iframe: Deep research report: https:\/\/chatgpt\.com\/deep-research\/x\]/);
  assert.match(result.turns[3].markdown, /\[canvas\]/);
  assert.deepEqual(result.warnings.map((w) => [w.code, w.count]), [["UNREADABLE_ELEMENT", 2]]);
});

test("claude.ai: fewer messages read than the page announces (aria-setsize) is partial", async () => {
  const { root, mount, rows } = claudeThread(12);
  // the page says 13 messages, but only 12 rows exist: one was never mounted anywhere
  for (const row of rows) row.querySelector("[aria-setsize]").setAttribute("aria-setsize", "13");
  const list = virtualList({ root, mount, rows, rowHeight: 400, view: 900 });
  const result = await sweep(claude.dom, FAST);
  list.stop();
  assert.equal(result.turns.length, 12);
  assert.equal(result.diagnostics.announced, 13);
  assert.equal(result.complete, false);
});
