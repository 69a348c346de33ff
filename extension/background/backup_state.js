// A backup run as plain JSON (kept in storage.local under RUN_KEY, shared/backup_run.js, its queue in chunks,
// backup_queue_store.js, so a stopped worker or a restarted browser continues it) and the pure steps that change
// it: listed pages in, one outcome per conversation, counts out.
// The queue is every listed conversation that needs fetching, in list order; `cursor` is the next one.
import { initialListing } from "./backup_lists.js";
import { initialRate } from "./rate_policy.js";
import { left } from "../shared/backup_run.js";

export const PROJECTS_KEY = "backupProjects"; // {id, projects}: the listed projects' texts, written when they change
export const LOG_EVERY = 25; // items between sync-log reports to the host
const FAILURE_LIMIT = 500; // failures kept in the run (the host's sync-log keeps them too)

/** @typedef {ReturnType<typeof newRun>} BackupRun  a backup run, as the worker holds it */

export function newRun({ id, site, tabId, policy, now }) {
  return {
    id, site, tabId, state: "running", startedAt: new Date(now).toISOString(), finishedAt: null,
    listing: initialListing(site), listed: 0, queue: [], cursor: 0, seen: {}, projects: {},
    counts: { done: 0, skipped: 0, failed: 0 }, failures: [], kept: [], current: null,
    rate: initialRate(policy, now), attempts: 0, sinceLog: 0, timing: { activeMs: 0, items: 0, since: null },
    pausedReason: null,
  };
}

export function listingDone(run) {
  return run.listing.phase === "end";
}

/** Counts as the host's sync-log and the progress show them. */
export function counts(run) {
  return { ...run.counts, left: left(run) };
}

/** Whether the queued entry at `index` is still to fetch and has no project: a project's list can fill it in. */
function takesProject(run, index) {
  return index >= run.cursor && Boolean(run.queue[index]) && !run.queue[index].project;
}

/**
 * Whether this run listed `id` already and, when a project's list gives `project`, the entry cannot take it: a
 * project's page of chats the main list gave is new while it fills their projects in, and stale when it repeats.
 */
export function listedAs(run, id, project = undefined) {
  return Object.hasOwn(run.seen, id) && !(project && takesProject(run, run.seen[id]));
}

/**
 * Listed conversations in: each new id is skipped when the archive's marker equals the list's marker and its copy
 * is complete (`known` is the host's sync-state reply), else queued. An id listed twice (a project chat that is
 * also in the main list) is queued once; a project seen later is added to its entry.
 */
export function addListed(run, entries, known = {}) {
  const next = { ...run, queue: run.queue.slice(), seen: { ...run.seen }, counts: { ...run.counts } };
  for (const entry of entries) {
    if (Object.hasOwn(next.seen, entry.id)) {
      const index = next.seen[entry.id];
      if (entry.project && takesProject(next, index)) {
        next.queue[index] = { ...next.queue[index], project: entry.project };
      }
      continue;
    }
    next.listed += 1;
    const have = known[entry.id];
    if (have && have.complete === true && entry.updated !== null && have.list_updated === entry.updated) {
      next.seen[entry.id] = -1;
      next.counts.skipped += 1;
      continue;
    }
    next.seen[entry.id] = next.queue.length;
    next.queue.push(entry);
  }
  return next;
}

/** The next conversation to fetch, or null. */
export function nextItem(run) {
  return run.cursor < run.queue.length ? run.queue[run.cursor] : null;
}

/**
 * One conversation finished: `outcome` is "done" | "kept" (the host kept a complete copy: skipped, with the
 * reason) | "failed" (with the reason). The cursor moves on either way: a failure never stops the run.
 */
export function finishItem(run, entry, outcome, reason = null, now = Date.now()) {
  const next = { ...run, cursor: run.cursor + 1, counts: { ...run.counts }, attempts: 0, sinceLog: run.sinceLog + 1, current: null };
  const brief = { id: entry.id, title: entry.title ?? null, reason: reason ?? null };
  if (outcome === "done") next.counts.done += 1;
  if (outcome === "kept") {
    next.counts.skipped += 1;
    next.kept = run.kept.concat(brief).slice(-FAILURE_LIMIT);
  }
  if (outcome === "failed") {
    next.counts.failed += 1;
    next.failures = run.failures.filter((f) => f.id !== entry.id).concat(brief).slice(-FAILURE_LIMIT);
  }
  const since = run.timing.since ?? now;
  next.timing = { activeMs: run.timing.activeMs + Math.max(0, now - since), items: run.timing.items + 1, since: now };
  return next;
}

/** Put failed conversations back at the end of the queue (all, or the given ids) and reopen the run. */
export function retryFailures(run, ids = null) {
  const wanted = run.failures.filter((f) => !ids || ids.includes(f.id));
  if (!wanted.length) return run;
  const byId = new Map(run.queue.map((entry) => [entry.id, entry]));
  const again = wanted.map((f) => byId.get(f.id) ?? { id: f.id, title: f.title, updated: null });
  const seen = { ...run.seen };
  again.forEach((entry, index) => { seen[entry.id] = run.queue.length + index; });
  return {
    ...run, queue: run.queue.concat(again), seen, state: "running", finishedAt: null, pausedReason: null,
    failures: run.failures.filter((f) => !wanted.includes(f)),
    counts: { ...run.counts, failed: run.counts.failed - wanted.length },
  };
}

/** What the host's sync-log records for this run. */
export function logRecord(run) {
  const state = run.state === "waiting" ? "running" : run.state;
  return {
    id: run.id, site: run.site, started_at: run.startedAt, finished_at: run.finishedAt, state,
    counts: counts(run), failures: run.failures.map((f) => ({ id: f.id, title: f.title ?? "", reason: f.reason ?? "" })),
  };
}
