// The site tab's half of a backup for the sites whose list or conversation needs a POST (grok.com, Perplexity):
// a POST goes only to the site's POST endpoints, its reply is read within the cap, and an id is one path segment.
import { test } from "node:test";
import assert from "node:assert/strict";
import { backupConversation, backupGet } from "../content/backup_fetch.js";
import { JSON_REPLY_CAP, postJson } from "../sites/page.js";

function withFetch(origin, handler, body) {
  const realFetch = globalThis.fetch;
  const hadLocation = "location" in globalThis;
  globalThis.location = { origin };
  globalThis.fetch = handler;
  return body().finally(() => {
    globalThis.fetch = realFetch;
    if (!hadLocation) delete globalThis.location;
  });
}

const perplexitySite = { name: "perplexity", apiPrefix: "/rest/thread/", apiGet: async () => ({}), apiPost: postJson };

test("a backup POST goes only to the site's POST endpoints, checked as parsed and decoded", async () => {
  const asked = [];
  await withFetch("https://www.perplexity.ai", async (url, init) => {
    asked.push([url, init.method]);
    return new Response("[]", { status: 200 });
  }, async () => {
    const list = await backupGet(perplexitySite, "/rest/thread/list_ask_threads?version=2.18", { method: "POST", body: { limit: 1 } });
    assert.deepEqual(list, { ok: true, data: [] });
    for (const path of ["/rest/thread/some-slug", "/rest/thread/%2e%2e/list_ask_threads", "/rest/thread/list_ask_threads%2f..%2fx",
      "https://evil.example/rest/thread/list_ask_threads"]) {
      const reply = await backupGet(perplexitySite, path, { method: "POST", body: {} });
      assert.equal(reply.code, "BAD_REQUEST", path);
    }
    assert.equal((await backupGet(perplexitySite, "/rest/thread/x", { method: "DELETE" })).code, "BAD_REQUEST");
    assert.equal((await backupGet({ ...perplexitySite, name: "chatgpt" }, "/rest/thread/list_ask_threads", { method: "POST" })).code,
      "BAD_REQUEST", "a site with no POST endpoint sends none");
  });
  assert.deepEqual(asked, [["/rest/thread/list_ask_threads?version=2.18", "POST"]]);
});

test("a POST's reply is read a chunk at a time and given up past the cap", async () => {
  let pulled = 0;
  const chunk = new Uint8Array(1024 * 1024);
  const endless = () => new Response(new ReadableStream({
    pull(controller) {
      pulled += 1;
      controller.enqueue(chunk);
    },
  }), { status: 200 });
  await withFetch("https://www.perplexity.ai", async () => endless(), async () => {
    const reply = await backupGet(perplexitySite, "/rest/thread/list_ask_threads", { method: "POST", body: {} });
    assert.equal(reply.ok, false);
    assert.equal(reply.code, "TOO_LARGE");
    assert.equal(reply.status, 413);
  });
  assert.ok(pulled <= JSON_REPLY_CAP / chunk.byteLength + 3, `read ${pulled} MiB of an endless reply`);
});

test("a POST the worker gave up on stops at its deadline", async () => {
  const never = () => new Response(new ReadableStream({ pull: () => new Promise(() => {}) }), { status: 200 });
  await withFetch("https://www.perplexity.ai", async () => never(), async () => {
    const reply = await backupGet(perplexitySite, "/rest/thread/list_ask_threads", { method: "POST", body: {}, requestId: "r1", timeoutMs: 50 });
    assert.equal(reply.code, "TAB_TIMEOUT");
  });
});

test("backup-conversation: an id is one path segment, and the adapter's POSTs are checked", async () => {
  const posted = [];
  const grokSite = {
    name: "grok", apiPrefix: "/rest/app-chat/conversations", apiGet: async () => ({}),
    apiPost: async (path, body) => {
      posted.push(path);
      return { responses: body.responseIds };
    },
    async fetchApi(id, { post }) {
      const loaded = await post(`/rest/app-chat/conversations/${id}/load-responses`, { responseIds: ["r"] });
      return { kind: "grok_api", payload: loaded };
    },
  };
  const id = "0b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0";
  await withFetch("https://grok.com", async () => new Response("{}"), async () => {
    assert.deepEqual(await backupConversation(grokSite, id), { ok: true, data: { responses: ["r"] }, kind: "grok_api" });
    for (const bad of ["..", ".", "a/b", "a?b", "", "x".repeat(201)]) {
      assert.equal((await backupConversation(grokSite, bad)).code, "BAD_REQUEST", bad);
    }
    // a well-formed id the POST endpoint does not name (not a conversation UUID): refused before any request
    const refused = await backupConversation(grokSite, "not-a-uuid");
    assert.equal(refused.code, "BAD_REQUEST");
    assert.equal(refused.status, 400);
  });
  assert.deepEqual(posted, [`/rest/app-chat/conversations/${id}/load-responses`]);
});
