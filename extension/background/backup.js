// "Back up everything": the worker drives one run per browser (state in storage.local, backup_state.js) through
// a site tab's content script, which makes the requests (see docs/ARCHITECTURE.md "Backup" for why the tab and
// not the worker). One request at a time, on the schedule of rate_policy.js; each conversation is saved through
// the host's `save` with `list_updated` and `origin: "backup"`. The run survives the worker: every step is
// committed to storage.local, an alarm wakes the worker for long waits and as a heartbeat, and the module
// resumes a running run whenever it loads.
import { api } from "../shared/api.js";
import { MnemoError } from "../shared/errors.js";
import { wellFormedDeep } from "../shared/text.js";
import { SOURCE_PATTERNS, sourceSiteOf } from "../sites/index.js";
import { loadSettings } from "../shared/settings.js";
import { filesOf } from "./backup_files.js";
import { siteOfOpenTab } from "../shared/backup_site.js";
import { RUN_KEY, left } from "../shared/backup_run.js";
import { FILE_HOST_PERMISSION, isFileHostUrl } from "../shared/file_hosts.js";
import { downloadFileUrl } from "./file_download.js";
import { applyListReply, conversationKind, conversationPath, nextListPath, siteHome, sourceUrlOf,
  withListEntry } from "./backup_lists.js";
import { LOG_EVERY, addListed, finishItem, listedAs, listingDone, logRecord, newRun, nextItem,
  retryFailures } from "./backup_state.js";
import { loadRun, sameStored, storeRun } from "./backup_run_store.js";
import { hostCall } from "./host.js";
import { delayMs, isRetryable, observed, policyFor, started } from "./rate_policy.js";

export const WAKE_ALARM = "backup-wake";
export const HEARTBEAT_ALARM = "backup-heartbeat";
const TEST_POLICY_KEY = "backupTestPolicy"; // test-only: overrides of the site policy's numbers
const IN_WORKER_WAIT_MS = 20_000; // shorter waits stay in this worker (an alarm still backs them up)
const TAB_TIMEOUT_MS = 120_000;
const SYNC_STATE_MAX = 500;
const ACTIVE = new Set(["running"]);
const HOST_DOWN = /^(HOST_|KEYRING_)/; // the archive cannot be reached: the run pauses instead of failing every item
const FILE_WARNINGS_KEPT = 200; // files not saved (over the cap, failed) listed in the run; the counts say how many
const PROJECT_TEXT_BUDGET = 3_000_000; // characters of project texts a run keeps (storage.local holds 10 MB in all)

let looping = false;
let chain = Promise.resolve();
let unstored = null; // {id, reason}: the run whose state storage.local refused (it is paused, in this worker at least)

/** @typedef {import("./backup_state.js").BackupRun} BackupRun */

/** The stored run, shown paused when this worker could not store it. @returns {Promise<BackupRun | null>} */
async function load() {
  const run = await loadRun();
  if (!run || unstored?.id !== run.id || run.state !== "running") return run;
  return sameStored({ ...run, state: "paused", pausedReason: unstored.reason }, run);
}

/**
 * A run storage.local cannot hold (over its quota, or any other refusal) is paused with the reason: going on
 * would list and fetch what cannot be kept, and the heartbeat would try again for ever.
 */
async function pauseUnstored(run, error) {
  const reason = `STORAGE: ${String(error?.message ?? error).slice(0, 300)}`;
  unstored = { id: run.id, reason };
  const { queue, seen, projects, ...rest } = run;
  try { // the small part of the run, so pages show why it stopped (the last stored queue stays as it was)
    await api.storage.local.set({ [RUN_KEY]: { ...rest, queueLength: queue?.length ?? 0, state: "paused", pausedReason: reason, current: null } });
  } catch (again) {
    console.warn(`mnemosyne: backup state not stored: ${again?.message ?? again}`);
  }
  await clearAlarms();
  return { ...run, state: "paused", pausedReason: reason, current: null };
}

/** Serialised read-modify-write of the run: pause, retry and a finishing step never overwrite each other. */
function update(change) {
  const next = chain.then(async () => {
    const run = await load();
    const changed = await change(run);
    if (changed && changed !== run) {
      try {
        await storeRun(changed, run);
      } catch (error) {
        // paused as it was last stored: the listing does not move past a page whose conversations were not kept
        return pauseUnstored(run?.id === changed.id ? run : changed, error);
      }
      if (unstored?.id === changed.id) unstored = null; // stored again (a resume, a cancel)
    }
    return changed ?? run;
  });
  chain = next.catch(() => {});
  return next;
}

async function policyOf(site) {
  const overrides = (await api.storage.local.get(TEST_POLICY_KEY))[TEST_POLICY_KEY];
  return policyFor(site, overrides);
}

function syncLog(run) {
  hostCall("sync-log", { run: logRecord(run) }).catch((error) => console.warn(`mnemosyne: sync-log: ${error.code ?? error}`));
}

async function armAlarms(whenMs) {
  await api.alarms.create(HEARTBEAT_ALARM, { periodInMinutes: 0.5 });
  if (whenMs) await api.alarms.create(WAKE_ALARM, { when: whenMs });
}

async function clearAlarms() {
  await api.alarms.clear(WAKE_ALARM);
  await api.alarms.clear(HEARTBEAT_ALARM);
}

/** The tab whose content script makes the run's requests: the run's own, else any tab of the site, else a new one. */
async function siteTab(run) {
  const usable = (tab) => tab && sourceSiteOf(tab.url) === run.site;
  const own = run.tabId ? await api.tabs.get(run.tabId).catch(() => null) : null;
  if (usable(own)) return own.id;
  const tabs = (await api.tabs.query({ url: SOURCE_PATTERNS })).filter(usable);
  const tab = tabs[0] ?? (await api.tabs.create({ url: siteHome(run.site), active: false }));
  await update((r) => (r?.id === run.id ? { ...r, tabId: tab.id } : r));
  return tab.id;
}

/** One request through the site tab (`backup-get` / `backup-file`): `{ok, data}` or `{ok: false, status, retryAfter, code, message}`. */
async function tabCall(run, message, timeoutMs = TAB_TIMEOUT_MS) {
  const fail = (error) => ({ ok: false, status: 0, code: error.code, message: error.message });
  let timer;
  try {
    const tabId = await siteTab(run);
    const requestId = crypto.randomUUID();
    const timeout = new Promise((resolve) => {
      timer = setTimeout(() => {
        // the tab stops what it was reading for this request (it also stops on its own at the same deadline)
        api.tabs.sendMessage(tabId, { type: "backup-abort", requestId }, { frameId: 0 }).catch(() => {});
        resolve(fail(new MnemoError("TAB_TIMEOUT", "the site tab did not answer")));
      }, timeoutMs);
    });
    const sent = { ...message, requestId, timeoutMs };
    const reply = await Promise.race([api.tabs.sendMessage(tabId, sent, { frameId: 0 }), timeout]);
    return reply ?? fail(new MnemoError("NO_REPLY", "the site tab sent no reply"));
  } catch (error) {
    return fail(new MnemoError("NO_SITE_TAB", String(error?.message ?? error)));
  } finally {
    clearTimeout(timer);
  }
}

/** A list or conversation request through the tab: a GET path, `{path, method, body}`, or `{fetchApi: id}`. */
function tabGet(run, request) {
  if (typeof request === "string") return tabCall(run, { type: "backup-get", path: request });
  if (request.fetchApi) return tabCall(run, { type: "backup-conversation", id: request.fetchApi });
  return tabCall(run, { type: "backup-get", path: request.path, method: request.method, body: request.body });
}

/**
 * Download the files a saved conversation refers to (within the user's cap) and store each with `save-attachment`,
 * paced like every other request. Waits happen in this worker: if it stops, the conversation is done again
 * (its save is unchanged, and the host keeps each file once by SHA-256). A file over the cap (declared or read)
 * is not saved and is listed in the tally's `warnings`, as is a file that could not be downloaded or stored, or one
 * on ChatGPT's file hosts when the user has not granted them (an optional host permission, asked at backup-all).
 */
async function saveFiles(run, entry, payload, policy) {
  const tally = { saved: 0, failed: 0, skipped: 0, warnings: [] };
  const warn = (file, reason, bytes = null, host = null) => tally.warnings.push({ id: entry.id, title: entry.title ?? null, name: file.name,
    reason, bytes, ...(host ? { host } : {}) });
  const capBytes = Math.max(0, Number((await loadSettings()).attachmentCapMb) || 0) * 1_000_000;
  if (!capBytes) return tally;
  for (const file of filesOf(run.site, payload)) {
    if (file.size && file.size > capBytes) {
      tally.skipped += 1;
      warn(file, "TOO_LARGE", file.size);
      continue;
    }
    for (;;) {
      const current = await load();
      if (current?.id !== run.id || current.state !== "running") return tally;
      const wait = delayMs(current.rate, policy, Date.now());
      if (wait > 0) {
        await armAlarms(Date.now() + wait);
        await new Promise((resolve) => setTimeout(resolve, wait));
        continue;
      }
      await update((r) => (r?.id === run.id ? { ...r, rate: started(r.rate, policy, Date.now()) } : r));
      let reply = await tabCall(run, { type: "backup-file", path: file.path, capBytes }, policy.tabTimeoutMs);
      const url = reply.ok && typeof reply.data?.url === "string" ? reply.data.url : null;
      if (url && isFileHostUrl(url) && !(await api.permissions.contains(FILE_HOST_PERMISSION))) {
        // the file hosts are an optional permission the user did not grant: the file is listed, never fetched
        await update((r) => (r?.id === run.id ? { ...r, rate: observed(r.rate, policy, { status: 200 }, Date.now()) } : r));
        tally.skipped += 1;
        warn(file, "NO_PERMISSION", null, new URL(url).hostname);
        break;
      }
      if (url) reply = await downloadFileUrl(url, capBytes);
      const now = Date.now();
      if (reply.ok) {
        await update((r) => (r?.id === run.id ? { ...r, rate: observed(r.rate, policy, { status: 200 }, now) } : r));
        try {
          await hostCall("save-attachment", { site: run.site, source_id: entry.id, file_id: file.fileId, name: file.name,
            mime: reply.data.mime || file.mime || "application/octet-stream", data: reply.data.data }, { timeoutMs: 120_000 });
          tally.saved += 1;
        } catch (error) {
          console.warn(`mnemosyne: save-attachment: ${error.code ?? error}`);
          tally.failed += 1;
          warn(file, error.code ?? "INTERNAL");
        }
        break;
      }
      let giveUp = false;
      await update((r) => {
        if (r?.id !== run.id) return r;
        const settled = afterError(r, policy, reply, now);
        giveUp = settled.giveUp;
        return { ...r, rate: settled.rate };
      });
      if (reply.code === "TOO_LARGE") { // over the cap: not an error, not saved, said
        tally.skipped += 1;
        warn(file, "TOO_LARGE");
        break;
      }
      if (giveUp) {
        tally.failed += 1;
        warn(file, reply.code ?? `HTTP_${reply.status}`);
        break;
      }
    }
  }
  return tally;
}

/** The host's sync-state for these ids; an archive without it (an older host) knows nothing. */
async function knownIds(site, ids) {
  const known = {};
  for (let i = 0; i < ids.length; i += SYNC_STATE_MAX) {
    try {
      Object.assign(known, (await hostCall("sync-state", { site, ids: ids.slice(i, i + SYNC_STATE_MAX) })).known ?? {});
    } catch (error) {
      console.warn(`mnemosyne: sync-state: ${error.code ?? error}`);
    }
  }
  return known;
}

/** The project the list named, added to the payload where the readers look (Claude: the inline `project`). */
function withProject(site, payload, project, entry) {
  if (!project) return withListEntry(site, payload, entry);
  if (site === "claude") {
    const listed = { uuid: project.id, name: project.name, prompt_template: project.instructions, description: project.description,
      docs: project.docs ?? [] };
    return { ...payload, project: { ...listed, ...(payload.project ?? {}) } };
  }
  return { ...payload, mnemosyne_project: { id: project.id, name: project.name, instructions: project.instructions } };
}

/** Apply a failed reply to the schedule: retry the same request later, or give up (then `giveUp` is true). */
function afterError(run, policy, reply, now) {
  const status = Number.isInteger(reply.status) ? reply.status : 0;
  const rate = observed(run.rate, policy, { status, retryAfter: reply.retryAfter }, now);
  const giveUp = !isRetryable(status) || rate.giveUp;
  return { rate: { ...rate, giveUp: false, failures: giveUp ? 0 : rate.failures }, giveUp, reason: reply.code ?? `HTTP_${status}` };
}

async function listStep(run, policy) {
  const path = nextListPath(run.site, run.listing);
  if (!path) return update((r) => (r?.id === run.id ? { ...r, listing: { ...r.listing, phase: "end" } } : r));
  await update((r) => (r?.id === run.id ? { ...r, rate: started(r.rate, policy, Date.now()) } : r));
  const reply = await tabGet(run, path);
  const now = Date.now();
  if (!reply.ok) {
    const settled = await update((r) => {
      if (r?.id !== run.id) return r;
      const { rate, giveUp, reason } = afterError(r, policy, reply, now);
      // a list that cannot be read stops the run (paused, with the reason): what is listed so far is not everything
      return giveUp ? { ...r, rate, state: "paused", pausedReason: reason } : { ...r, rate };
    });
    if (settled?.state === "paused") {
      await clearAlarms();
      syncLog(settled);
    }
    return settled;
  }
  const { listing, entries, projects, docs } = applyListReply(run.site, run.listing, reply.data, (id, project) => listedAs(run, id, project));
  const known = entries.length ? await knownIds(run.site, entries.map((e) => e.id)) : {};
  return update((r) => {
    if (r?.id !== run.id) return r;
    const kept = keptProjects(r, projects, docs);
    const rate = observed(r.rate, policy, { status: 200 }, now);
    const next = { ...r, listing: { ...listing, textsCut: listing.textsCut + kept.cut }, rate, projectChars: kept.chars };
    if (kept.table) next.projects = kept.table; // (unchanged: the stored projects are not written again)
    return addListed(next, entries, known);
  });
}

/** The run's project table with a page's projects or documents in, within PROJECT_TEXT_BUDGET characters. */
function keptProjects(run, projects, docs) {
  let chars = run.projectChars ?? 0;
  let cut = 0;
  const within = (texts) => {
    const size = texts.reduce((sum, t) => sum + (t?.length ?? 0), 0);
    if (chars + size > PROJECT_TEXT_BUDGET) {
      cut += texts.filter(Boolean).length;
      return false;
    }
    chars += size;
    return true;
  };
  if (!projects.length && !(docs && run.projects[docs.id])) return { table: null, chars, cut };
  const table = { ...run.projects };
  for (const p of projects) {
    table[p.id] = within([p.name, p.instructions, p.description]) ? p : { id: p.id, org: p.org, name: p.name?.slice(0, 100) ?? null };
  }
  if (docs && table[docs.id]) {
    const texts = docs.docs.flatMap((d) => [d.filename, d.content]);
    if (within(texts)) table[docs.id] = { ...table[docs.id], docs: docs.docs };
  }
  return { table, chars, cut };
}

async function fetchStep(run, entry, policy) {
  await update((r) => (r?.id === run.id ? { ...r, current: { id: entry.id, title: entry.title ?? null }, rate: started(r.rate, policy, Date.now()) } : r));
  const reply = await tabGet(run, conversationPath(run.site, entry));
  const now = Date.now();
  let outcome = "failed";
  let reason = null;
  let files = null;
  if (!reply.ok) {
    const settled = await update((r) => {
      if (r?.id !== run.id) return r;
      const { rate, giveUp, reason: why } = afterError(r, policy, reply, now);
      return giveUp ? finishItem({ ...r, rate }, entry, "failed", why, now) : { ...r, rate, attempts: r.attempts + 1 };
    });
    return maybeLog(settled);
  }
  const { kind, ok } = conversationKind(run.site, reply.data);
  if (!ok) reason = "API_SHAPE";
  else {
    try {
      const payload = wellFormedDeep(withProject(run.site, reply.data, entry.project ? run.projects[entry.project] : null, entry));
      const saved = await hostCall("save", { payload, kind, source_url: sourceUrlOf(run.site, entry), list_updated: entry.updated,
        origin: "backup" }, { timeoutMs: 120_000 });
      outcome = saved.status === "kept" ? "kept" : "done";
      reason = outcome === "kept" ? (saved.reason ?? "kept") : null;
      if (outcome === "done") files = await saveFiles(run, entry, payload, policy);
    } catch (error) {
      reason = error.code ?? "INTERNAL";
      if (HOST_DOWN.test(reason)) { // not this conversation's fault: pause on it, nothing is lost
        const paused = await update((r) => (r?.id === run.id ? { ...r, state: "paused", pausedReason: reason, current: null } : r));
        await clearAlarms();
        return paused;
      }
    }
  }
  const settled = await update((r) => {
    if (r?.id !== run.id) return r;
    const rate = r.rate.lastStartAt > now ? r.rate : observed(r.rate, policy, { status: 200 }, now);
    return finishItem({ ...r, rate, files: addFiles(r.files, files) }, entry, outcome, reason, Date.now());
  });
  return maybeLog(settled);
}

/** The run's file tally with one conversation's added. */
function addFiles(total, files) {
  const sum = { saved: 0, failed: 0, skipped: 0, warnings: [], ...total };
  if (!files) return sum;
  return { saved: sum.saved + files.saved, failed: sum.failed + files.failed, skipped: sum.skipped + files.skipped,
    warnings: [...sum.warnings, ...files.warnings].slice(-FILE_WARNINGS_KEPT) };
}

async function maybeLog(run) {
  if (!run || run.sinceLog < LOG_EVERY) return run;
  const reset = await update((r) => (r?.id === run.id ? { ...r, sinceLog: 0 } : r));
  syncLog(reset);
  return reset;
}

async function finish(run) {
  const done = await update((r) => (r?.id === run.id && r.state === "running"
    ? { ...r, state: "done", finishedAt: new Date().toISOString(), current: null } : r));
  await clearAlarms();
  syncLog(done);
  return done;
}

/** Drive the stored run until it finishes, pauses, or must wait longer than this worker should stay alive. */
export async function runLoop() {
  if (looping) return;
  looping = true;
  try {
    for (;;) {
      const run = await load();
      if (!run || !ACTIVE.has(run.state)) return;
      const policy = await policyOf(run.site);
      const wait = delayMs(run.rate, policy, Date.now());
      if (wait > 0) {
        await armAlarms(Date.now() + wait);
        if (wait > IN_WORKER_WAIT_MS) { // the alarm wakes the worker; the progress says until when
          await update((r) => (r?.id === run.id ? { ...r, waitUntil: Date.now() + wait } : r));
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, wait));
        continue;
      }
      if (!listingDone(run)) await listStep(run, policy);
      else if (nextItem(run)) await fetchStep(run, nextItem(run), policy);
      else await finish(run);
    }
  } finally {
    looping = false;
  }
}

/** The site a backup started from an extension page is for: the active tab's, else the most recent site tab's. */
/** Start a run (or return the one in progress). */
export async function startBackup() {
  const current = await load();
  if (current && (current.state === "running" || current.state === "paused")) {
    if (current.state === "running") runLoop();
    return current;
  }
  const { site, tabId } = await siteOfOpenTab();
  const now = Date.now();
  const run = newRun({ id: `${site}-${new Date(now).toISOString()}`, site, tabId, policy: await policyOf(site), now });
  await update(() => run);
  await armAlarms(null);
  syncLog(run);
  runLoop();
  return run;
}

export async function pauseBackup() {
  const run = await update((r) => (r?.state === "running" ? { ...r, state: "paused", pausedReason: "user" } : r));
  await clearAlarms();
  if (run) syncLog(run);
  return run;
}

export async function resumeBackup() {
  // the pause is not part of the observed rate the ETA uses
  const run = await update((r) => (r && r.state === "paused"
    ? { ...r, state: "running", pausedReason: null, timing: { ...r.timing, since: null } } : r));
  if (run?.state === "running") {
    await armAlarms(null);
    runLoop();
  }
  return run;
}

export async function cancelBackup() {
  const run = await update((r) => (r && (r.state === "running" || r.state === "paused")
    ? { ...r, state: "cancelled", finishedAt: new Date().toISOString(), current: null } : r));
  await clearAlarms();
  if (run) syncLog(run);
  return run;
}

export async function retryBackupFailures(ids = null) {
  const run = await update((r) => (r ? retryFailures(r, Array.isArray(ids) ? ids.map(String) : null) : r));
  if (run?.state === "running") {
    await armAlarms(null);
    runLoop();
  }
  return run;
}

/** The run as pages show it (no queue). */
export async function backupStatus() {
  const run = await load();
  if (!run) return { run: null };
  const { queue: _queue, seen: _seen, projects: _projects, ...rest } = run;
  return { run: { ...rest, left: left(run) } };
}

/** Wire the wake-ups: alarms, browser start, and this module loading (a worker that was stopped). */
export function installBackup() {
  api.alarms.onAlarm.addListener((alarm) => {
    if (alarm.name === WAKE_ALARM || alarm.name === HEARTBEAT_ALARM) runLoop();
  });
  api.runtime.onStartup?.addListener(() => runLoop());
  runLoop();
}
