// Export: save the conversation to the archive, then download or copy it per the user's settings, with
// progress and a clear result; and the Export / Continue bar placed beside the site's conversation actions
// (or floating when no anchor is found).
import { t } from "../shared/api.js";
import { el } from "../shared/element.js";
import { request } from "../shared/messages.js";
import { loadSettings } from "../shared/settings.js";
import { captureAndSave } from "./capture.js";
import { openContinueMenu } from "./continue.js";
import { download } from "../shared/download.js";
import { copyText } from "./clipboard.js";
import { overlay, shadowHost } from "./shadow_ui.js";
import { toast, toastError } from "./toast.js";

/** Download or copy per the user's settings, after the archive has the conversation. */
async function afterSave(saved) {
  const settings = await loadSettings();
  if (settings.copyMarkdownOnExport) {
    const data = await request("get", { conversation_id: saved.conversation_id, format: "markdown" });
    return (await copyText(data.text)) ? "copied" : "copy-failed";
  }
  if (settings.downloadOnExport) {
    const format = settings.exportFormat === "json" ? "portable" : "markdown";
    const data = await request("get", { conversation_id: saved.conversation_id, format });
    download(data.text, data.filename || `${saved.conversation_id}.${data.extension || "md"}`, data.media_type, overlay().root);
    return "downloaded";
  }
  return null;
}

export async function exportNow(site, button) {
  if (button) button.disabled = true;
  try {
    toast("progress", t("toastReading"));
    const saved = await captureAndSave(site, (step) => step === "saving" && toast("progress", t("toastSaving")));
    const extra = await afterSave(saved);
    const how = saved.path === "api" ? t("pathApi") : t("pathDom");
    const lines = [t("toastSaved", [saved.title || t("untitled"), String(saved.messages), how])];
    if (saved.partial) lines.push(t("toastPartial"));
    if (extra === "downloaded") lines.push(t("toastDownloaded"));
    if (extra === "copied") lines.push(t("copied"));
    if (extra === "copy-failed") lines.push(t("copyFailed"));
    const box = toast("success", lines.join("\n"));
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
  const exportButton = el("button", { type: "button", title: t("exportTitle"), dataset: { mnemosyne: "export" } }, [t("exportButton")]);
  const continueButton = el("button", { type: "button", title: t("continueTitle"), "aria-haspopup": "menu",
    dataset: { mnemosyne: "continue" } }, [t("continueButton")]);
  exportButton.addEventListener("click", () => exportNow(site, exportButton));
  continueButton.addEventListener("click", () => openContinueMenu(site, continueButton));
  root.append(el("div", { className: floating ? "bar floating" : "bar" }, [exportButton, continueButton]));
  return host;
}
