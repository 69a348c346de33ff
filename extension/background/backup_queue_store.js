// How a backup run's queue and the ids it has seen are kept in storage.local: in chunks under their own keys (one
// per listed page, at most CHUNK_RECORDS conversations each) and a small head naming the run and its chunk count.
// A listed page writes only the chunk it adds, and an earlier entry that changes (its project filled in) rewrites
// only its own chunk: stored whole, the growing queue was rewritten at every page, O(n²) bytes over a listing.
// `seen` is not stored apart: each chunk holds the ids it queued and the ids it skipped, and `seen` is rebuilt from
// them, so after a restart a skipped id stays skipped and a page listed again queues nothing twice.
// Pure: the worker (backup.js) reads and writes what these functions compute.

export const QUEUE_KEY = "backupQueue"; // the head: {id, chunks}, written after the chunks it names
const CHUNK_PREFIX = "backupQueue.";
export const CHUNK_RECORDS = 250; // conversations (queued or skipped) in one chunk: a rewrite stays small

/** @typedef {{id: string}} QueueEntry  a listed conversation (backup_lists.js) */
/** @typedef {{id: string, queue: QueueEntry[], skipped: string[]}} QueueChunk  one chunk as stored */
/** @typedef {{id: string, chunks: number}} QueueHead */
/** @typedef {{start: number, length: number, skipped: string[]}} ChunkSpan  where a chunk's entries are in the queue */
/**
 * What storage.local holds of a run's queue, as the worker last read or wrote it.
 * @typedef {{id: string, queue: QueueEntry[], seen: Record<string, number>, chunks: ChunkSpan[]}} StoredQueue
 */

/** @param {number} n */
export function chunkKey(n) {
  return `${CHUNK_PREFIX}${n}`;
}

/** @param {string} key */
export function isChunkKey(key) {
  return key.startsWith(CHUNK_PREFIX);
}

/** The keys of a head's chunks, in order. @param {QueueHead} head */
export function chunkKeys(head) {
  return Array.from({ length: head.chunks }, (_, n) => chunkKey(n));
}

/** @param {string} id @returns {StoredQueue} */
export function emptyQueue(id) {
  return { id, queue: [], seen: {}, chunks: [] };
}

/**
 * The head's queue and seen, rebuilt from its chunks in order (a later chunk's index wins: a retried conversation
 * is fetched from its new place). The chunks end at the first that is absent or another run's.
 * @param {QueueHead} head
 * @param {(QueueChunk | undefined)[]} chunks
 * @returns {StoredQueue}
 */
export function fromChunks(head, chunks) {
  const stored = emptyQueue(head.id);
  for (const chunk of chunks) {
    if (chunk?.id !== head.id || !Array.isArray(chunk.queue) || !Array.isArray(chunk.skipped)) break;
    stored.chunks.push({ start: stored.queue.length, length: chunk.queue.length, skipped: chunk.skipped });
    for (const entry of chunk.queue) {
      stored.seen[entry.id] = stored.queue.length;
      stored.queue.push(entry);
    }
    for (const id of chunk.skipped) stored.seen[id] = -1;
  }
  return stored;
}

/** The chunk holding queue index `index` (the spans are in queue order). @param {ChunkSpan[]} spans */
function spanOf(spans, index) {
  let low = 0;
  let high = spans.length - 1;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (spans[mid].start <= index) low = mid;
    else high = mid - 1;
  }
  return low;
}

/**
 * What to write so storage holds `run`'s queue and seen, given what it holds now (`stored`, the same run):
 * `chunks` by key (new ones and rewritten ones; write them first), `head` when the chunk count changed (write it
 * after), and `stored`, what storage holds once both are written.
 * @param {StoredQueue} stored
 * @param {{id: string, queue: QueueEntry[], seen: Record<string, number>}} run
 * @returns {{chunks: Record<string, QueueChunk>, head: QueueHead | null, stored: StoredQueue}}
 */
export function queueWrites(stored, run) {
  /** @type {Record<string, QueueChunk>} */
  const chunks = {};
  if (run.queue === stored.queue && run.seen === stored.seen) return { chunks, head: null, stored };
  const spans = stored.chunks.slice();
  const before = stored.queue.length;
  // entries already stored that changed (a project filled in): their chunk is written again, no other
  for (let i = 0; i < before; i += 1) {
    if (run.queue[i] === stored.queue[i]) continue;
    const n = spanOf(spans, i);
    const { start, length, skipped } = spans[n];
    chunks[chunkKey(n)] = { id: run.id, queue: run.queue.slice(start, start + length), skipped };
    i = start + length - 1;
  }
  let queued = run.queue.slice(before);
  let skipped = Object.keys(run.seen).filter((id) => run.seen[id] === -1 && !Object.hasOwn(stored.seen, id));
  while (queued.length || skipped.length) {
    const queue = queued.slice(0, CHUNK_RECORDS);
    const skip = skipped.slice(0, CHUNK_RECORDS - queue.length);
    queued = queued.slice(queue.length);
    skipped = skipped.slice(skip.length);
    const start = spans.length ? spans.at(-1).start + spans.at(-1).length : 0;
    chunks[chunkKey(spans.length)] = { id: run.id, queue, skipped: skip };
    spans.push({ start, length: queue.length, skipped: skip });
  }
  const head = spans.length !== stored.chunks.length ? { id: run.id, chunks: spans.length } : null;
  return { chunks, head, stored: { id: run.id, queue: run.queue, seen: run.seen, chunks: spans } };
}
