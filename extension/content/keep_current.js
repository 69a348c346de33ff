// "Keep current" (opt-in setting `keepCurrent`): after each completed assistant reply on the open conversation,
// save it again with origin "keep-current". Completion is the site's own signal: its streaming marker (the stop
// button on ChatGPT, `data-is-streaming="true"` on Claude) goes away and stays away for SETTLE_MS. Only the site's
// API is read (never the scrolling DOM sweep under the user's eyes), and nothing is sent when the reply is the
// same as the last one this tab saved. Each decision is counted in storage.local (`keepCurrentStatus`), so the
// options page and tests can see what keep-current did without waiting for something not to happen.
import { api } from "../shared/api.js";
import { request } from "../shared/messages.js";
import { loadSettings } from "../shared/settings.js";
import { wellFormedDeep } from "../shared/text.js";

const SETTLE_MS = 2500;
export const STATUS_KEY = "keepCurrentStatus";
const lastSaved = new Map(); // conversation id -> SHA-256 of the payload this tab last sent

async function digest(text) {
  const bytes = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Count one decision ("saved" | "unchanged" | "failed") for `conversation` in storage.local; `detail` is the host's
 * save status (created / updated / unchanged / kept) or the failure's code. */
async function record(decision, conversation, detail = null) {
  try {
    const stored = /** @type {{counts?: Object<string, number>} | undefined} */ ((await api.storage.local.get(STATUS_KEY))[STATUS_KEY]);
    const status = stored ?? {};
    const counts = { saved: 0, unchanged: 0, failed: 0, ...status.counts };
    counts[decision] += 1;
    await api.storage.local.set({ [STATUS_KEY]: { counts, last: { decision, conversation, detail, at: new Date().toISOString() } } });
  } catch (error) {
    console.warn(`mnemosyne: keep current status: ${error}`);
  }
}

async function saveAgain(site) {
  const id = site.conversationId();
  if (!id) return;
  try {
    const { kind, payload } = await site.fetchApi(id);
    const clean = wellFormedDeep(payload);
    const hash = await digest(JSON.stringify(clean));
    if (lastSaved.get(id) === hash) {
      await record("unchanged", id);
      return;
    }
    const saved = await request("save", { kind, payload: clean, source_url: `${location.origin}${location.pathname}`, origin: "keep-current" });
    lastSaved.set(id, hash);
    await record("saved", id, saved?.status ?? null);
  } catch (error) {
    console.warn(`mnemosyne: keep current: ${error.code ?? error}`);
    await record("failed", id, error.code ?? String(error));
  }
}

/** Watch the page for completed replies while the setting is on. */
export function keepCurrent(site) {
  let enabled = false;
  let streaming = false;
  let timer = null;
  const isStreaming = () => Boolean(document.querySelector(site.streaming));

  function check() {
    if (!enabled) return;
    const now = isStreaming();
    if (now) {
      streaming = true;
      clearTimeout(timer);
      timer = null;
      return;
    }
    if (!streaming || timer) return;
    timer = setTimeout(() => {
      timer = null;
      if (isStreaming()) return;
      streaming = false;
      saveAgain(site);
    }, SETTLE_MS);
  }

  let queued = false;
  const observer = new MutationObserver(() => {
    if (queued) return;
    queued = true;
    requestAnimationFrame(() => {
      queued = false;
      check();
    });
  });
  const apply = (on) => {
    enabled = on;
    if (on) observer.observe(document.body || document.documentElement, { childList: true, subtree: true, attributes: true,
      attributeFilter: ["data-is-streaming", "data-testid"] });
    else observer.disconnect();
  };
  loadSettings().then((settings) => apply(settings.keepCurrent === true));
  api.storage.onChanged.addListener((changes, area) => {
    if (area === "sync" && changes.keepCurrent) apply(changes.keepCurrent.newValue === true);
  });
}
