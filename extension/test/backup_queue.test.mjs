// A backup's listing (background/backup_lists.js) and its queue and counts (background/backup_state.js).
import { test } from "node:test";
import assert from "node:assert/strict";
import { applyListReply, conversationKind, conversationPath, initialListing, nextListPath } from "../background/backup_lists.js";
import { addListed, counts, finishItem, listedAs, logRecord, newRun, nextItem, retryFailures } from "../background/backup_state.js";
import { etaSeconds } from "../shared/backup_run.js";
import { policyFor } from "../background/rate_policy.js";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { FIXTURES } from "./dom_env.mjs";

/** Walk a site's listing against a table of path -> reply, as the worker does; returns paths asked and entries. */
function listAll(site, replies) {
  let listing = initialListing(site);
  const paths = [];
  const entries = [];
  for (let path = nextListPath(site, listing); path; path = nextListPath(site, listing)) {
    paths.push(path);
    assert.ok(paths.length < 100, "listing does not end");
    const result = applyListReply(site, listing, replies(path));
    listing = result.listing;
    entries.push(...result.entries);
  }
  return { paths, entries };
}

test("ChatGPT: main list paged by offset until total, archived, then each project by cursor", () => {
  const items = (from, n, extra = {}) => Array.from({ length: n }, (_, i) => ({ id: `c${from + i}`, title: `t${from + i}`,
    update_time: `2026-01-01T00:00:${String(i % 60).padStart(2, "0")}Z`, ...extra }));
  const replies = (path) => {
    if (path.includes("is_archived=true")) return { items: items(900, 2), total: 2, limit: 100, offset: 0 };
    if (path.startsWith("/backend-api/conversations?offset=0&")) return { items: items(0, 100), total: 150, limit: 100, offset: 0 };
    if (path.startsWith("/backend-api/conversations?offset=100&")) return { items: items(100, 50), total: 150, limit: 100, offset: 100 };
    if (path.includes("snorlax")) {
      return { items: [{ gizmo: { gizmo: { id: "g-p-abc", display: { name: "Thesis" }, instructions: "Be brief" } } }], cursor: null };
    }
    if (path === "/backend-api/gizmos/g-p-abc/conversations?cursor=0") return { items: items(500, 3), cursor: "3" };
    if (path === "/backend-api/gizmos/g-p-abc/conversations?cursor=3") return { items: items(503, 1), cursor: null };
    throw new Error(`unexpected ${path}`);
  };
  const { paths, entries } = listAll("chatgpt", replies);
  assert.equal(paths.length, 6);
  assert.equal(entries.length, 156);
  assert.deepEqual(entries.at(-1), { id: "c503", title: "t503", updated: "2026-01-01T00:00:00Z", project: "g-p-abc" });
  assert.equal(conversationPath("chatgpt", { id: "c1" }), "/backend-api/conversation/c1");
});

test("Claude: chat orgs only, projects with docs, chats paged by has_more", () => {
  const replies = (path) => {
    if (path === "/api/organizations") return [{ uuid: "api", capabilities: ["api"] }, { uuid: "org1", capabilities: ["chat"] }];
    if (path === "/api/organizations/org1/projects") return [{ uuid: "p1", name: "Book", prompt_template: "Write well" }];
    if (path === "/api/organizations/org1/projects/p1/docs") return [{ filename: "outline.md", content: "# Outline" }];
    if (path.includes("offset=0")) return { data: [{ uuid: "a", name: "A", updated_at: "u1", project_uuid: "p1" }], has_more: true };
    if (path.includes("offset=1")) return { data: [{ uuid: "b", name: "B", updated_at: "u2" }], has_more: false };
    throw new Error(`unexpected ${path}`);
  };
  const { paths, entries } = listAll("claude", replies);
  assert.equal(paths.length, 5);
  assert.deepEqual(entries, [{ id: "a", title: "A", updated: "u1", org: "org1", project: "p1" }, { id: "b", title: "B", updated: "u2", org: "org1" }]);
  assert.match(conversationPath("claude", entries[0]), /^\/api\/organizations\/org1\/chat_conversations\/a\?tree=True&rendering_mode=messages/);
  assert.equal(conversationKind("claude", { chat_messages: [] }).ok, true);
  assert.equal(conversationKind("chatgpt", { title: "no mapping" }).ok, false);
  assert.equal(conversationKind("chatgpt", { messages: [{ author: { role: "user" } }] }).ok, true, "a window: saved, the host keeps it partial");
  assert.equal(conversationKind("chatgpt", null).ok, false);
});

function run() {
  return newRun({ id: "r1", site: "chatgpt", tabId: 1, policy: policyFor("chatgpt"), now: 0 });
}

test("unchanged complete conversations are skipped; changed, partial and new ones are queued once", () => {
  const entries = [
    { id: "same", updated: "u1" }, { id: "changed", updated: "u2" }, { id: "partial", updated: "u3" }, { id: "new", updated: "u4" },
  ];
  const known = {
    same: { list_updated: "u1", complete: true }, changed: { list_updated: "u0", complete: true }, partial: { list_updated: "u3", complete: false },
  };
  let state = addListed(run(), entries, known);
  state = addListed(state, [{ id: "new", updated: "u4", project: "g-p-x" }]);
  assert.deepEqual(state.queue.map((e) => e.id), ["changed", "partial", "new"]);
  assert.equal(state.queue[2].project, "g-p-x");
  assert.deepEqual(counts(state), { done: 0, skipped: 1, failed: 0, left: 3 });
});

test("outcomes move the cursor; failures and kept copies are listed with reasons; failures can be retried", () => {
  let state = addListed(run(), [{ id: "a", title: "A", updated: "1" }, { id: "b", title: "B", updated: "1" }, { id: "c", updated: "1" }]);
  state = finishItem(state, nextItem(state), "done", null, 1000);
  state = finishItem(state, nextItem(state), "failed", "HTTP_500", 2000);
  state = finishItem(state, nextItem(state), "kept", "partial capture", 3000);
  assert.equal(nextItem(state), null);
  assert.deepEqual(counts(state), { done: 1, skipped: 1, failed: 1, left: 0 });
  assert.deepEqual(state.failures, [{ id: "b", title: "B", reason: "HTTP_500" }]);
  assert.deepEqual(logRecord(state).failures, [{ id: "b", title: "B", reason: "HTTP_500" }]);
  state = { ...state, state: "done" };
  state = retryFailures(state);
  assert.equal(state.state, "running");
  assert.deepEqual(counts(state), { done: 1, skipped: 1, failed: 0, left: 1 });
  assert.equal(nextItem(state).id, "b");
});

test("the ETA follows the observed rate", () => {
  let state = addListed(run(), Array.from({ length: 10 }, (_, i) => ({ id: `x${i}`, updated: "1" })));
  assert.equal(etaSeconds(state), null);
  for (let i = 1; i <= 4; i += 1) state = finishItem(state, nextItem(state), "done", null, i * 2000);
  // 3 intervals of 2 s over 4 items (the first starts the clock): 6 left at 1.5 s each
  assert.equal(etaSeconds(state), 9);
});

test("the files of a conversation: ChatGPT asset pointers and attachments, Claude same-origin assets, once each", async () => {
  const { filesOf } = await import("../background/backup_files.js");
  const { readFileSync } = await import("node:fs");
  const fixture = JSON.parse(readFileSync(new URL("../../tests/fixtures/chatgpt_api/elinvoss/0054-Auto_repair_help-68f67423-fdcc-8321-ae7f-b94e4aca7138.json", import.meta.url)));
  const files = filesOf("chatgpt", fixture);
  assert.ok(files.length >= 1);
  assert.ok(files.every((f) => /^\/backend-api\/files\/download\/file[-_]\w+\?/.test(f.path)), JSON.stringify(files));
  assert.equal(new Set(files.map((f) => f.id)).size, files.length);
  const claude = filesOf("claude", { chat_messages: [
    { files_v2: [{ file_uuid: "f1", file_name: "a.png", preview_asset: { url: "/api/org/files/f1/preview" } }] },
    { files: [{ file_uuid: "f1", preview_asset: { url: "/api/org/files/f1/preview" } }, { file_uuid: "f2", preview_asset: { url: "https://evil.example/x" } }] },
  ] });
  assert.deepEqual(claude.map((f) => [f.id, f.path]), [["f1", "/api/org/files/f1/preview"]]);
});

test("an upload that is both an image part and an attachment keeps the attachment's name, type and size", async () => {
  const { filesOf } = await import("../background/backup_files.js");
  const { readFileSync } = await import("node:fs");
  const fixture = JSON.parse(readFileSync(new URL("../../tests/fixtures/chatgpt_api/elinvoss/0073-Fuel_pressure_regulator_issue-69077245-2894-8331-a428-10383a91ac88.json", import.meta.url)));
  const files = filesOf("chatgpt", fixture);
  assert.deepEqual(files.map((f) => [f.fileId, f.name, f.mime, f.size]), [
    ["sediment://file_0000000042e4723083df68cff588d1f1", "IMG_F5DAF224-905A-4E58-8BC3-29080A6D8F22.jpeg", "image/jpeg", 1527694]]);
});

test("a voice reply's audio pointer is a sound file, not an image", async () => {
  const { filesOf } = await import("../background/backup_files.js");
  const payload = { mapping: { a: { message: { content: { parts: [
    { content_type: "audio_asset_pointer", asset_pointer: "sediment://file_00aa", format: "wav", size_bytes: 768078 },
    { content_type: "image_asset_pointer", asset_pointer: "sediment://file_00bb", size_bytes: 10 }] } } } } };
  assert.deepEqual(filesOf("chatgpt", payload).map((f) => [f.name, f.mime, f.size]),
    [["file_00aa.wav", "audio/wav", 768078], ["file_00bb.png", "image/png", 10]]);
});

test("the worker downloads only https URLs on the site's file hosts", async () => {
  const { isFileHostUrl } = await import("../shared/file_hosts.js");
  for (const url of ["https://files.oaiusercontent.com/file-abc?se=1&sig=x", "https://sdmntprwestus.oaiusercontent.com/files/00/raw?sig=y"]) {
    assert.equal(isFileHostUrl(url), true, url);
  }
  for (const url of ["http://files.oaiusercontent.com/f", "https://oaiusercontent.com.evil.example/f", "https://evil.example/?h=oaiusercontent.com",
    "https://user:pw@files.oaiusercontent.com/f", "https://chatgpt.com/backend-api/estuary/content?id=file_1", "not a url"]) {
    assert.equal(isFileHostUrl(url), false, url);
  }
});

test("a file host download stops reading at the cap, with or without a Content-Length", async () => {
  const { downloadFileUrl } = await import("../background/file_download.js");
  const realFetch = globalThis.fetch;
  let pulled = 0;
  const body = (chunks) => new ReadableStream({
    pull(controller) {
      if (pulled >= chunks) return controller.close();
      pulled += 1;
      controller.enqueue(new Uint8Array(1000).fill(7));
    },
  });
  try {
    const url = "https://files.oaiusercontent.com/file-abc?sig=x";
    globalThis.fetch = async (asked, init) => {
      assert.equal(asked, url);
      assert.equal(init.credentials, "omit");
      return new Response(body(100), { status: 200, headers: { "Content-Type": "image/png" } }); // no length given
    };
    const over = await downloadFileUrl(url, 2500);
    assert.equal(over.code, "TOO_LARGE");
    assert.ok(pulled <= 4, `read ${pulled} chunks of 1000 bytes for a 2500-byte cap`);
    pulled = 0;
    assert.equal((await downloadFileUrl(url, 5000)).code, "TOO_LARGE"); // 100 kB body, 5 kB cap
    pulled = 0;
    globalThis.fetch = async () => new Response(body(3), { status: 200, headers: { "Content-Type": "image/png" } });
    const fits = await downloadFileUrl(url, 5000);
    assert.deepEqual([fits.ok, fits.data.bytes, fits.data.mime, Buffer.from(fits.data.data, "base64").every((b) => b === 7)],
      [true, 3000, "image/png", true]);
    globalThis.fetch = async () => new Response("", { status: 429, headers: { "Retry-After": "30" } });
    assert.deepEqual(await downloadFileUrl(url, 5000), { ok: false, status: 429, retryAfter: "30", code: "HTTP_429",
      message: "the file answered 429" });
    assert.equal((await downloadFileUrl("https://evil.example/f", 5000)).code, "FILE_HOST");
  } finally {
    globalThis.fetch = realFetch;
  }
});

/** The parsed MaZiqc reply of the real list page (tests/fixtures/more_sites/gemini), as the adapter answers it. */
function geminiListReply() {
  const text = readFileSync(join(FIXTURES, "more_sites", "gemini", "blackiya__MaZiqc_sample_gemini_titles.txt"), "utf8");
  const rows = JSON.parse(text.split("\n").find((line) => line.startsWith("[[\"wrb.fr\"")));
  return JSON.parse(rows[0][2]);
}

test("Gemini: pinned chats then the rest, each paged by the list's token; the real page's 13 chats", () => {
  const real = geminiListReply();
  const replies = (request) => {
    assert.equal(request.path, "/_/BardChatUi/data/batchexecute");
    assert.equal(request.method, "POST");
    assert.equal(request.body.rpc, "MaZiqc");
    if (request.body.flag === 1) return [null, null, []]; // no pinned chat
    if (!request.body.cursor) return real; // its token names a next page
    assert.equal(request.body.cursor, real[1]);
    return [null, null, [["c_0000000000000001", "An older chat", null, null, null, [1700000000, 5]]]];
  };
  const { paths, entries } = listAll("gemini", replies);
  assert.equal(paths.length, 3);
  assert.equal(entries.length, 14);
  assert.deepEqual(entries[0], { id: "c_9cf87bbddf79d497", title: "Hadith Authenticity and Narrator Discrepancies", updated: "1768841280.788813000" });
  assert.equal(entries.at(-1).updated, "1700000000.000000005");
  assert.deepEqual(conversationPath("gemini", entries[0]), { fetchApi: "9cf87bbddf79d497" }); // the tab's adapter reads its pages
  assert.deepEqual(conversationKind("gemini", { format: "batchexecute", responses: [")]}'"] }), { kind: "gemini_api", ok: true });
  assert.equal(conversationKind("gemini", { format: "batchexecute", responses: [] }).ok, false);
});

test("DeepSeek: sessions paged by the last one's updated_at until has_more is false", () => {
  const session = (n, updated) => ({ id: `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`, title: `chat ${n}`, updated_at: updated });
  const replies = (path) => {
    assert.ok(path.startsWith("/api/v0/chat_session/fetch_page?lte_cursor.pinned=false"));
    if (!path.includes("updated_at")) return { code: 0, data: { biz_data: { chat_sessions: [session(1, 300.5), session(2, 200.25)], has_more: true } } };
    assert.ok(path.endsWith("&lte_cursor.updated_at=200.25"));
    return { code: 0, data: { biz_data: { chat_sessions: [session(2, 200.25), session(3, 100)], has_more: false } } };
  };
  const { paths, entries } = listAll("deepseek", replies);
  assert.equal(paths.length, 2);
  assert.deepEqual(entries.map((e) => e.title), ["chat 1", "chat 2", "chat 2", "chat 3"]); // the queue keeps each id once
  assert.equal(conversationPath("deepseek", entries[0]), `/api/v0/chat/history_messages?chat_session_id=${entries[0].id}`);
  assert.equal(conversationKind("deepseek", { code: 0, data: { biz_data: { chat_messages: [] } } }).ok, false);
});

test("the queue lists a DeepSeek chat the cursor repeats once", () => {
  const run = newRun({ id: "r", site: "deepseek", tabId: 1, policy: policyFor("deepseek"), now: 0 });
  const entry = { id: "s1", title: "t", updated: "1" };
  const once = addListed(addListed(run, [entry], {}), [entry], {});
  assert.equal(once.queue.length, 1);
});

test("a list that repeats itself ends: the same cursor, the same page, has_more with nothing new", () => {
  const seen = new Set();
  const walk = (site, replies) => {
    let listing = initialListing(site);
    const paths = [];
    for (let path = nextListPath(site, listing); path; path = nextListPath(site, listing)) {
      paths.push(path);
      assert.ok(paths.length < 50, `listing does not end: ${paths.slice(-3)}`);
      const result = applyListReply(site, listing, replies(path), (id) => seen.has(id));
      result.entries.forEach((e) => seen.add(e.id));
      listing = result.listing;
    }
    return { paths, listing };
  };
  const chatgpt = walk("chatgpt", (path) => {
    if (path.includes("snorlax")) {
      return { items: [{ gizmo: { gizmo: { id: "g-p-x", name: "P", instructions: "i".repeat(1_000_000) } } }], cursor: "same" };
    }
    if (path.includes("/gizmos/g-p-x/")) return { items: [{ id: "p1" }], cursor: "1" };
    return { items: [{ id: path.includes("archived") ? "a1" : "m1" }], total: 1e9, limit: 1 };
  });
  assert.equal(chatgpt.paths.filter((p) => p.includes("snorlax")).length, 2);
  assert.equal(chatgpt.paths.filter((p) => p.includes("/gizmos/g-p-x/")).length, 2);
  assert.equal(chatgpt.listing.textsCut, 1, "the 1 MB instructions were cut to their limit");
  assert.deepEqual(chatgpt.listing.projects, [{ id: "g-p-x" }], "the listing keeps ids, not texts");
  const claude = walk("claude", (path) => {
    if (path === "/api/organizations") return [{ uuid: "org1", capabilities: ["chat"] }];
    if (path.endsWith("/projects")) return [];
    return { data: [{ uuid: "c1", updated_at: "u" }], has_more: true };
  });
  assert.equal(claude.paths.filter((p) => p.includes("chat_conversations_v2")).length, 2);
  const session = { id: "00000000-0000-4000-8000-000000000001", title: "t", updated_at: 5 };
  const deepseek = walk("deepseek", () => ({ code: 0, data: { biz_data: { chat_sessions: [session], has_more: true } } }));
  assert.equal(deepseek.paths.length, 2, "the same page again ends the list");
  const gemini = walk("gemini", (request) => [null, "same-token", [[`c_${request.body.flag}0`, "t", null, null, null, [1, 0]]]]);
  assert.equal(gemini.paths.length, 4, "each flag's list ends on its repeated page");
});

test("a project's chats the main list gave are read to the project's last page, and its repeated page ends it", () => {
  const replies = (path) => {
    if (path.startsWith("/backend-api/conversations?offset=0&")) {
      return { items: [0, 1, 2, 3].map((n) => ({ id: `c${n}`, title: `t${n}` })), total: 4, limit: 100 };
    }
    if (path.includes("is_archived=true")) return { items: [], total: 0, limit: 100 };
    if (path.includes("snorlax")) return { items: [{ gizmo: { gizmo: { id: "g-p-x", name: "P" } } }], cursor: null };
    if (path.endsWith("cursor=0")) return { items: [{ id: "c0" }, { id: "c1" }], cursor: "2" };
    if (path.endsWith("cursor=2")) return { items: [{ id: "c2" }], cursor: "3" };
    if (path.endsWith("cursor=3")) return { items: [{ id: "c2" }], cursor: "4" }; // the site repeats itself
    throw new Error(`unexpected ${path}`);
  };
  let run = newRun({ id: "r", site: "chatgpt", tabId: 1, policy: policyFor("chatgpt"), now: 0 });
  const paths = [];
  for (let path = nextListPath("chatgpt", run.listing); path; path = nextListPath("chatgpt", run.listing)) {
    paths.push(path);
    assert.ok(paths.length < 20, "listing does not end");
    const result = applyListReply("chatgpt", run.listing, replies(path), (id, project) => listedAs(run, id, project));
    run = addListed({ ...run, listing: result.listing }, result.entries);
  }
  assert.deepEqual(run.queue.map((e) => e.project ?? null), ["g-p-x", "g-p-x", "g-p-x", null]);
  assert.equal(paths.filter((p) => p.includes("/gizmos/g-p-x/")).length, 3, "pages 1 and 2, then the repeat ends it");
});
