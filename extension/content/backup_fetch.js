// The site tab's half of a backup: the service worker asks for one same-origin API path at a time
// (`backup-get`), this tab fetches it as the site's own app would (cookies, session token, workspace header)
// and answers the JSON, or the status and Retry-After the worker's rate policy needs.
import { MnemoError } from "../shared/errors.js";
/** @typedef {import("../shared/errors.js").HttpError} HttpError */
import { pageFetch, readCapped } from "../sites/page.js";

function failed(error, status = 0) {
  return { ok: false, status, retryAfter: error.retryAfter ?? null, code: error.code, message: String(error.message ?? error) };
}

// Where a site serves the files a conversation refers to (docs/sites.md): ChatGPT's files API and the same-origin
// download URL it answers; Claude's file assets. A file download goes nowhere else on the site.
const FILE_PATHS = {
  chatgpt: /^\/backend-api\/(?:files\/[^/]+(?:\/[^/]+)?|estuary\/content(?:\/[^/]+)?)$/,
  claude: /^\/api\/(?:organizations\/)?[^/]+\/files\/[^/]+\/[a-z0-9_]+$/,
};

// The only requests a site tab sends as a POST (docs/sites.md): Perplexity's thread list, grok.com's turns of
// one conversation and Gemini's batchexecute (its chat list and a chat's pages). Each reply is read through
// `readCapped`, as a file download is.
const POST_PATHS = {
  grok: /^\/rest\/app-chat\/conversations\/[0-9a-f-]{36}\/load-responses$/i,
  perplexity: /^\/rest\/thread\/list_ask_threads$/,
  gemini: /^\/_\/BardChatUi\/data\/batchexecute$/,
};

// Sites whose GETs a backup names one by one (the others: any path under the adapter's apiPrefix): DeepSeek's
// session list and one chat's messages; Gemini is read by POSTs only.
const GET_PATHS = {
  deepseek: /^\/api\/v0\/(?:chat_session\/fetch_page|chat\/history_messages)$/,
  gemini: /^(?!)/,
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

/**
 * Answer one `backup-get`: `{ok: true, data}` or `{ok: false, status, retryAfter, code, message}`. A POST (a list
 * the site only answers to a POST, with a JSON body) only to the site's POST_PATHS, stopped like a download.
 */
export async function backupGet(site, raw, { method = "GET", body = null, requestId = null, timeoutMs = null } = {}) {
  const post = method === "POST";
  if ((post && !site.apiPost) || (!post && method !== "GET")) return failed(new MnemoError("BAD_REQUEST", "not a request of this site"), 400);
  const getAllowed = (pathname) => GET_PATHS[site.name]?.test(pathname) ?? pathname.startsWith(site.apiPrefix);
  const allowed = post ? (pathname) => POST_PATHS[site.name]?.test(pathname) ?? false : getAllowed;
  const path = checkedPath(raw, allowed);
  if (!path) return notAllowed();
  const signal = post || GET_PATHS[site.name] ? stopSignal(requestId, timeoutMs) : null;
  try {
    return { ok: true, data: post ? await site.apiPost(path, body, { signal }) : await site.apiGet(path, { signal }) };
  } catch (error) {
    if (error instanceof SyntaxError) return failed(new MnemoError("API_SHAPE", "the reply is not JSON"), 200); // no retry
    const status = Number.isInteger(error.status) ? error.status : error.code === "LOGGED_OUT" ? 401 : 0;
    return failed(error.code ? error : new MnemoError("NETWORK", String(error?.message ?? error)), status);
  } finally {
    signal?.done();
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

// A conversation id as grok.com and Perplexity name them (a UUID, a slug): one path segment, never "." or ".."
const CONVERSATION_ID = /^(?!\.+$)[A-Za-z0-9._-]{1,200}$/;

/**
 * Answer one `backup-conversation`: the conversation as the adapter reads it for Export (sites whose conversation
 * takes more than one request: grok.com's tree and turns, Perplexity's thread pages). The adapter's POSTs go
 * through the same checks as a `backup-get` POST (POST_PATHS, the capped reader, the worker's stop).
 */
export async function backupConversation(site, id, { requestId = null, timeoutMs = null } = {}) {
  if (typeof id !== "string" || !CONVERSATION_ID.test(id)) return failed(new MnemoError("BAD_REQUEST", "not a conversation id"), 400);
  const signal = stopSignal(requestId, timeoutMs);
  const post = (raw, body) => {
    const path = site.apiPost ? checkedPath(raw, (pathname) => POST_PATHS[site.name]?.test(pathname) ?? false) : null;
    if (!path) {
      const error = /** @type {HttpError} */ (new MnemoError("BAD_REQUEST", "not an API path of this site"));
      error.status = 400;
      throw error;
    }
    return site.apiPost(path, body, { signal });
  };
  try {
    const { kind, payload } = await site.fetchApi(id, { post });
    return { ok: true, data: payload, kind };
  } catch (error) {
    const status = Number.isInteger(error.status) ? error.status : error.code === "API_SHAPE" ? 200 : 0;
    return failed(error.code ? error : new MnemoError("NETWORK", String(error?.message ?? error)), status);
  } finally {
    signal.done();
  }
}
