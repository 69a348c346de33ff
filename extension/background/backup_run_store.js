// Where a backup run lives between service-worker wakes: storage.local, the queue and the ids seen (large: an entry
// per conversation) in chunks (backup_queue_store.js), a listed page writing only what it changed; the listed
// projects' texts apart from the rest of the run, written only when they change, not at every step.
import { api } from "../shared/api.js";
import { RUN_KEY } from "../shared/backup_run.js";
import { PROJECTS_KEY } from "./backup_state.js";
import { QUEUE_KEY, chunkKey, chunkKeys, emptyQueue, fromChunks, isChunkKey, queueWrites } from "./backup_queue_store.js";

/** @typedef {import("./backup_state.js").BackupRun} BackupRun */
/** @typedef {Omit<BackupRun, "queue" | "seen" | "projects"> & {queueLength: number, projects?: BackupRun["projects"]}} StoredRun */
/** @typedef {{id: string, projects: BackupRun["projects"]}} StoredProjects */
/** @typedef {import("./backup_queue_store.js").QueueHead & {queue?: BackupRun["queue"], seen?: BackupRun["seen"]}} StoredHead */

/** @type {import("./backup_queue_store.js").StoredQueue | null} what storage holds of the run's queue (read once per worker) */
let storedQueue = null;
/** @type {WeakMap<BackupRun, import("./backup_queue_store.js").StoredQueue>} a loaded run -> the stored queue it was read with */
const heldOf = new WeakMap();

/**
 * The run's queue and seen, and what storage holds of them: this worker's copy while the head still names it (the
 * worker is the only writer), else the chunks read again. A head of the older layout (the whole queue under
 * QUEUE_KEY) is read as it is and written as chunks at the next change.
 * @param {string} id @param {StoredHead | undefined} head
 */
async function readQueue(id, head) {
  if (head?.id !== id) return { queue: [], seen: {}, stored: emptyQueue(id) };
  if (Array.isArray(head.queue)) return { queue: head.queue, seen: head.seen ?? {}, stored: emptyQueue(id) };
  if (storedQueue?.id !== id || storedQueue.chunks.length !== head.chunks) {
    const keys = chunkKeys(head);
    const chunks = await api.storage.local.get(keys);
    storedQueue = fromChunks(head, keys.map((key) => /** @type {import("./backup_queue_store.js").QueueChunk} */ (chunks[key])));
  }
  return { queue: storedQueue.queue, seen: storedQueue.seen, stored: storedQueue };
}

/** @returns {Promise<BackupRun | null>} the run as stored, its queue and seen with it */
export async function loadRun() {
  const stored = await api.storage.local.get([RUN_KEY, QUEUE_KEY, PROJECTS_KEY]);
  const run = /** @type {StoredRun | undefined} */ (stored[RUN_KEY]);
  if (!run) return null;
  const { queue, seen, stored: held } = await readQueue(run.id, /** @type {StoredHead | undefined} */ (stored[QUEUE_KEY]));
  const storedProjects = /** @type {StoredProjects | undefined} */ (stored[PROJECTS_KEY]);
  const projects = storedProjects?.id === run.id ? storedProjects.projects : run.projects ?? {};
  const loaded = { ...run, queue, seen, projects };
  heldOf.set(loaded, held);
  return loaded;
}

/** `copy` of a loaded run (another state shown) stands for what storage holds as `run` does. @param {BackupRun} copy @param {BackupRun} run */
export function sameStored(copy, run) {
  const held = heldOf.get(run);
  if (held) heldOf.set(copy, held);
  return copy;
}

/**
 * Write what changed: the queue's chunks first, then the head naming them with the rest of the run, so the stored
 * state is whole whichever write storage.local refuses (a head never names a chunk that was not written).
 */
export async function storeRun(run, before) {
  const { queue, seen, projects, ...rest } = run;
  const other = !before || before.id !== run.id;
  const held = (!other && heldOf.get(before)) || emptyQueue(run.id);
  const writes = queueWrites(held, run);
  if (Object.keys(writes.chunks).length) await api.storage.local.set(writes.chunks);
  const items = { [RUN_KEY]: { ...rest, queueLength: queue.length } };
  if (other || writes.head) items[QUEUE_KEY] = { id: run.id, chunks: writes.stored.chunks.length };
  if (other || before.projects !== projects) items[PROJECTS_KEY] = { id: run.id, projects };
  await api.storage.local.set(items);
  storedQueue = writes.stored;
  if (other) await removeChunksBut(writes.stored.chunks.length);
}

/** Remove the chunks an earlier run left (and any written past a head that was then refused). */
async function removeChunksBut(kept) {
  try {
    const keys = Object.keys(await api.storage.local.get(null)).filter(isChunkKey);
    const mine = new Set(Array.from({ length: kept }, (_, n) => chunkKey(n)));
    const stale = keys.filter((key) => !mine.has(key));
    if (stale.length) await api.storage.local.remove(stale);
  } catch (error) { // only space is lost: a head never names another run's chunk
    console.warn(`mnemosyne: old backup queue not removed: ${error?.message ?? error}`);
  }
}
