// The Continue-in preview renders the host's context report as sent (host/PROTOCOL.md `context`).
import { test } from "node:test";
import assert from "node:assert/strict";
import { loadPage } from "./dom_env.mjs";

globalThis.chrome = { i18n: { getMessage: (key, values = []) => `${key}:${[].concat(values).join("|")}` } };
const { previewNodes } = await import("../shared/context_preview.js");

const REPORT = {
  conversation: "3ifflpsk2nvm", target: "claude", shape: "text", tokens: 644, tokenizer: "claude-estimate",
  estimate: true, budget: 32000, limit: 30400, margin: 0.05, leaf: "m9",
  kept: ["m1", "m9"], compressed: ["m3"], dropped: ["m4", "m5", "m6"], truncated: [], instructions: 0,
  counts: { messages: 6, kept: 2, compressed: 1, dropped: 3, sentences: 4, code_blocks: 0 },
  redactions: { email: 2, api_key: 1 },
};

test("tokens against the budget, counts from the report, the start of the text", () => {
  loadPage("<main></main>");
  const [meter, tokens, summary, text] = previewNodes({ report: REPORT, preview: "This is a continuation…" });
  assert.deepEqual([meter.value, meter.max], [644, 32000]);
  assert.equal(tokens.dataset.tokens, "644");
  assert.equal(tokens.textContent, "previewTokens:≈644|32000|claude-estimate");
  assert.equal(summary.textContent, "previewSummary:2|1|3|3");
  assert.equal(text.textContent, "This is a continuation…");
});

test("an exact count has no ≈ and no redactions count 0", () => {
  loadPage("<main></main>");
  const [, tokens, summary] = previewNodes({ report: { ...REPORT, estimate: false, redactions: null }, preview: "" });
  assert.equal(tokens.textContent, "previewTokens:644|32000|claude-estimate");
  assert.equal(summary.textContent, "previewSummary:2|1|3|0");
});

test("the conversation comes first; the instructions around it are kept, folded", () => {
  loadPage("<main></main>");
  const preview = "Header line\n<<<BEGIN TRANSCRIPT: reference material>>>\nUser: hello\nAssistant: hi\n<<<END TRANSCRIPT>>>\nClosing";
  const nodes = previewNodes({ report: REPORT, preview });
  const text = nodes.find((node) => node.dataset.mnemosyne === "preview-text");
  const wrapper = nodes.find((node) => node.dataset.mnemosyne === "preview-wrapper");
  assert.equal(text.textContent, "User: hello\nAssistant: hi");
  assert.equal(wrapper.open, false);
  for (const line of ["Header line", "BEGIN TRANSCRIPT", "END TRANSCRIPT", "Closing"]) assert.ok(wrapper.textContent.includes(line), line);
  assert.ok(nodes.indexOf(text) < nodes.indexOf(wrapper));
});
