// A backup's queue in storage.local (background/backup_queue_store.js): a listed page writes its own chunk, never
// the queue so far; `seen` comes back from the chunks, so a page listed again after a restart queues nothing twice.
import { test } from "node:test";
import assert from "node:assert/strict";
import { CHUNK_RECORDS, QUEUE_KEY, chunkKeys, emptyQueue, fromChunks, queueWrites } from "../background/backup_queue_store.js";
import { addListed, finishItem, newRun, nextItem, retryFailures } from "../background/backup_state.js";
import { policyFor } from "../background/rate_policy.js";

const entries = (from, n, extra = {}) => Array.from({ length: n }, (_, i) => ({ id: `conversation-${from + i}`,
  title: `Conversation ${from + i}`, updated: `2026-11-01T10:00:00.${String(from + i).padStart(6, "0")}Z`, ...extra }));

/** storage.local as a map of key -> JSON text, and the worker's two writes: chunks first, then the head. */
function storage() {
  const items = new Map();
  const writes = [];
  return {
    items,
    writes,
    store(held, run) {
      const { chunks, head, stored } = queueWrites(held, run);
      const page = { keys: [], bytes: 0 };
      for (const [key, value] of Object.entries({ ...chunks, ...(head ? { [QUEUE_KEY]: head } : {}) })) {
        items.set(key, JSON.stringify(value));
        page.keys.push(key);
        page.bytes += key.length + JSON.stringify(value).length;
      }
      writes.push(page);
      return stored;
    },
    load() {
      const head = JSON.parse(items.get(QUEUE_KEY));
      return fromChunks(head, chunkKeys(head).map((key) => (items.has(key) ? JSON.parse(items.get(key)) : undefined)));
    },
  };
}

function run(id = "r1") {
  return newRun({ id, site: "chatgpt", tabId: 1, policy: policyFor("chatgpt"), now: 0 });
}

test("each listed page writes its own chunk: the bytes per page do not grow with the pages before it", () => {
  const store = storage();
  let state = run();
  let held = emptyQueue(state.id);
  for (let page = 0; page < 60; page += 1) {
    state = addListed(state, entries(page * 100, 100));
    held = store.store(held, state);
  }
  assert.equal(state.queue.length, 6000);
  assert.deepEqual(store.writes[0].keys.sort(), ["backupQueue", "backupQueue.0"]);
  assert.deepEqual(store.writes[59].keys.sort(), ["backupQueue", "backupQueue.59"]);
  const bytes = store.writes.map((w) => w.bytes);
  assert.ok(Math.max(...bytes) < 1.05 * Math.min(...bytes), `bytes per page: ${Math.min(...bytes)}..${Math.max(...bytes)}`);
  const loaded = store.load();
  assert.deepEqual(loaded.queue, state.queue);
  assert.deepEqual(loaded.seen, state.seen);
});

test("a project filled in on an earlier entry rewrites only that entry's chunk", () => {
  const store = storage();
  let state = run();
  let held = emptyQueue(state.id);
  for (let page = 0; page < 5; page += 1) {
    state = addListed(state, entries(page * 100, 100));
    held = store.store(held, state);
  }
  // the project's list names a conversation of page 2 and adds one new conversation
  state = addListed(state, [{ ...entries(250, 1)[0], project: "g-p-thesis" }, ...entries(900, 1, { project: "g-p-thesis" })]);
  held = store.store(held, state);
  assert.deepEqual(store.writes.at(-1).keys.sort(), ["backupQueue", "backupQueue.2", "backupQueue.5"]);
  const loaded = store.load();
  assert.equal(loaded.queue[250].project, "g-p-thesis");
  assert.deepEqual(loaded.queue, state.queue);
  // nothing changed, nothing written
  held = store.store(held, addListed(state, entries(0, 100)));
  assert.deepEqual(store.writes.at(-1).keys, []);
});

test("skipped ids are stored with their page and stay skipped after a restart", () => {
  const store = storage();
  const known = Object.fromEntries(entries(0, 100).filter((_, i) => i % 2 === 0)
    .map((e) => [e.id, { list_updated: e.updated, complete: true }]));
  let state = addListed(run(), entries(0, 100), known);
  store.store(emptyQueue(state.id), state);
  assert.equal(state.counts.skipped, 50);
  // a restarted worker reads the chunks and lists the same page again: nothing is queued twice, nothing skipped is queued
  const loaded = store.load();
  const restarted = { ...state, queue: loaded.queue, seen: loaded.seen };
  const again = addListed(restarted, entries(0, 100), {});
  assert.equal(again.queue.length, 50);
  assert.equal(again.counts.skipped, 50);
  assert.deepEqual(queueWrites(loaded, again).chunks, {});
});

test("a second run over an unchanged account stores its skipped ids in chunks of a bounded size", () => {
  const store = storage();
  const listed = entries(0, 1000);
  const known = Object.fromEntries(listed.map((e) => [e.id, { list_updated: e.updated, complete: true }]));
  const state = addListed(run(), listed, known);
  store.store(emptyQueue(state.id), state);
  assert.equal(state.queue.length, 0);
  assert.equal(store.writes[0].keys.length, 1 + Math.ceil(1000 / CHUNK_RECORDS));
  assert.deepEqual(store.load().seen, state.seen);
});

test("a retried failure is fetched from its new place after a restart", () => {
  const store = storage();
  let state = addListed(run(), entries(0, 3));
  let held = store.store(emptyQueue(state.id), state);
  state = finishItem(state, nextItem(state), "failed", "HTTP_500", 0);
  state = finishItem(state, nextItem(state), "done", null, 0);
  state = finishItem(state, nextItem(state), "done", null, 0);
  state = retryFailures(state);
  held = store.store(held, state);
  const loaded = store.load();
  assert.deepEqual(loaded.queue.map((e) => e.id), ["conversation-0", "conversation-1", "conversation-2", "conversation-0"]);
  assert.equal(loaded.seen["conversation-0"], 3);
  assert.equal(nextItem({ ...state, queue: loaded.queue }).id, "conversation-0");
  assert.equal(held.chunks.length, 2);
});

test("a large page is split; the chunks end at one that is missing or another run's", () => {
  const store = storage();
  const state = addListed(run(), entries(0, CHUNK_RECORDS * 2 + 10));
  store.store(emptyQueue(state.id), state);
  assert.equal(JSON.parse(store.items.get(QUEUE_KEY)).chunks, 3);
  assert.deepEqual(store.load().queue, state.queue);
  store.items.set("backupQueue.1", JSON.stringify({ id: "an-earlier-run", queue: entries(0, 1), skipped: [] }));
  const cut = store.load();
  assert.equal(cut.queue.length, CHUNK_RECORDS);
  assert.equal(cut.chunks.length, 1);
});

test("a queue stored whole under the head (the earlier layout) is written as chunks at its next change", () => {
  const store = storage();
  const known = { "conversation-0": { list_updated: entries(0, 1)[0].updated, complete: true } };
  const earlier = addListed(run(), entries(0, 300), known); // read from {id, queue, seen}: nothing of it in chunks
  const next = addListed(earlier, entries(300, 100));
  const held = store.store(emptyQueue(next.id), next);
  assert.equal(held.chunks.length, 2);
  const loaded = store.load();
  assert.deepEqual(loaded.queue, next.queue);
  assert.deepEqual(loaded.seen, next.seen);
  assert.equal(loaded.seen["conversation-0"], -1);
});
