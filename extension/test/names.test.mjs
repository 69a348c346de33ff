// Display names for the library's model and project filters (shared/names.js), on values the sites store.
import { test } from "node:test";
import assert from "node:assert/strict";
import { modelName, projectName } from "../shared/names.js";

test("model slugs read as the names the sites show", () => {
  assert.equal(modelName("claude_4_5_with_thinking.claude-sonnet-4-5-20250929-think"), "Claude Sonnet 4.5 (thinking)");
  assert.equal(modelName("claude-sonnet-4-5"), "Claude Sonnet 4.5");
  assert.equal(modelName("claude-3-5-sonnet-20241022"), "Claude 3.5 Sonnet");
  assert.equal(modelName("gpt-4o"), "GPT-4o");
  assert.equal(modelName("gpt-4o-mini"), "GPT-4o mini");
  assert.equal(modelName("gpt-5-thinking"), "GPT-5 Thinking");
  assert.equal(modelName("o3"), "o3");
  assert.equal(modelName("text-davinci-002-render-sha"), "text-davinci-002-render-sha");
});

test("project ids read as a short project label; names stay", () => {
  const label = (short) => `Project ${short}`;
  assert.equal(projectName("g-p-69119d14a5b08191a0f1c0b7c2c7e1aa", label), "Project 69119d");
  assert.equal(projectName("0f8fad5b-d9cb-469f-a165-70867728950e", label), "Project 0f8fad");
  assert.equal(projectName("Alpha", label), "Alpha");
});

test("search snippets read as plain words, the hit marks kept", async () => {
  globalThis.chrome ??= { i18n: { getMessage: () => "", getUILanguage: () => "en" } };
  const { plainSnippet } = await import("../shared/dom.js");
  assert.equal(plainSnippet("## Worked «example» with **bold** and _it_"), "Worked «example» with bold and it");
  assert.equal(plainSnippet("| step | value |\n|---|---|\n| «anneal» | 450 °C |"), "step · value · «anneal» · 450 °C");
  assert.equal(plainSnippet("- item one\n- item `two` [link](https://x.y)"), "item one item two link");
  assert.equal(plainSnippet("a * b = c, snake_case_name"), "a * b = c, snake_case_name");
});
