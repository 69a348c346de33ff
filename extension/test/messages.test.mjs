// MESSAGES.md against the code: the router's handler table (types and senders) and the error codes the
// extension throws. Like tests/test_protocol_doc.py for the host's PROTOCOL.md.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { MESSAGE_TYPES } from "../background/router.js";

const EXT = join(dirname(fileURLToPath(import.meta.url)), "..");
const DOC = readFileSync(join(EXT, "MESSAGES.md"), "utf8");

function section(heading) {
  const start = DOC.indexOf(`## ${heading}`);
  assert.ok(start >= 0, `MESSAGES.md has no "## ${heading}"`);
  const end = DOC.indexOf("\n## ", start + 3);
  return DOC.slice(start, end < 0 ? undefined : end);
}

/** First-column `code` cells of the tables in a section, with the second column. */
function rows(text) {
  return [...text.matchAll(/^\| `([^`]+)` \| ([^|]*) \|/gm)].map((m) => [m[1], m[2].trim()]);
}

test("every router message type is documented with its senders, and nothing else", () => {
  const documented = Object.fromEntries(rows(section("To the service worker")).map(([type, from]) => [type, from.split(/,\s*/).sort()]));
  const code = Object.fromEntries(Object.entries(MESSAGE_TYPES).map(([type, from]) => [type, [...from].sort()]));
  assert.deepEqual(documented, code);
});

function sourceFiles(dir) {
  return readdirSync(join(EXT, dir), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : entry.name.endsWith(".js") ? [join(dir, entry.name)] : []);
}

test("every error code the extension raises is documented", () => {
  const documented = new Set(rows(section("Extension error codes")).map(([code]) => code));
  const raised = new Set(["INTERNAL"]);
  for (const file of ["background", "content", "shared", "sites"].flatMap(sourceFiles)) {
    for (const match of readFileSync(join(EXT, file), "utf8").matchAll(/MnemoError\(\s*"([A-Z_]+)"/g)) raised.add(match[1]);
  }
  raised.add("HTTP_<status>");
  assert.ok(raised.size > 15);
  assert.deepEqual([...raised].filter((code) => !documented.has(code)), []);
  assert.deepEqual([...documented].filter((code) => !raised.has(code)), []);
});
