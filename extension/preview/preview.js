// The preview window of a context built for a web page's "Continue in…": the host's report and the start
// of the text, then fill or copy on the user's confirmation. An optional one-line focus (what the user wants
// to do next) rebuilds the context under the same handle, so the confirm uses what the preview shows. It is
// an extension page, so the web page that asked can neither read the transcript shown here nor press its
// buttons; it holds no handle it could use.
import { t } from "../shared/api.js";
import { previewNodes } from "../shared/context_preview.js";
import { localize } from "../shared/dom.js";
import { describeError, request } from "../shared/messages.js";
import { hostMissing, setupNotice } from "../shared/setup.js";

const handle = new URLSearchParams(location.search).get("handle");
const $ = (elementId) => document.getElementById(elementId);
const focusInput = /** @type {HTMLInputElement} */ ($("focus"));
const goButton = /** @type {HTMLButtonElement} */ ($("preview-go"));
const rebuildButton = /** @type {HTMLButtonElement} */ ($("focus-rebuild"));
let context = null;

function say(text, kind = "") {
  $("status").textContent = text;
  $("status").className = `status ${kind}`;
}

function render(built) {
  context = built;
  $("preview").dataset.focus = context.focus ?? "";
  $("preview-body").replaceChildren(...previewNodes(context));
}

/** The conversation's title on one line: a long one ends in an ellipsis and reads in full on hover. */
function showConversationTitle(title) {
  const line = $("conversation-title");
  const words = String(title ?? "").replace(/\s+/g, " ").trim();
  line.textContent = words;
  line.title = words;
  line.hidden = !words;
}

async function show() {
  localize();
  say(t("buildingContext")); // the window opens as the host starts building: said until the context is here
  const built = await request("context-preview", { handle });
  say("");
  document.title = t("previewTitle", [built.label]);
  $("title").textContent = t("previewTitle", [built.label]);
  showConversationTitle(built.title);
  $("preview").dataset.target = built.target;
  focusInput.value = built.focus ?? "";
  render(built);
  goButton.textContent = built.fills ? t("previewFill") : t("previewCopy");
  $("preview").dataset.state = "ready";
  $("preview").hidden = false;
  goButton.focus();
}

/** Build again with the focus typed (empty: none); confirm stays off until the new preview is shown. */
async function rebuild() {
  goButton.disabled = true;
  rebuildButton.disabled = true;
  $("preview").dataset.state = "rebuilding";
  say(t("buildingContext"));
  const was = context?.report?.tokens ?? "?";
  try {
    render(await request("context-rebuild", { handle, focus: focusInput.value }));
    // visible feedback: the new count beside the old, and the preview flashes once
    say(t("previewRebuilt", [String(context.report?.tokens ?? "?"), String(was)]), "ok");
    $("preview-body").classList.remove("rebuilt");
    void $("preview-body").offsetWidth; // restart the flash on a second rebuild
    $("preview-body").classList.add("rebuilt");
  } finally {
    goButton.disabled = false;
    rebuildButton.disabled = false;
    $("preview").dataset.state = "ready";
  }
}

async function confirmContext() {
  goButton.disabled = true;
  if (context.fills) {
    await request("fill-open", { handle });
    window.close(); // the target's tab shows what was filled
    return;
  }
  const { text } = await request("context-text", { handle });
  await navigator.clipboard.writeText(text);
  $("preview").hidden = true;
  say(t("contextCopied"), "ok");
}

$("focus-form").addEventListener("submit", (event) => {
  event.preventDefault(); // Enter in the field or the Rebuild button
  rebuild().catch((error) => say(describeError(error), "error"));
});
goButton.addEventListener("click", () => confirmContext().catch((error) => {
  goButton.disabled = false;
  say(describeError(error), "error");
}));
$("preview-cancel").addEventListener("click", () => window.close());
show().catch((error) => {
  if (!hostMissing(error)) return say(describeError(error), "error");
  $("status").after(setupNotice());
});
