// Transcript helpers of the extension pages: the active branch (the host's rule) and safe links.
import { test } from "node:test";
import assert from "node:assert/strict";
import { activePath, safeHref } from "../shared/transcript.js";

const message = (id, parent) => ({ id, parent, role: "user", parts: [] });

test("the active leaf's path, root first", () => {
  const conversation = { active_leaf: "b1", messages: [message("r", null), message("a1", "r"), message("b1", "a1"), message("a2", "r")] };
  assert.deepEqual(activePath(conversation).map((m) => m.id), ["r", "a1", "b1"]);
});

test("with no active leaf: the last message no one answers, as the host's tree.path_to", () => {
  // the last message (m) has an answer (c), so it is no leaf: the leaves are c and x, the last of them is x
  // (the old "last message" rule here showed r, m: a branch cut before its answer, unlike the host)
  const conversation = { active_leaf: null, messages: [message("r", null), message("c", "m"), message("x", "r"), message("m", "r")] };
  assert.deepEqual(activePath(conversation).map((m) => m.id), ["r", "x"]);
});

test("an unknown active leaf falls back the same way, and a parent cycle ends the walk", () => {
  const conversation = { active_leaf: "gone", messages: [message("a", "b"), message("b", "a"), message("z", null)] };
  assert.deepEqual(activePath(conversation).map((m) => m.id), ["z"]);
  const cyclic = { active_leaf: "a", messages: [message("a", "b"), message("b", "a")] };
  assert.deepEqual(activePath(cyclic).map((m) => m.id), ["b", "a"]);
});

test("links: http(s) only", () => {
  assert.equal(safeHref("https://example.org/x"), "https://example.org/x");
  for (const bad of ["javascript:alert(1)", "data:text/html,x", "vbscript:x", "not a url", " JAVASCRIPT:alert(1)"]) {
    assert.equal(safeHref(bad), null, bad);
  }
});
