// What the content scripts emit for a page capture (content/capture.js over the DOM sweep of real saved
// pages) against the capture JSON Schema generated from the host's pydantic model
// (host/mnemosyne/schema/capture.v1.json; tests/test_capture_schema.py keeps it current).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import Ajv2020 from "ajv/dist/2020.js";
import { FIXTURES, fixture, loadPage, withoutScripts } from "./dom_env.mjs";
import { capturePayload } from "../content/capture.js";
import { sweep } from "../content/sweep.js";
import { chatgpt } from "../sites/chatgpt.js";
import { claude } from "../sites/claude.js";
import { gemini } from "../sites/gemini.js";
import { deepseek } from "../sites/deepseek.js";

const SCHEMA = JSON.parse(readFileSync(join(FIXTURES, "..", "..", "host", "mnemosyne", "schema", "capture.v1.json"), "utf8"));
const validate = new Ajv2020({ allErrors: true, strict: false }).compile(SCHEMA);

const PAGES = [
  [chatgpt, "dom_chatgpt", "aicb_chatgpt_loggedout_fullpage.html", "https://chatgpt.com/c/68b0f1c2-0000-0000-0000-000000000000"],
  [chatgpt, "dom_chatgpt", "ys_chatgpt.html", "https://chatgpt.com/c/68b0f1c2-1111-0000-0000-000000000000"],
  [chatgpt, "dom_chatgpt", "oae_chatgpt_chat-code.html", "https://chatgpt.com/"],
  [chatgpt, "dom_chatgpt", "chatgpt_2026_09_timeline.html", "https://chatgpt.com/c/6f1c0000-0000-4000-8000-000000000009"],
  [chatgpt, "dom_chatgpt", "ys_edges_chatgpt_001.html", "https://chatgpt.com/c/68b0f1c2-2222-0000-0000-000000000000"],
  [claude, "dom_claude", "ys_edges_claude_001.html", "https://claude.ai/chat/0b5bd5a7-3a5e-4c3b-8a51-6f0a0cf0e0aa"],
  [claude, "dom_claude", "ys_claude.html", "https://claude.ai/new"],
  [gemini, "more_sites/gemini", "nuncaeslupus__gemini__table-2026-07.html", "https://gemini.google.com/app/8798be9d525cb25b"],
  [deepseek, "more_sites/deepseek", "covai__deepseek-chat.html", "https://chat.deepseek.com/a/chat/s/d213f7b1-0aa7-47a2-a6cf-3b4910a66b3a"],
];

for (const [site, dir, name, url] of PAGES) {
  test(`the capture of ${name} fits the host's schema`, async () => {
    loadPage(withoutScripts(fixture(dir, name)), url);
    const payload = capturePayload(site, await sweep(site.dom));
    assert.ok(payload.turns.length > 0, "no turns read");
    // through JSON, as runtime.sendMessage carries it
    const sent = JSON.parse(JSON.stringify(payload));
    assert.ok(validate(sent), JSON.stringify(validate.errors, null, 1));
  });
}

test("the schema check is live: a turn the host would refuse fails it", async () => {
  const [site, dir, name, url] = PAGES[0];
  loadPage(withoutScripts(fixture(dir, name)), url);
  const payload = capturePayload(site, await sweep(site.dom));
  for (const broken of [
    { ...payload, site: "grokipedia" },
    { ...payload, extra: true },
    { ...payload, turns: [{ ...payload.turns[0], role: "system" }] },
    { ...payload, turns: [{ ...payload.turns[0], order: "1" }] },
  ]) {
    assert.equal(validate(JSON.parse(JSON.stringify(broken))), false);
  }
});
