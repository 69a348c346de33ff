// "Continue in…": a menu of the host's targets; choosing one saves the conversation and asks the service
// worker to build a context trimmed to that target. The worker keeps the context and shows its preview
// (tokens, what was left out, the start of the text) in an extension window, where the user fills the
// target's composer or copies the text. Nothing of the transcript is put in this page's DOM, and this tab
// gets only a short status: the page's scripts cannot read, rewrite or confirm the preview.
import { t } from "../shared/api.js";
import { el } from "../shared/element.js";
import { MnemoError } from "../shared/errors.js";
import { request } from "../shared/messages.js";
import { loadSettings } from "../shared/settings.js";
import { captureAndSave } from "./capture.js";
import { onTrusted, overlay } from "./shadow_ui.js";
import { toast, toastError } from "./toast.js";

let menuCache = null;

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
  try {
    toast("progress", t("toastReading"));
    const saved = await captureAndSave(site, (step) => step === "saving" && toast("progress", t("toastSaving")));
    toast("progress", t("buildingContext"));
    const settings = await loadSettings();
    const status = await request("context", { conversation_id: saved.conversation_id, target: target ?? settings.defaultTarget,
      budget: settings.budget, redact: settings.redact });
    const box = toast("success", t("previewOpened", [status.label]));
    box.dataset.target = status.target;
  } catch (error) {
    toastError(error);
  }
}

/** The drop-down under the Continue button, one entry per host menu entry. */
export async function openContinueMenu(site, button) {
  const open = overlay().layer.querySelector(".menu");
  closeMenus();
  if (open) return; // second click closes
  let entries;
  try {
    entries = await menuEntries();
  } catch (error) {
    toastError(error);
    return;
  }
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
  menu.style.top = `${Math.min(rect.bottom + 4, innerHeight - 240)}px`;
  menu.style.left = `${Math.max(8, Math.min(rect.left, innerWidth - 280))}px`;
  overlay().layer.append(menu);
  menu.querySelector("button")?.focus();
}

export function closeMenusOnEscape() {
  onTrusted(document, "keydown", (event) => {
    if (event.key === "Escape") closeMenus();
  });
}
