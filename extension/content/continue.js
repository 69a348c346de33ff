// "Continue in…": a menu of the host's targets; opening it saves the conversation (see saveAhead), and
// choosing one asks the service worker to build a context trimmed to that target. The worker keeps the
// context and shows its preview (tokens, what was left out, the start of the text) in an extension window,
// where the user fills the target's composer or copies the text. Nothing of the transcript is put in this
// page's DOM, and this tab gets only a short status: the page's scripts cannot read, rewrite or confirm the
// preview.
import { t } from "../shared/api.js";
import { el } from "../shared/element.js";
import { MnemoError } from "../shared/errors.js";
import { request } from "../shared/messages.js";
import { loadSettings } from "../shared/settings.js";
import { fillSiteOf } from "../sites/index.js";
import { captureAndSave } from "./capture.js";
import { onTrusted, overlay } from "./shadow_ui.js";
import { toast, toastError } from "./toast.js";

let menuCache = null;

// Opening the menu starts the save a pick needs, from the site's API only (never the DOM sweep, which scrolls
// the page), so that the host splits the conversation into the context's units while the user chooses: the
// context asked for after the pick finds them ready instead of splitting a long history first. A pick uses
// that save when the page still shows the same conversation, with the same turns, no reply streaming, and
// the menu opened less than SAVE_AHEAD_MS ago; otherwise it captures and saves as it would without.
const SAVE_AHEAD_MS = 120_000;
let savedAhead = null; // { id, turns, at, saved: Promise of the host's save reply }

function pageState(site) {
  return {
    id: site.conversationId(),
    turns: site.dom.turns().length,
    streaming: Boolean(document.querySelector(site.streaming)),
  };
}

function stillCurrent(kept, now) {
  return kept && kept.id === now.id && kept.turns === now.turns && !now.streaming && Date.now() - kept.at < SAVE_AHEAD_MS;
}

function saveAhead(site) {
  const now = pageState(site);
  if (!now.id || now.streaming || stillCurrent(savedAhead, now)) return;
  const saved = captureAndSave(site, () => {}, { allowDom: false });
  saved.catch(() => {}); // the pick captures and saves again, and reports what fails then
  savedAhead = { ...now, at: Date.now(), saved };
}

/** The save a pick builds on: the one the menu started, when the page has not changed since; else a new one. */
async function savedForPick(site) {
  const kept = savedAhead;
  savedAhead = null;
  if (stillCurrent(kept, pageState(site))) {
    try {
      return await kept.saved;
    } catch {
      // read and saved below, as without it
    }
  }
  toast("progress", t("toastReading"));
  return captureAndSave(site, (step) => step === "saving" && toast("progress", t("toastSaving")));
}

async function menuEntries() {
  if (!menuCache) {
    const { targets, hostError } = await request("continue-targets");
    if (hostError) throw new MnemoError(hostError.code, hostError.message);
    menuCache = targets;
  }
  return menuCache;
}

function closeMenus() {
  overlay().layer.querySelectorAll(".menu").forEach((node) => node.remove());
}

/** Save, build the context for `target` (a host target name; null: the default in settings); the worker opens its preview. */
export async function continueIn(site, target) {
  closeMenus();
  // the preview window opens at the click, its start overlapping the save below; it waits for this tab's context
  const opened = request("continue-open").catch(() => null);
  try {
    const saved = await savedForPick(site);
    toast("progress", t("buildingContext"));
    const settings = await loadSettings();
    const status = await request("context", { conversation_id: saved.conversation_id, target: target ?? settings.defaultTarget,
      budget: settings.budget, redact: settings.redact });
    const box = toast("success", t("previewOpened", [status.label]));
    box.dataset.target = status.target;
  } catch (error) {
    // the window opened at the click shows why, as this toast does (a failed build has told it already)
    if (await opened) request("continue-cancel", { code: error?.code, message: String(error?.message ?? error) }).catch(() => {});
    toastError(error);
  }
}

/** The drop-down under the Continue button, one entry per host menu entry. */
export async function openContinueMenu(site, button) {
  const open = overlay().layer.querySelector(".menu");
  closeMenus();
  if (open) return; // second click closes
  saveAhead(site);
  let entries;
  try {
    entries = await menuEntries();
  } catch (error) {
    toastError(error);
    return;
  }
  // every target but this site: continuing a conversation where it already is would only copy it back
  entries = entries.filter((entry) => !entry.fill_url || fillSiteOf(entry.fill_url) !== site.name);
  const rect = button.getBoundingClientRect();
  // the host's groups (web sites filled, agent files and local models copied) are separated by a rule
  const items = entries.flatMap((entry, i) => [
    i > 0 && entry.group !== entries[i - 1].group ? el("hr", { role: "separator" }) : null,
    onTrusted(el("button", {
      type: "button", role: "menuitem", title: t("menuBudget", [String(entry.budget), entry.tokenizer]),
      dataset: { mnemosyne: "continue-target", target: entry.target, group: entry.group },
    }, [entry.label]), "click", () => continueIn(site, entry.target)),
  ]);
  const menu = el("div", { className: "menu", role: "menu", dataset: { mnemosyne: "continue-menu" } }, items);
  const top = Math.max(8, Math.min(rect.bottom + 4, innerHeight - 240));
  menu.style.top = `${top}px`;
  // eight sites and the copied targets are taller than a small window: the menu scrolls instead of running off it
  menu.style.maxHeight = `${Math.max(120, innerHeight - top - 8)}px`;
  menu.style.overflowY = "auto";
  menu.style.left = `${Math.max(8, Math.min(rect.left, innerWidth - 280))}px`;
  onTrusted(menu, "keydown", (event) => moveInMenu(event, menu, button));
  overlay().layer.append(menu);
  menu.querySelector("button")?.focus();
}

/** The menu's keys: ↑↓ (wrapping), Home and End move between entries, Enter picks (the button's own click),
 *  Escape closes and gives focus back to the Continue button. */
function moveInMenu(event, menu, opener) {
  const items = [...menu.querySelectorAll("button")];
  const at = items.indexOf(menu.getRootNode().activeElement);
  const to = { ArrowDown: at + 1, ArrowUp: at - 1, Home: 0, End: items.length - 1 }[event.key];
  if (event.key === "Escape") {
    event.preventDefault();
    event.stopPropagation();
    closeMenus();
    opener.focus();
  } else if (to !== undefined && items.length) {
    event.preventDefault();
    event.stopPropagation(); // the site's own shortcuts do not see the arrows meant for the menu
    items[(to + items.length) % items.length].focus();
  }
}

export function closeMenusOnEscape() {
  onTrusted(document, "keydown", (event) => {
    if (event.key === "Escape") closeMenus();
  });
}
