// The second half of a ChatGPT file download: the signed `download_url` the site's files API answered, on the
// site's file host (files.oaiusercontent.com for uploads, sdmntpr*.oaiusercontent.com for generated images).
// The worker fetches it, not the site tab: from the tab it would be a cross-origin request under the page's CORS
// rules; from the worker the host permission for *.oaiusercontent.com covers it. That permission is optional
// (a new required one would disable the installed extension on update until accepted): the backup panel asks for
// it in the backup-all click, and the worker lists the file instead when it is not granted. The URL is signed, so
// no cookies are sent; only the file hosts of shared/file_hosts.js are fetched, and never more than the user's size
// cap is read.
import { isFileHostUrl } from "../shared/file_hosts.js";

function failed(code, message, status = 0, retryAfter = null) {
  return { ok: false, status, retryAfter, code, message };
}

function base64(bytes) {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/** Read a response body, giving up as soon as it passes `capBytes`: `Uint8Array`, or null when over. */
async function readCapped(response, capBytes) {
  const reader = response.body.getReader();
  const chunks = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > capBytes) {
      await reader.cancel();
      return { over: total };
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return { bytes };
}

/**
 * Download a signed file URL within `capBytes`, in the reply shape of the tab's `backup-file`:
 * `{ok: true, data: {bytes, mime, data (base64)}}` or `{ok: false, status, retryAfter, code, message}`
 * (`TOO_LARGE` over the cap, `FILE_HOST` for a URL outside the site's file hosts).
 */
export async function downloadFileUrl(url, capBytes) {
  if (!isFileHostUrl(url)) return failed("FILE_HOST", "the download URL is not on the site's file host", 200);
  try {
    const response = await fetch(url, { credentials: "omit", redirect: "error" });
    if (!response.ok) {
      return failed(`HTTP_${response.status}`, `the file answered ${response.status}`, response.status, response.headers.get("Retry-After"));
    }
    const declared = Number(response.headers.get("Content-Length"));
    if (declared > capBytes) {
      await response.body?.cancel();
      return failed("TOO_LARGE", `${declared} bytes is over the ${capBytes}-byte cap`, 413);
    }
    const read = await readCapped(response, capBytes);
    if (read.over) return failed("TOO_LARGE", `more than ${capBytes} bytes (the cap)`, 413);
    return { ok: true, data: { bytes: read.bytes.byteLength, mime: response.headers.get("Content-Type"), data: base64(read.bytes) } };
  } catch (error) {
    return failed("NETWORK", String(error?.message ?? error));
  }
}
