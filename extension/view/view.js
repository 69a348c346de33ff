// A readable view of one archived conversation with copy / download / continue in / delete.
// The host's portable JSON is rendered with textContent only (shared/transcript.js).
import { t } from "../shared/api.js";
import { formatDate, localize } from "../shared/dom.js";
import { describeError, request } from "../shared/messages.js";
import { siteName } from "../shared/names.js";
import { countText } from "../shared/plural.js";
import { hostMissing, setupNotice } from "../shared/setup.js";
import { showBranches } from "../shared/branches.js";
import { previewNodes } from "../shared/context_preview.js";
import { loadSettings } from "../shared/settings.js";
import { fillTargetSelect } from "../shared/target_options.js";

const id = new URLSearchParams(location.search).get("id");
const status = document.getElementById("status");
const $ = (elementId) => document.getElementById(elementId);
let pendingContext = null;
let branches = null; // the branch on screen (shared/branches.js): copy and downloads write that branch

/** The `branch` parameter of `get`: only when another branch than the active one is shown. */
function branchParam() {
  return branches && !branches.isActive() ? { branch: branches.leaf() } : {};
}

function say(text, kind = "") {
  status.textContent = text;
  status.className = `status ${kind}`;
}

/** "N secrets redacted." after a copy or download that removed any (the host's counts by type). */
function redacted(counts) {
  const total = Object.values(counts ?? {}).reduce((sum, n) => sum + (Number(n) || 0), 0);
  return total ? ` ${t("redactedCount", [String(total)])}` : "";
}

// Copy and download are redacted like a context when the setting is on; the download is the worker's.
async function exportAs(format) {
  const { redact } = await loadSettings();
  const data = await request("download", { conversation_id: id, format, redact, ...branchParam() });
  say(t("downloaded", [data.filename]) + redacted(data.redactions), "ok");
}

async function copyMarkdown() {
  const { redact } = await loadSettings();
  const data = await request("get", { conversation_id: id, format: "markdown", redact, ...branchParam() });
  await navigator.clipboard.writeText(data.text);
  say(t("copied") + redacted(data.redactions), "ok");
}

async function startContinue() {
  const settings = await loadSettings();
  const target = /** @type {HTMLSelectElement} */ ($("target")).value;
  say(t("buildingContext"));
  pendingContext = await request("context", { conversation_id: id, target, budget: settings.budget, redact: settings.redact, ...branchParam() });
  $("preview-body").replaceChildren(...previewNodes(pendingContext).filter(Boolean));
  $("preview-go").textContent = pendingContext.fills ? t("previewFill") : t("previewCopy");
  $("preview").hidden = false;
  say("");
}

async function confirmContinue() {
  if (!pendingContext) return;
  if (pendingContext.fills) {
    await request("fill-open", { handle: pendingContext.handle });
    say(t("fillOpened"), "ok");
  } else {
    const { text } = await request("context-text", { handle: pendingContext.handle });
    await navigator.clipboard.writeText(text);
    say(t("contextCopied"), "ok");
  }
  $("preview").hidden = true;
  pendingContext = null;
}

async function remove() {
  if (!confirm(t("confirmDelete"))) return;
  await request("delete", { conversation_id: id });
  branches?.stop();
  $("messages").replaceChildren();
  const controls = /** @type {NodeListOf<HTMLButtonElement | HTMLSelectElement>} */ (document.querySelectorAll(".actions button, .actions select"));
  for (const control of controls) control.disabled = true;
  say(t("deleted"), "ok");
}

function guard(action) {
  return () => action().catch((error) => say(describeError(error), "error"));
}

async function fillTargets() {
  const settings = await loadSettings();
  await fillTargetSelect($("target"), settings.defaultTarget);
}

async function load() {
  localize();
  if (!id) return say(t("errorNoId"), "error");
  say(t("loading"));
  const data = await request("get", { conversation_id: id, format: "portable" });
  const conversation = JSON.parse(data.text);
  // an untitled conversation reads as its first message's words, as in the library (the host's first_words)
  const title = conversation.title || data.first_words || t("untitled");
  document.title = title;
  $("title").textContent = title;
  if (!conversation.title && data.first_words) Object.assign($("title"), { title: t("untitledFirstWords") });
  $("title").dataset.derived = String(!conversation.title && Boolean(data.first_words));
  // the count is the archive's (every message it keeps, as the library says), not the branch's on screen
  branches = showBranches($("messages"), conversation, () => {
    $("meta").textContent = [conversation.source?.site ? siteName(conversation.source.site) : null, formatDate(conversation.updated_at ?? conversation.created_at),
      countText("message", conversation.messages.length), conversation.provenance?.partial ? t("partialCapture") : ""]
      .filter(Boolean).join(" · ");
  });
  say("");
}

$("copy").addEventListener("click", guard(copyMarkdown));
$("download-md").addEventListener("click", guard(() => exportAs("markdown")));
$("download-json").addEventListener("click", guard(() => exportAs("portable")));
$("continue").addEventListener("click", guard(startContinue));
$("preview-go").addEventListener("click", guard(confirmContinue));
$("preview-cancel").addEventListener("click", () => { $("preview").hidden = true; pendingContext = null; });
$("delete").addEventListener("click", guard(remove));
fillTargets().catch(() => {});
load().catch((error) => {
  if (!hostMissing(error)) return say(describeError(error), "error");
  say("");
  $("messages").replaceChildren(setupNotice());
});
