// "Continue in…": build the context for a target (through the host), then open the target site
// in a new tab and hand the text to that tab's filler content script when it asks for it.
import { api } from "../shared/api.js";
import { isFillSite } from "../shared/sites.js";
import { CONTINUE_TARGETS, continueTarget, resolveHostTarget } from "../shared/targets.js";
import { hostCall, HostError } from "./host.js";
import { callAllPages } from "./paging.js";

const PENDING_KEY = "mnemosynePendingFills";
const CLAIM_WINDOW_MS = 120_000;
let hostTargetsCache = null;

async function hostTargets() {
  if (hostTargetsCache) return hostTargetsCache;
  const data = await hostCall("targets");
  hostTargetsCache = data.targets ?? [];
  return hostTargetsCache;
}

/** The menu entries with the host's view of each (budget, tokenizer), when the host answers. */
export async function describeTargets() {
  let known = [];
  let hostError = null;
  try {
    known = await hostTargets();
  } catch (error) {
    hostError = { code: error.code ?? "INTERNAL", message: error.message };
  }
  const entries = CONTINUE_TARGETS.map((entry) => {
    const name = resolveHostTarget(entry, known);
    const info = known.find((target) => target.name === name) ?? {};
    return { id: entry.id, labelKey: entry.labelKey, hostTarget: name, fills: Boolean(entry.fillUrl),
      budget: info.budget ?? info.default_budget ?? null, tokenizer: info.tokenizer ?? null, label: info.label ?? null };
  });
  return { targets: entries, hostError };
}

export async function buildContext({ conversation_id, target, budget, redact }) {
  const entry = continueTarget(target);
  if (!entry) throw new HostError("UNKNOWN_TARGET", `unknown target ${target}`);
  const hostTarget = resolveHostTarget(entry, await hostTargets().catch(() => []));
  const params = { conversation_id, target: hostTarget, redact: redact !== false };
  if (Number.isInteger(budget) && budget > 0) params.budget = budget;
  const { report, ...context } = await callAllPages("context", params, { timeoutMs: 120_000 });
  // the host reports tokens / budget / kept / dropped in `report`; the preview reads them flat
  return { ...context, ...(report ?? {}), menuTarget: entry.id, fills: Boolean(entry.fillUrl) };
}

async function loadPending() {
  return (await api.storage.session.get(PENDING_KEY))[PENDING_KEY] ?? {};
}

/** Open the target site and remember the text for the filler in that tab. */
export async function openAndFill({ target, text }) {
  const entry = continueTarget(target);
  if (!entry?.fillUrl) throw new HostError("BAD_REQUEST", "this target is copied, not filled");
  if (typeof text !== "string" || !text) throw new HostError("BAD_REQUEST", "nothing to fill");
  // Open the target directly (a blank tab navigated cross-origin swaps renderer processes, which
  // made headless runs flaky), then leave the text for its filler; the filler asks again for a
  // moment in case it loads before the text is stored.
  const tab = await api.tabs.create({ url: entry.fillUrl, active: true });
  const pendingFills = await loadPending();
  pendingFills[tab.id] = { text, at: Date.now(), target: entry.id };
  await api.storage.session.set({ [PENDING_KEY]: pendingFills });
  return { tabId: tab.id, url: entry.fillUrl };
}

/** The filler in a freshly opened tab asks once for its text. */
export async function claimFill(sender) {
  const tabId = sender.tab?.id;
  if (tabId === undefined || !isFillSite(sender.url)) return { text: null };
  const pendingFills = await loadPending();
  const entry = pendingFills[tabId];
  if (!entry) return { text: null };
  delete pendingFills[tabId];
  await api.storage.session.set({ [PENDING_KEY]: pendingFills });
  if (Date.now() - entry.at > CLAIM_WINDOW_MS) return { text: null };
  return { text: entry.text, target: entry.target };
}
