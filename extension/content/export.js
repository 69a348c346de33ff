// Export: save the conversation to the archive, then download or copy it per the user's settings, with
// progress and a clear result; and the Export / Continue bar placed beside the site's conversation actions
// (or floating when no anchor is found).
import { t } from "../shared/api.js";
import { el } from "../shared/element.js";
import { icon } from "../shared/icons.js";
import { request } from "../shared/messages.js";
import { countText } from "../shared/plural.js";
import { loadSettings } from "../shared/settings.js";
import { captureAndSave } from "./capture.js";
import { openContinueMenu } from "./continue.js";
import { onTrusted, shadowHost } from "./shadow_ui.js";
import { toast, toastError } from "./toast.js";

/**
 * What the click asks the save for, per the user's settings: the conversation to copy (Markdown) or to download
 * (Markdown or JSON), redacted like a context when the setting is on; null when it only saves. The service
 * worker does both from the save's one reply (the downloads API, its clipboard surface): the text never enters
 * this page, and no page-origin blob: URL exists for the page to fetch.
 */
function exportAsked(settings) {
  if (settings.copyMarkdownOnExport) return { to: "clipboard", format: "markdown", redact: settings.redact };
  if (settings.downloadOnExport) {
    return { to: "download", format: settings.exportFormat === "json" ? "portable" : "markdown", redact: settings.redact };
  }
  return null;
}

/** The toast's line for what the worker did with the export. */
function deliveredLine(delivered) {
  if (!delivered) return null;
  if (delivered.to === "download") return t("toastDownloaded");
  return delivered.copied ? t("copied") : t("copyFailed");
}

/** The first line of the saved toast, in the words of the host's `status` (any status it adds reads as saved). */
function savedLine(saved) {
  const title = saved.title || t("untitled");
  const count = countText("message", saved.messages ?? 0);
  if (saved.status === "unchanged") return t("toastAlreadySaved", [title, count]);
  if (saved.status === "updated") return t("toastUpdated", [title, count]);
  if (saved.status === "kept") {
    // the host kept its copy: a page capture never replaces one read from the site's data (a page's script
    // can forge the page), and a partial capture never a complete copy
    const held = [title, String(saved.messages ?? 0)];
    return saved.kept_copy === "site_data" ? t("toastKeptSiteData", held) : t("toastKeptComplete", held);
  }
  return t("toastSaved", [title, count]);
}

/** Open the saved conversation, or the library, in a new tab (the worker opens it: a page cannot). */
function openPage(page, conversationId) {
  request("open-page", { page, conversation_id: conversationId }).catch(toastError);
}

export async function exportNow(site, button) {
  if (button) button.disabled = true;
  try {
    toast("progress", t("toastReading"));
    const asked = exportAsked(await loadSettings());
    const saved = await captureAndSave(site, (step) => step === "saving" && toast("progress", t("toastSaving")),
      { export: asked });
    const lines = [savedLine(saved)];
    if (saved.partial && saved.status !== "kept") lines.push(t("toastPartial"));
    const delivered = deliveredLine(saved.delivered);
    if (delivered) lines.push(delivered);
    const box = toast("success", lines.join("\n"), { actions: [
      { name: "open", label: t("toastOpen"), icon: "external-link", primary: true, run: () => openPage("view", saved.conversation_id) },
      { name: "library", label: t("toastShowInLibrary"), icon: "library", run: () => openPage("library", saved.conversation_id) },
    ] });
    box.dataset.conversationId = saved.conversation_id;
    box.dataset.path = saved.path;
    box.dataset.status = saved.status;
    return saved;
  } catch (error) {
    toastError(error);
    return null;
  } finally {
    if (button) button.disabled = false;
  }
}

/** Build the button bar; `floating` when it has no anchor in the page. */
export function buildBar(site, floating) {
  const { host, root } = shadowHost(floating ? "floating-bar" : "bar");
  const exportButton = el("button", { type: "button", title: t("exportTitle"), dataset: { mnemosyne: "export" } },
    [icon("download", 16), t("exportButton")]);
  const continueButton = el("button", { type: "button", title: t("continueTitle"), "aria-haspopup": "menu",
    dataset: { mnemosyne: "continue" } }, [icon("message-square-share", 16), t("continueButton")]);
  onTrusted(exportButton, "click", () => exportNow(site, exportButton));
  onTrusted(continueButton, "click", () => openContinueMenu(site, continueButton));
  root.append(el("div", { className: floating ? "bar floating" : "bar" }, [exportButton, continueButton]));
  return host;
}
