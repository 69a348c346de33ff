// The backup's list and conversation requests for grok.com and Perplexity (pure functions, no browser).
import { test } from "node:test";
import assert from "node:assert/strict";
import { applyListReply, conversationKind, conversationPath, initialListing, nextListPath, siteHome, sourceUrlOf } from "../background/backup_lists.js";
import { filesOf } from "../background/backup_files.js";

test("grok.com: the list is paged by nextPageToken; each conversation is read by the tab's adapter", () => {
  let listing = initialListing("grok");
  assert.equal(nextListPath("grok", listing), "/rest/app-chat/conversations?pageSize=60");
  const first = applyListReply("grok", listing, {
    conversations: [{ conversationId: "c-1", title: "One", modifyTime: "2026-02-18T18:09:00Z" }, { title: "no id" }],
    nextPageToken: "tok-2",
  });
  assert.deepEqual(first.entries, [{ id: "c-1", title: "One", updated: "2026-02-18T18:09:00Z" }]);
  listing = first.listing;
  assert.equal(nextListPath("grok", listing), "/rest/app-chat/conversations?pageSize=60&pageToken=tok-2");
  const last = applyListReply("grok", listing, { conversations: [{ conversationId: "c-2", createTime: "2026-01-01T00:00:00Z" }] });
  assert.equal(last.entries[0].updated, "2026-01-01T00:00:00Z");
  assert.equal(nextListPath("grok", last.listing), null);
  // the same token again would loop forever: the list ends instead
  assert.equal(applyListReply("grok", listing, { conversations: [{ conversationId: "c-3" }], nextPageToken: "tok-2" }).listing.phase, "end");
  assert.deepEqual(conversationPath("grok", { id: "c-1" }), { fetchApi: "c-1" });
  assert.deepEqual(conversationKind("grok", { responses: [{ responseId: "r" }] }), { kind: "grok_api", ok: true });
  assert.equal(conversationKind("grok", { responses: [] }).ok, false);
  assert.equal(sourceUrlOf("grok", { id: "c-1" }), "https://grok.com/c/c-1");
  assert.equal(siteHome("grok"), "https://grok.com/");
});

test("Perplexity: list_ask_threads is a POST paged by offset until a short page or total_threads", () => {
  let listing = initialListing("perplexity");
  const request = nextListPath("perplexity", listing);
  assert.equal(request.method, "POST");
  assert.ok(request.path.startsWith("/rest/thread/list_ask_threads"));
  assert.deepEqual(request.body, { limit: 50, offset: 0, ascending: false, search_term: "" });
  const page = Array.from({ length: 50 }, (_, n) => ({ slug: `s-${n}`, title: `T${n}`, last_query_datetime: "2026-05-13T00:21:04", total_threads: 60 }));
  const first = applyListReply("perplexity", listing, page);
  assert.equal(first.entries.length, 50);
  listing = first.listing;
  assert.equal(nextListPath("perplexity", listing).body.offset, 50);
  const last = applyListReply("perplexity", listing, page.slice(0, 10));
  assert.equal(nextListPath("perplexity", last.listing), null);
  assert.deepEqual(conversationPath("perplexity", { id: "s-1" }), { fetchApi: "s-1" });
  assert.equal(conversationKind("perplexity", { entries: [{}] }).kind, "perplexity_api");
  assert.equal(sourceUrlOf("perplexity", { id: "s-1" }), "https://www.perplexity.ai/search/s-1");
  assert.deepEqual(filesOf("perplexity", { entries: [] }), []);
});

test("ChatGPT and Claude keep their paths and URLs", () => {
  assert.equal(conversationPath("chatgpt", { id: "abc" }), "/backend-api/conversation/abc");
  assert.equal(sourceUrlOf("chatgpt", { id: "abc", project: "g-p-1" }), "https://chatgpt.com/g/g-p-1/c/abc");
  assert.equal(sourceUrlOf("claude", { id: "u" }), "https://claude.ai/chat/u");
  assert.equal(siteHome("claude"), "https://claude.ai/");
});
