// Downloads of exports, all through the downloads API from here: the file's text never enters a web page,
// and the URL handed to the browser is the extension's own (a blob: URL of the background page in Firefox,
// a data: URL in Chromium, whose service worker cannot make blob: URLs), so no page can fetch it.
import { api } from "../shared/api.js";

const REVOKE_AFTER_MS = 60_000;

function utf8Base64(text) {
  const bytes = new TextEncoder().encode(text);
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/** A name the downloads API accepts: no folders, no characters Windows refuses, not empty. */
export function safeFilename(name, fallback) {
  const base = String(name ?? "").split(/[\\/]/).pop().replace(/[\u0000-\u001f<>:"|?*]/g, "_").replace(/^[.\s]+/, "").trim(); // eslint-disable-line no-control-regex
  return base || fallback;
}

/** Save `text` as a file in the user's downloads folder; resolves with the download id. */
export async function downloadText(text, filename, mediaType) {
  const type = `${mediaType || "text/plain"};charset=utf-8`;
  let url;
  let release = () => {};
  if (typeof URL.createObjectURL === "function") {
    url = URL.createObjectURL(new Blob([text], { type }));
    release = () => URL.revokeObjectURL(url);
  } else {
    url = `data:${type};base64,${utf8Base64(text)}`;
  }
  try {
    return await api.downloads.download({ url, filename, saveAs: false, conflictAction: "uniquify" });
  } finally {
    setTimeout(release, REVOKE_AFTER_MS);
  }
}

/** A conversation as the host wrote it (`get`, pages joined) saved as a file; `{filename, download_id}`. */
export async function saveExportFile(data, conversationId) {
  const filename = safeFilename(data.filename, `${conversationId}.${String(data.extension || "txt").replace(/^\./, "")}`);
  const downloadId = await downloadText(data.text, filename, data.media_type);
  return { filename, download_id: downloadId };
}
