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

test("grok.com and Perplexity lists end when they repeat themselves, within the run's caps", () => {
  const walk = (site, replies) => {
    const seen = new Set();
    let listing = initialListing(site);
    let requests = 0;
    for (let request = nextListPath(site, listing); request; request = nextListPath(site, listing)) {
      requests += 1;
      assert.ok(requests < 50, "the listing does not end");
      const result = applyListReply(site, listing, replies(request, requests), (id) => seen.has(id));
      result.entries.forEach((e) => seen.add(e.id));
      listing = result.listing;
    }
    return { requests, listing, seen };
  };
  // a token the list answered two pages ago (not only the last one) ends the list
  const tokens = ["a", "b", "a"];
  const grok = walk("grok", (path, n) => ({ conversations: [{ conversationId: `c-${n}`, title: "t".repeat(2_000) }], nextPageToken: tokens[n - 1] }));
  assert.equal(grok.requests, 3);
  assert.equal(grok.listing.textsCut, 3, "each 2,000-character title was cut to its limit");
  // a new token every time, but the same conversations: the second page adds nothing new and ends the list
  const same = walk("grok", (path, n) => ({ conversations: [{ conversationId: "c-1" }], nextPageToken: `t-${n}` }));
  assert.equal(same.requests, 2);
  // Perplexity: full pages and a total that never ends, but the same threads again
  const page = Array.from({ length: 50 }, (_, n) => ({ slug: `s-${n}`, total_threads: 1e9 }));
  const perplexity = walk("perplexity", () => page);
  assert.equal(perplexity.requests, 2);
  assert.equal(perplexity.seen.size, 50);
  // the run's cap on listed conversations ends the phase and says so
  const full = applyListReply("perplexity", { ...initialListing("perplexity"), listed: 100_000 - 10 }, page);
  assert.equal(full.entries.length, 10);
  assert.equal(full.listing.phase, "end");
  assert.equal(full.listing.capped, "conversations");
  assert.equal(nextListPath("perplexity", full.listing), null);
});
