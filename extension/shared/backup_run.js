// What the pages read of a backup run: where the worker keeps it and its progress numbers. The run itself and
// the steps that change it are the worker's (background/backup_state.js).

export const RUN_KEY = "backupRun"; // the run without its queue, in storage.local

/** Conversations still to fetch (a stored run has `queueLength` instead of its queue). */
export function left(run) {
  return Math.max(0, (run.queue ? run.queue.length : run.queueLength ?? 0) - run.cursor);
}

/** Seconds left at the observed rate (items per active millisecond), or null before there is a rate. */
export function etaSeconds(run) {
  const { activeMs, items } = run.timing;
  if (items < 2 || activeMs <= 0) return null;
  return Math.round((left(run) * activeMs) / items / 1000);
}
