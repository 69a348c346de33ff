// What an Export click does after the save, from the save's one reply: the host's `save` carries the
// conversation in the format the click needs (its `export`), and the worker copies it or downloads it. The
// text never enters the page; the tab gets only what happened.
import { MnemoError } from "../shared/errors.js";
import { copyToClipboard } from "./clipboard.js";
import { saveExportFile } from "./download.js";
import { callAllPages } from "./paging.js";

const DELIVERIES = ["clipboard", "download"];

/** The click's `export` ({to, format, redact}) checked, or null when the click only saves. */
export function exportAsked(value) {
  if (value === undefined || value === null) return null;
  if (typeof value !== "object" || !DELIVERIES.includes(value.to) || typeof value.format !== "string" || !value.format) {
    throw new MnemoError("BAD_REQUEST", "export must be {to: clipboard | download, format, redact}");
  }
  return { to: value.to, format: value.format, redact: value.redact === true };
}

/** The host's `save` parameter for it. */
export function hostExport(asked) {
  return { format: asked.format, redact: asked.redact };
}

/**
 * The whole text of the saved conversation: the save's `export` and, for a text over one reply, the `get` pages
 * after it (the host kept its render). A host that does not know `export` answered none: ask `get` for it all.
 */
function exportedText(asked, saved) {
  const params = { conversation_id: saved.conversation_id, format: asked.format, redact: asked.redact };
  return callAllPages("get", params, { timeoutMs: 120_000 }, saved.export ?? null);
}

/**
 * Copy or download what the save's reply carries. A copy that fails is reported (`copied: false`), the save
 * stands; a download that fails throws, as a download from the view does.
 */
export async function deliverExport(asked, saved) {
  if (asked.to === "download") {
    const data = await exportedText(asked, saved);
    return { to: "download", ...(await saveExportFile(data, saved.conversation_id)), redactions: data.redactions ?? null };
  }
  try {
    const data = await exportedText(asked, saved);
    await copyToClipboard(data.text);
    return { to: "clipboard", copied: true, redactions: data.redactions ?? null };
  } catch (error) {
    return { to: "clipboard", copied: false, code: error.code ?? "COPY_FAILED" };
  }
}
