// The service worker's "Continue in…" side: the host's menu is passed on as sent, a built context stays in
// the worker behind a handle (the extension's pages use it: the router refuses context-text and fill-open
// from tabs), a web page's Continue gets a short status while the preview opens in an extension window,
// and a filled tab claims its text once.
// The browser API and the native host are fakes here; tests/browser drives the real ones.
import { test } from "node:test";
import assert from "node:assert/strict";

const MENU = [
  { target: "claude", group: "web", label: "Claude (web)", fill_url: "https://claude.ai/new", budget: 32000, tokenizer: "claude-estimate", estimate: true },
  { target: "agents-md", group: "agent", label: "AGENTS.md", fill_url: null, budget: 8000, tokenizer: "o200k_base", estimate: false },
  { target: "evil", group: "web", label: "Elsewhere", fill_url: "https://example.com/", budget: 1000, tokenizer: "o200k_base", estimate: false },
];
const TEXT = `${"This is a continuation of a conversation. ".repeat(120)}The end.`;
const REPORT = { tokens: 2400, budget: 32000, tokenizer: "claude-estimate", estimate: true, kept: ["a"], dropped: [] };
const calls = [];
const session = {};
const opened = [];
const windows = [];

function hostReply(message) {
  calls.push(message);
  if (message.action === "targets") return { targets: [], menu: MENU };
  if (message.action === "context") {
    // two pages, as the host sends long contexts
    const half = TEXT.length / 2;
    return message.cursor
      ? { chunk: TEXT.slice(half), next_cursor: null }
      : { conversation_id: message.conversation_id, target: message.target, report: REPORT, chunk: TEXT.slice(0, half), next_cursor: "p2" };
  }
  throw new Error(`unexpected ${message.action}`);
}

globalThis.chrome = {
  runtime: {
    getURL: (path) => `chrome-extension://test/${path}`,
    connectNative() {
      const listeners = [];
      return {
        onMessage: { addListener: (fn) => listeners.push(fn) },
        onDisconnect: { addListener() {} },
        postMessage(message) {
          queueMicrotask(() => listeners.forEach((fn) => fn({ id: message.id, ok: true, data: hostReply(message) })));
        },
      };
    },
  },
  storage: {
    session: {
      get: async (key) => (key in session ? { [key]: structuredClone(session[key]) } : {}),
      set: async (values) => Object.assign(session, structuredClone(values)),
    },
  },
  windows: { create: async (options) => windows.push(options) },
  tabs: {
    create: async ({ url }) => {
      const tab = { id: 100 + opened.length, url };
      opened.push(tab);
      return tab;
    },
  },
};
const { buildContext, buildInPreview, claimFill, contextPreview, contextText, describeTargets, openAndFill } =
  await import("../background/continue.js");

test("the menu is the host's, as sent", async () => {
  assert.deepEqual(await describeTargets(), { targets: MENU, hostError: null });
});

test("a built context stays in the worker: the tab gets a handle, the report and a preview", async () => {
  const context = await buildContext({ conversation_id: "k3v9qz2mx8ta", target: "claude", budget: 0, redact: true });
  assert.match(context.handle, /^[0-9a-f]{32}$/);
  assert.deepEqual(context.report, REPORT);
  assert.equal(context.fills, true);
  assert.equal(context.total_chars, TEXT.length);
  assert.equal(context.preview, TEXT.slice(0, 4000));
  assert.equal("text" in context, false);
  assert.deepEqual(calls.filter((c) => c.action === "context").map((c) => c.target), ["claude", "claude"]);
  assert.equal(calls.find((c) => c.action === "context").redact, true);
});

test("a page's Continue: the preview opens in an extension window, the tab gets no handle and no text", async () => {
  const pagesBefore = calls.filter((c) => c.action === "context").length;
  let pagesAtOpen = null;
  const create = globalThis.chrome.windows.create;
  globalThis.chrome.windows.create = async (options) => {
    pagesAtOpen = calls.filter((c) => c.action === "context").length - pagesBefore;
    return create(options);
  };
  const building = buildInPreview({ conversation_id: "k3v9qz2mx8ta", target: "agents-md", redact: true });
  // the window opens before the build ends (the host had sent at most its first page of two), and its first
  // read of the preview waits for the build
  await new Promise((resolve) => setTimeout(resolve, 0));
  globalThis.chrome.windows.create = create;
  assert.equal(windows.length, 1);
  assert.ok(pagesAtOpen !== null && pagesAtOpen < 2, pagesAtOpen);
  const handle = new URL(windows[0].url).searchParams.get("handle");
  const waited = contextPreview({ handle });
  const status = await building;
  assert.deepEqual(status, { target: "agents-md", label: "AGENTS.md", fills: false, tokens: REPORT.tokens });
  assert.equal((await waited).preview, TEXT.slice(0, 4000));
  const context = { handle };
  assert.equal(windows[0].type, "popup");
  assert.equal(windows[0].url, `chrome-extension://test/preview/preview.html?handle=${context.handle}`);
  // the window reads the preview and the text by handle
  assert.equal((await contextPreview({ handle: context.handle })).preview, TEXT.slice(0, 4000));
  assert.equal((await contextText({ handle: context.handle })).text, TEXT);
  for (const handle of ["0".repeat(32), "__proto__", "constructor", undefined]) {
    await assert.rejects(contextText({ handle }), { code: "UNKNOWN_HANDLE" });
  }
  await assert.rejects(openAndFill({ handle: context.handle }), { code: "NOT_FILLABLE" }); // a copy target
});

test("an unknown target is refused before the host is asked", async () => {
  const before = calls.length;
  await assert.rejects(buildContext({ conversation_id: "k3v9qz2mx8ta", target: "nope" }), { code: "UNKNOWN_TARGET" });
  assert.equal(calls.slice(before).some((c) => c.action === "context"), false);
});

test("a fill URL off the sites we fill is never opened", async () => {
  const { handle } = await buildContext({ conversation_id: "k3v9qz2mx8ta", target: "evil" });
  await assert.rejects(openAndFill({ handle }), { code: "NOT_FILLABLE" });
  assert.equal(opened.length, 0);
});

test("filling opens the target and its tab claims the text once, even when it asks before the text is stored", async () => {
  const { handle } = await buildContext({ conversation_id: "k3v9qz2mx8ta", target: "claude" });
  const fill = openAndFill({ handle });
  const early = claimFill({ tab: { id: 100 } }); // the new tab's filler, before openAndFill has finished
  assert.deepEqual(await fill, { tabId: 100, url: "https://claude.ai/new" });
  const claimed = await early;
  assert.ok(claimed.text === TEXT && claimed.target === "claude", "the early claim got no text");
  assert.deepEqual(await claimFill({ tab: { id: 100 } }), { text: null });
  assert.deepEqual(await claimFill({ tab: { id: 5 } }), { text: null });
});
