// "Continue in…": the menu comes from the host's `targets` reply (rendered as sent); a built context stays
// here, in session storage, under a handle that only the extension's own pages can use. A web page's
// Continue gets a short status while its preview opens in an extension window (preview/), so the page never
// holds transcript text and cannot confirm for the user; filling opens the target's page and hands the
// text to that tab's filler when it claims it, once.
import { api } from "../shared/api.js";
import { MnemoError } from "../shared/errors.js";
import { fillSiteOf } from "../sites/index.js";
import { hostCall } from "./host.js";
import { callAllPages } from "./paging.js";

const CONTEXTS_KEY = "mnemosyneContexts"; // handle -> {text, target, label, fillUrl, report, params, focus, at}
const FILLS_KEY = "mnemosynePendingFills"; // tab id -> {text, target, at}
const KEEP_CONTEXTS = 8;
const CLAIM_WINDOW_MS = 120_000;
const PREVIEW_CHARS = 4000;
let menuCache = null;
const opening = new Set(); // fills whose tab is being created: a claim waits for them

const menuListeners = [];

/** Call `listener(entries)` each time the host's menu is first read in this worker (menus.js builds from it). */
export function onMenuLoaded(listener) {
  menuListeners.push(listener);
}

/** The host's menu entries; cached for the worker's lifetime once the host has answered. */
export async function hostMenu() {
  if (!menuCache) {
    const data = await hostCall("targets");
    menuCache = Array.isArray(data.menu) ? data.menu : [];
    for (const listener of menuListeners) listener(menuCache);
  }
  return menuCache;
}

export async function describeTargets() {
  try {
    return { targets: await hostMenu(), hostError: null };
  } catch (error) {
    return { targets: [], hostError: { code: error.code ?? "INTERNAL", message: error.message } };
  }
}

/**
 * A built context kept for its handle (the preview's confirm fills or copies it).
 * @typedef {{text: string, target: string, label: string, fillUrl?: string, report: object, meta: object, params: object,
 *   focus: string | null, at: number}} KeptContext
 */
/** The text meant for a tab's filler, by tab id. @typedef {{text: string, target: string, at: number, claimed?: boolean}} KeptFill */

/** @returns {Promise<Object<string, KeptContext>>} handle -> context */
async function keptContexts() {
  return /** @type {Object<string, KeptContext>} */ ((await api.storage.session.get(CONTEXTS_KEY))[CONTEXTS_KEY] ?? {});
}

/** @returns {Promise<Object<string, KeptFill>>} tab id -> fill */
async function keptFills() {
  return /** @type {Object<string, KeptFill>} */ ((await api.storage.session.get(FILLS_KEY))[FILLS_KEY] ?? {});
}

function newHandle() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * Build the context through the host, keep it, and return its report, a preview and a handle.
 * @param {{conversation_id: string, target: string, budget?: number, redact?: boolean, branch?: string, focus?: string}} request
 * @param {string} [handle]
 */
export async function buildContext(request, handle = newHandle()) {
  const { conversation_id, target, budget, redact, branch, focus } = request;
  const entry = (await hostMenu()).find((candidate) => candidate.target === target);
  if (!entry) throw new MnemoError("UNKNOWN_TARGET", `unknown target ${target}`);
  const params = { conversation_id, target: entry.target, redact: redact !== false };
  if (Number.isInteger(budget) && budget > 0) params.budget = budget;
  if (branch) params.branch = String(branch); // a leaf message id: continue that branch, not the active one
  return keepContext(handle, entry, params, focus);
}

const building = new Map(); // handle -> the build its preview window waits for (opened before the build ends)
// tab id -> the preview window opened at that tab's pick, before its save: {handle, settle, timer}
const openedAhead = new Map();
const OPENED_AHEAD_MS = 120_000; // a pick whose save and build never come: the window says so
const CODE = /^[A-Z][A-Z0-9_]{0,39}$/;

function openPreviewWindow(handle) {
  const url = api.runtime.getURL(`preview/preview.html?handle=${handle}`);
  return api.windows.create({ url, type: "popup", width: 600, height: 680 });
}

function settleAhead(tabId, outcome) {
  const ahead = openedAhead.get(tabId);
  if (!ahead) return null;
  openedAhead.delete(tabId);
  clearTimeout(ahead.timer);
  if (outcome) outcome(ahead.settle);
  return ahead;
}

/**
 * A tab's pick in its Continue menu: the preview window opens now, while the tab still reads and saves the
 * conversation, so the window's own start overlaps that save; the tab's `context` then builds under this handle
 * (buildInPreview), or its `continue-cancel` says why not, and the window shows the one or the other.
 */
export async function openPreviewAhead(tabId) {
  settleAhead(tabId, (settle) => settle.reject(new MnemoError("CANCELLED", "another Continue in was picked")));
  const handle = newHandle();
  /** @type {{resolve: (value: any) => void, reject: (error: any) => void}} */
  let settle = { resolve: () => {}, reject: () => {} };
  const build = new Promise((resolve, reject) => { settle = { resolve, reject }; });
  build.catch(() => {}).finally(() => building.delete(handle));
  building.set(handle, build);
  const timer = setTimeout(() => settleAhead(tabId, (s) => s.reject(new MnemoError("TAB_TIMEOUT", "the page did not save the conversation"))),
    OPENED_AHEAD_MS);
  openedAhead.set(tabId, { handle, settle, timer });
  try {
    await openPreviewWindow(handle);
  } catch (error) {
    // no window: the tab's context opens one as it would have without this
    if (openedAhead.get(tabId)?.handle === handle) settleAhead(tabId, (s) => s.reject(error));
    throw error;
  }
  return { opened: true };
}

/** The tab's pick failed before its context was asked for (its read or save): the window opened ahead says why. */
export function cancelPreviewAhead(tabId, { code, message }) {
  const why = new MnemoError(typeof code === "string" && CODE.test(code) ? code : "INTERNAL", String(message ?? "").slice(0, 500));
  settleAhead(tabId, (settle) => settle.reject(why));
  return { cancelled: true };
}

/**
 * A web page's Continue: the preview window opens at once (or opened at the pick: openPreviewAhead), under a new
 * handle, and shows the context when the host has built it (a long conversation takes seconds); the page gets its
 * short status once it is built.
 */
export async function buildInPreview(request, tabId) {
  const ahead = settleAhead(tabId, null);
  const handle = ahead?.handle ?? newHandle();
  const build = buildContext(request, handle);
  if (ahead) {
    build.then(ahead.settle.resolve, ahead.settle.reject);
  } else {
    building.set(handle, build);
    build.catch(() => {}).finally(() => building.delete(handle));
    await openPreviewWindow(handle);
  }
  const context = await build;
  return { target: context.target, label: context.label, fills: context.fills, tokens: context.report?.tokens ?? null };
}

/**
 * Build again what `handle` holds, with `focus` (what the user wants to do next; empty: none), under the same
 * handle: the preview's confirm then fills or copies the rebuilt context.
 */
export async function rebuildContext({ handle, focus }) {
  const kept = await keptContext(handle);
  const entry = (await hostMenu()).find((candidate) => candidate.target === kept.target);
  if (!entry) throw new MnemoError("UNKNOWN_TARGET", `unknown target ${kept.target}`);
  return keepContext(handle, entry, kept.params, focus);
}

async function keepContext(handle, entry, params, focus) {
  const query = typeof focus === "string" ? focus.trim() : "";
  const call = query ? { ...params, focus: query } : params;
  const { report, text, ...meta } = await callAllPages("context", call, { timeoutMs: 120_000 });
  const kept = await keptContexts();
  kept[handle] = { text, target: entry.target, label: entry.label, fillUrl: entry.fill_url, report, meta, params,
    focus: query || null, at: Date.now() };
  const newest = Object.entries(kept).sort((a, b) => b[1].at - a[1].at).slice(0, KEEP_CONTEXTS);
  await api.storage.session.set({ [CONTEXTS_KEY]: Object.fromEntries(newest) });
  return describeContext(handle, kept[handle]);
}

function describeContext(handle, entry) {
  return { ...entry.meta, report: entry.report, handle, target: entry.target, label: entry.label, fills: Boolean(entry.fillUrl),
    focus: entry.focus ?? null, preview: entry.text.slice(0, PREVIEW_CHARS), total_chars: entry.text.length };
}

async function keptContext(handle) {
  const kept = await keptContexts();
  const entry = typeof handle === "string" && Object.hasOwn(kept, handle) ? kept[handle] : undefined;
  if (!entry) throw new MnemoError("UNKNOWN_HANDLE", "no such context");
  return entry;
}

/** The preview of a kept context (report, start of the text), for the preview window and the view page. */
export async function contextPreview({ handle }) {
  if (building.has(handle)) await building.get(handle); // the window opened before its build ended
  return describeContext(handle, await keptContext(handle));
}

/** The full text of a kept context, for targets that are copied. */
export async function contextText({ handle }) {
  return { text: (await keptContext(handle)).text };
}

/** Open the target's page and leave the kept context for the filler in that tab. */
export async function openAndFill({ handle }) {
  // registered before anything is awaited: a claim that comes in meanwhile waits for this fill
  let done;
  const pending = new Promise((resolve) => (done = resolve));
  opening.add(pending);
  try {
    const entry = await keptContext(handle);
    if (!entry.fillUrl || !fillSiteOf(entry.fillUrl)) throw new MnemoError("NOT_FILLABLE", "this target is copied, not filled");
    // Open the target directly (a blank tab navigated cross-origin swaps renderer processes, which made
    // headless runs flaky); its filler may claim before the text is stored, hence `opening`.
    const tab = await api.tabs.create({ url: entry.fillUrl, active: true });
    const fills = await keptFills();
    fills[tab.id] = { text: entry.text, target: entry.target, at: Date.now() };
    await api.storage.session.set({ [FILLS_KEY]: fills });
    return { tabId: tab.id, url: entry.fillUrl };
  } finally {
    done();
    opening.delete(pending);
  }
}

/** The filler of a tab asks once: the text meant for it, or nothing. */
export async function claimFill(sender) {
  const tabId = sender.tab?.id;
  if (tabId === undefined) return { text: null };
  await Promise.all([...opening]);
  const fills = await keptFills();
  for (const [id, old] of Object.entries(fills)) if (Date.now() - old.at > 2 * CLAIM_WINDOW_MS) delete fills[id];
  const entry = fills[tabId];
  if (!entry || entry.claimed) return { text: null };
  // kept, marked claimed, until the filler says how it went: a failed fill is copied from here (fill-copy)
  fills[tabId] = { ...entry, claimed: true };
  await api.storage.session.set({ [FILLS_KEY]: fills });
  if (Date.now() - entry.at > CLAIM_WINDOW_MS) return { text: null };
  return { text: entry.text, target: entry.target };
}

/**
 * The filler of a tab could not fill its composer: copy the text it claimed to the clipboard, by the
 * extension (`copy(text)`), not in that page. Once; the text is then forgotten.
 */
export async function copyFailedFill(sender, copy) {
  const tabId = sender.tab?.id;
  const fills = await keptFills();
  const entry = tabId === undefined ? undefined : fills[tabId];
  if (!entry?.claimed) throw new MnemoError("UNKNOWN_HANDLE", "this tab claimed no text");
  delete fills[tabId];
  await api.storage.session.set({ [FILLS_KEY]: fills });
  await copy(entry.text);
  return { copied: true };
}
