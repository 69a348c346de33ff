// "Continue in…": a menu of the host's targets; choosing one saves the conversation, asks the service
// worker to build a context trimmed to that target, and shows a preview (tokens, what was left out)
// before the user fills the target's composer in a new tab or copies the text. The worker keeps the
// built context; this page holds only its handle and the preview.
import { t } from "../shared/api.js";
import { previewNodes } from "../shared/context_preview.js";
import { el } from "../shared/element.js";
import { MnemoError } from "../shared/errors.js";
import { request } from "../shared/messages.js";
import { loadSettings } from "../shared/settings.js";
import { captureAndSave } from "./capture.js";
import { copyText } from "./clipboard.js";
import { overlay } from "./shadow_ui.js";
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
  overlay().layer.querySelectorAll(".menu, .panel").forEach((node) => node.remove());
}

async function confirmContext(context) {
  closeMenus();
  try {
    if (context.fills) {
      await request("fill-open", { handle: context.handle });
      toast("success", t("fillOpened"));
      return;
    }
    const { text } = await request("context-text", { handle: context.handle });
    if (await copyText(text)) toast("success", t("contextCopied"));
    else toast("error", t("copyFailed"));
  } catch (error) {
    toastError(error);
  }
}

function showPreview(context) {
  closeMenus();
  const confirm = el("button", { type: "button", dataset: { mnemosyne: "preview-confirm" } },
    [context.fills ? t("previewFill") : t("previewCopy")]);
  const cancel = el("button", { type: "button", on: { click: closeMenus } }, [t("actionCancel")]);
  const panel = el("div", { className: "panel", role: "dialog", dataset: { mnemosyne: "preview", target: context.target } }, [
    el("h2", { text: t("previewTitle", [context.label]) }),
    ...previewNodes(context),
    el("div", { className: "row" }, [cancel, confirm]),
  ]);
  confirm.addEventListener("click", () => confirmContext(context));
  overlay().layer.append(panel);
  confirm.focus();
}

/** Save, build the context for `target` (a host target name; null opens the menu), then preview it. */
export async function continueIn(site, target) {
  closeMenus();
  try {
    toast("progress", t("toastReading"));
    const saved = await captureAndSave(site, (step) => step === "saving" && toast("progress", t("toastSaving")));
    toast("progress", t("buildingContext"));
    const settings = await loadSettings();
    const context = await request("context", { conversation_id: saved.conversation_id, target: target ?? settings.defaultTarget,
      budget: settings.budget, redact: settings.redact });
    overlay().layer.querySelector(".toast")?.remove();
    showPreview(context);
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
    el("button", {
      type: "button", role: "menuitem", title: t("menuBudget", [String(entry.budget), entry.tokenizer]),
      dataset: { mnemosyne: "continue-target", target: entry.target, group: entry.group },
      on: { click: () => continueIn(site, entry.target) },
    }, [entry.label]),
  ]);
  const menu = el("div", { className: "menu", role: "menu", dataset: { mnemosyne: "continue-menu" } }, items);
  menu.style.top = `${Math.min(rect.bottom + 4, innerHeight - 240)}px`;
  menu.style.left = `${Math.max(8, Math.min(rect.left, innerWidth - 280))}px`;
  overlay().layer.append(menu);
  menu.querySelector("button")?.focus();
}

export function closeMenusOnEscape() {
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape") closeMenus();
  });
}
