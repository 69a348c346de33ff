// The DOM sweep on real saved pages (tests/fixtures, sources in INDEX.md) and on a virtualised thread
// that renders only the rows in view: every turn once, in order, and "complete" only when provable.
import { test } from "node:test";
import assert from "node:assert/strict";
import { fixture, loadPage, withoutScripts } from "./dom_env.mjs";
import { sweep } from "../content/sweep.js";
import { chatgpt } from "../sites/chatgpt.js";
import { claude } from "../sites/claude.js";

async function sweepPage(site, dir, name, url) {
  loadPage(withoutScripts(fixture(dir, name)), url);
  return sweep(site.dom);
}

test("a full ChatGPT page: every turn, keyed, complete", async () => {
  const result = await sweepPage(chatgpt, "dom_chatgpt", "aicb_chatgpt_loggedout_fullpage.html");
  assert.equal(result.complete, true);
  assert.deepEqual(result.turns.map((turn) => turn.role), ["user", "assistant", "user", "assistant"]);
  assert.ok(result.turns.every((turn) => turn.key && turn.markdown.length > 0));
  assert.deepEqual(result.turns.map((turn) => turn.order), [0, 1, 2, 3]);
});

test("a fragment holding only conversation-turn-9 and -10 is partial: turns 1..8 were never seen", async () => {
  const result = await sweepPage(chatgpt, "dom_chatgpt", "ys_chatgpt.html");
  assert.equal(result.turns.length, 2);
  assert.equal(result.diagnostics.gapless, false);
  assert.equal(result.complete, false);
  assert.ok(!result.turns.some((turn) => turn.markdown.includes("나의 말")), "screen-reader labels are not content");
});

test("a Claude page keyed by data-index is complete", async () => {
  const result = await sweepPage(claude, "dom_claude", "ys_edges_claude_001.html", "https://claude.ai/chat/x");
  assert.deepEqual(result.turns.map((turn) => turn.key), ["index-0", "index-1"]);
  assert.equal(result.complete, true);
});

test("a Claude page with no stable keys still reads every turn in page order", async () => {
  const result = await sweepPage(claude, "dom_claude", "ys_claude.html", "https://claude.ai/chat/x");
  assert.deepEqual(result.turns.map((turn) => turn.role), ["user", "assistant"]);
  assert.equal(result.diagnostics.unkeyed, true);
});

/** A thread of `total` rows of which only those in view are in the DOM, like a virtualised list. */
function virtualThread(total, { rowHeight = 100, view = 300, missing = new Set() } = {}) {
  const { document } = loadPage("<main id='thread'></main>");
  const main = document.getElementById("thread");
  const root = { scrollTop: 1234, clientHeight: view, scrollHeight: total * rowHeight };
  const render = () => {
    const first = Math.floor(root.scrollTop / rowHeight);
    const rows = [];
    for (let i = Math.max(0, first - 1); i < Math.min(total, first + view / rowHeight + 1); i += 1) {
      if (missing.has(i)) continue;
      const row = document.createElement("div");
      row.dataset.index = String(i);
      row.dataset.role = i % 2 ? "assistant" : "user";
      row.textContent = `message ${i}`;
      rows.push(row);
    }
    main.replaceChildren(...rows);
    return rows;
  };
  const dom = {
    firstIndex: 0,
    turns: render,
    isUnrendered: () => false,
    keyOf: (row) => `index-${row.dataset.index}`,
    indexOf: (row) => Number(row.dataset.index),
    roleOf: (row) => row.dataset.role,
    bodyOf: (row) => row,
    modelOf: () => null,
    scrollRoot: () => root,
    attachments: { files: "[data-file]", images: "img" },
  };
  return { dom, root };
}

test("a virtualised thread is read whole by scrolling, and the scroll position is restored", async () => {
  const { dom, root } = virtualThread(40);
  const result = await sweep(dom);
  assert.equal(result.turns.length, 40, JSON.stringify(result.diagnostics));
  assert.deepEqual(result.turns.map((turn) => turn.markdown), Array.from({ length: 40 }, (_, i) => `message ${i}`));
  assert.equal(result.complete, true, JSON.stringify(result.diagnostics));
  assert.equal(root.scrollTop, 1234);
});

test("a row that never renders makes the capture partial, never silently complete", async () => {
  const { dom } = virtualThread(40, { missing: new Set([17]) });
  const result = await sweep(dom);
  assert.equal(result.turns.length, 39);
  assert.equal(result.diagnostics.gapless, false);
  assert.equal(result.complete, false);
});
