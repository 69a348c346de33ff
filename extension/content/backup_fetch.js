// The site tab's half of a backup: the service worker asks for one same-origin API path at a time
// (`backup-get`), this tab fetches it as the site's own app would (cookies, session token, workspace header)
// and answers the JSON, or the status and Retry-After the worker's rate policy needs.
import { MnemoError } from "../shared/errors.js";
import { pageFetch } from "../sites/page.js";

function failed(error, status = 0) {
  return { ok: false, status, retryAfter: error.retryAfter ?? null, code: error.code, message: String(error.message ?? error) };
}

// Where a site serves the files a conversation refers to (docs/sites.md): ChatGPT's files API and the same-origin
// download URL it answers; Claude's file assets. A file download goes nowhere else on the site.
const FILE_PATHS = {
  chatgpt: /^\/backend-api\/(?:files\/[^/]+(?:\/[^/]+)?|estuary\/content(?:\/[^/]+)?)$/,
  claude: /^\/api\/(?:organizations\/)?[^/]+\/files\/[^/]+\/[a-z0-9_]+$/,
};

/**
 * The same-origin path (and query) `raw` names, checked on what is fetched: parsed as a URL (so "%2e%2e" and "/./"
 * are resolved as the browser resolves them), on this page's origin, its decoded segments with no "..", ".", empty
 * segment or backslash (what a server would decode "%2f" into), and its path one `allowed` accepts. Else null.
 */
function checkedPath(raw, allowed) {
  if (typeof raw !== "string") return null;
  let url;
  let decoded;
  try {
    url = new URL(raw, location.origin);
    decoded = decodeURIComponent(url.pathname);
  } catch {
    return null;
  }
  if (url.origin !== location.origin || url.username || url.password) return null;
  const segments = decoded.split("/").slice(1);
  if (decoded.includes("\\") || segments.some((s) => s === "" || s === "." || s === "..")) return null;
  return allowed(url.pathname) ? url.pathname + url.search : null;
}

const notAllowed = () => failed(new MnemoError("BAD_REQUEST", "not an API path of this site"), 400);

/** Answer one `backup-get`: `{ok: true, data}` or `{ok: false, status, retryAfter, code, message}`. */
export async function backupGet(site, raw) {
  const path = checkedPath(raw, (pathname) => pathname.startsWith(site.apiPrefix));
  if (!path) return notAllowed();
  try {
    return { ok: true, data: await site.apiGet(path) };
  } catch (error) {
    if (error instanceof SyntaxError) return failed(new MnemoError("API_SHAPE", "the reply is not JSON"), 200); // no retry
    const status = Number.isInteger(error.status) ? error.status : error.code === "LOGGED_OUT" ? 401 : 0;
    return failed(error.code ? error : new MnemoError("NETWORK", String(error?.message ?? error)), status);
  }
}

/** A Blob's bytes as base64, through a data: URL string: in Firefox the page's fetch (content.fetch) hands back
 * objects of the page, and the bytes of a page ArrayBuffer cannot be read through the Xray wrapper; a string can. */
function blobBase64(blob) {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).slice(String(reader.result).indexOf(",") + 1));
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(blob);
  });
}

function tooLarge(bytes, capBytes) {
  return failed(new MnemoError("TOO_LARGE", `${bytes} bytes is over the ${capBytes}-byte cap`), 413);
}

// Downloads under way, by the worker's request id: the worker gives up on the tab after its timeout (it sends
// `backup-abort`), and a download stops then, also on its own at the same deadline (a stopped worker sends none).
const downloads = new Map();

/** Stop the download the worker gave up on (`backup-abort`). */
export function abortDownload(requestId) {
  downloads.get(requestId)?.("the service worker gave up on this download");
}

function stopSignal(requestId, timeoutMs) {
  let stop;
  const signal = { reason: null, stopped: new Promise((resolve) => (stop = resolve)) };
  const end = (reason) => {
    signal.reason ??= reason;
    stop({ stopped: true });
  };
  const timer = Number.isFinite(timeoutMs) && timeoutMs > 0 ? setTimeout(() => end("the download took too long"), timeoutMs) : null;
  if (requestId) downloads.set(requestId, end);
  signal.done = () => {
    clearTimeout(timer);
    if (requestId) downloads.delete(requestId);
  };
  return signal;
}

/**
 * The body as a Blob, read a chunk at a time and given up as soon as it passes `capBytes` (the chunks are the
 * decoded bytes: a small gzip body that expands is stopped at the cap too) or the download is stopped:
 * `{blob}`, `{over}` or `{stopped}`. Never the whole body first (a chunked reply declares no length).
 */
async function readCapped(response, capBytes, signal) {
  if (!response.body) return { blob: new Blob([]) };
  const reader = response.body.getReader();
  const chunks = [];
  let total = 0;
  let finished = false;
  try {
    for (;;) {
      const step = await Promise.race([reader.read(), signal.stopped]);
      if (step.stopped) return { stopped: signal.reason };
      if (step.done) {
        finished = true;
        return { blob: new Blob(chunks) };
      }
      total += step.value.byteLength;
      if (total > capBytes) return { over: total };
      chunks.push(step.value);
    }
  } finally {
    if (!finished) reader.cancel().catch(() => {}); // the rest of the body is never downloaded
  }
}

/**
 * Answer one `backup-file`: download a file the conversation refers to, within `capBytes`. ChatGPT's path answers
 * `{download_url}` first; Claude's path is the file. `{ok: true, data: {bytes, mime, data (base64)}}`, or
 * `{ok: true, data: {url}}` when the download URL is on another origin (the worker downloads it), or a failure.
 */
export async function backupFile(site, raw, capBytes, { requestId = null, timeoutMs = null } = {}) {
  const filePath = (pathname) => FILE_PATHS[site.name]?.test(pathname) ?? false;
  const path = checkedPath(raw, filePath);
  if (!path) return notAllowed();
  const signal = stopSignal(requestId, timeoutMs);
  try {
    let url = path;
    if (site.name === "chatgpt") {
      const answered = (await site.apiGet(path))?.download_url;
      if (typeof answered !== "string" || !/^(https:\/\/|\/)/.test(answered)) return failed(new MnemoError("API_SHAPE", "no download_url"), 200);
      // a signed URL on the site's file host: the worker fetches it (its host permission, not the page's CORS)
      if (new URL(answered, location.origin).origin !== location.origin) return { ok: true, data: { url: answered } };
      url = checkedPath(answered, filePath); // on the site itself: only where the site serves files
      if (!url) return failed(new MnemoError("BAD_REQUEST", "the download URL is not a file of this site"), 400);
    }
    const response = await pageFetch(url);
    if (!response.ok) {
      return { ...failed(new MnemoError(`HTTP_${response.status}`, `the file answered ${response.status}`), response.status),
        retryAfter: response.headers.get("Retry-After") };
    }
    const declared = Number(response.headers.get("Content-Length"));
    if (declared > capBytes) {
      response.body?.cancel().catch(() => {});
      return tooLarge(declared, capBytes);
    }
    const read = await readCapped(response, capBytes, signal);
    if (read.over) return failed(new MnemoError("TOO_LARGE", `more than ${capBytes} bytes (the cap)`), 413);
    if (read.stopped) return failed(new MnemoError("TAB_TIMEOUT", read.stopped));
    const { blob } = read;
    return { ok: true, data: { bytes: blob.size, mime: response.headers.get("Content-Type"), data: await blobBase64(blob) } };
  } catch (error) {
    const status = Number.isInteger(error.status) ? error.status : 0;
    return failed(error.code ? error : new MnemoError("NETWORK", String(error?.message ?? error)), status);
  } finally {
    signal.done();
  }
}
