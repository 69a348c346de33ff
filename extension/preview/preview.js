// The preview window of a context built for a web page's "Continue in…": the host's report and the start
// of the text, then fill or copy on the user's confirmation. It is an extension page, so the web page that
// asked can neither read the transcript shown here nor press its buttons; it holds no handle it could use.
import { t } from "../shared/api.js";
import { previewNodes } from "../shared/context_preview.js";
import { localize } from "../shared/dom.js";
import { describeError, request } from "../shared/messages.js";

const handle = new URLSearchParams(location.search).get("handle");
const $ = (elementId) => document.getElementById(elementId);
let context = null;

function say(text, kind = "") {
  $("status").textContent = text;
  $("status").className = `status ${kind}`;
}

async function show() {
  localize();
  context = await request("context-preview", { handle });
  document.title = t("previewTitle", [context.label]);
  $("title").textContent = t("previewTitle", [context.label]);
  $("preview").dataset.target = context.target;
  $("preview-body").replaceChildren(...previewNodes(context));
  $("preview-go").textContent = context.fills ? t("previewFill") : t("previewCopy");
  $("preview").hidden = false;
  $("preview-go").focus();
}

async function confirmContext() {
  $("preview-go").disabled = true;
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

$("preview-go").addEventListener("click", () => confirmContext().catch((error) => {
  $("preview-go").disabled = false;
  say(describeError(error), "error");
}));
$("preview-cancel").addEventListener("click", () => window.close());
show().catch((error) => say(describeError(error), "error"));
