// The clipboard, written by the extension only: Export's copy and a failed fill's fallback copy happen here,
// never in a web page's DOM (page script could read a textarea, the selection or the copy event there).
// Chromium's service worker has no DOM, so an offscreen document copies; Firefox's background page copies itself.
import { api } from "../shared/api.js";
import { copyInDocument } from "../shared/copy_in_document.js";
import { MnemoError } from "../shared/errors.js";

const OFFSCREEN_URL = "offscreen/clipboard.html";
let creating = null;

async function ensureOffscreen() {
  const url = api.runtime.getURL(OFFSCREEN_URL);
  const existing = await api.runtime.getContexts({ contextTypes: ["OFFSCREEN_DOCUMENT"], documentUrls: [url] });
  if (existing.length) return;
  creating ??= api.offscreen.createDocument({ url: OFFSCREEN_URL, reasons: ["CLIPBOARD"],
    justification: "copy an export or a context to the clipboard without the web page seeing it" });
  try {
    await creating;
  } finally {
    creating = null;
  }
}

/** Put `text` on the clipboard; throws COPY_FAILED when the browser refuses. */
export async function copyToClipboard(text) {
  let copied;
  if (api.offscreen) {
    await ensureOffscreen();
    ({ copied } = await api.runtime.sendMessage({ target: "offscreen", type: "offscreen-copy", text }));
  } else {
    copied = copyInDocument(document, text);
  }
  if (!copied) throw new MnemoError("COPY_FAILED", "the browser refused to copy to the clipboard");
  return true;
}
