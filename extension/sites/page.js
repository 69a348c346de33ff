// Requests and cookies of the page an adapter runs in (chatgpt.com, claude.ai), for the site APIs.
import { MnemoError } from "../shared/errors.js";
/** @typedef {import("../shared/errors.js").HttpError} HttpError */

/** Page-origin fetch: Firefox content scripts need content.fetch to send the page's cookies. */
export function pageFetch(url, init = {}) {
  const fetcher = globalThis.content?.fetch
    ? globalThis.content.fetch.bind(globalThis.content)
    : globalThis.fetch.bind(globalThis);
  return fetcher(url, { credentials: "include", ...init });
}

/** GET a same-site JSON endpoint; a non-2xx answer is an HTTP_<status> error. */
export async function fetchJson(path, headers = {}) {
  const response = await pageFetch(path, { headers: { Accept: "application/json", ...headers } });
  if (!response.ok) {
    const error = /** @type {HttpError} */ (new MnemoError(`HTTP_${response.status}`, `${path.split("?")[0]} answered ${response.status}`));
    error.status = response.status; // the backup's rate policy reads these
    error.retryAfter = response.headers.get("Retry-After");
    throw error;
  }
  // parsed here, not with response.json(): in Firefox (content.fetch) that object belongs to the page,
  // reaches us through an Xray wrapper and the API capture failed over to the DOM sweep
  return JSON.parse(await response.text());
}

export function readCookie(name) {
  for (const pair of document.cookie.split(";")) {
    const [key, ...rest] = pair.trim().split("=");
    if (key === name) return decodeURIComponent(rest.join("="));
  }
  return null;
}

// The most of a POST's JSON reply read (decoded bytes): more than the extension hands the native host in one message
export const JSON_REPLY_CAP = 64 * 1024 * 1024;

const NEVER = new Promise(() => {});

/**
 * The body as a Blob, read a chunk at a time and given up as soon as it passes `capBytes` (the chunks are the
 * decoded bytes: a small gzip body that expands is stopped at the cap too) or `signal` is stopped:
 * `{blob}`, `{over}` or `{stopped}`. Never the whole body first (a chunked reply declares no length).
 */
export async function readCapped(response, capBytes, signal = null) {
  if (!response.body) return { blob: new Blob([]) };
  const reader = response.body.getReader();
  const chunks = [];
  let total = 0;
  let finished = false;
  try {
    for (;;) {
      const step = await Promise.race([reader.read(), signal?.stopped ?? NEVER]);
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

/** The JSON of a 2xx `response` to `path`, read within JSON_REPLY_CAP and stopped with `signal`. */
async function cappedJson(path, response, signal) {
  const read = await readCapped(response, JSON_REPLY_CAP, signal);
  if (read.over || read.stopped) {
    const error = /** @type {HttpError} */ (read.over ? new MnemoError("TOO_LARGE", `${path.split("?")[0]} answered more than ${JSON_REPLY_CAP} bytes`)
      : new MnemoError("TAB_TIMEOUT", read.stopped));
    if (read.over) error.status = 413;
    throw error;
  }
  return JSON.parse(await read.blob.text()); // parsed here, as in fetchJson (Firefox's Xray wrappers)
}

/** GET a same-site JSON endpoint as fetchJson does, its reply read within JSON_REPLY_CAP and stopped with `signal`. */
export async function getJsonCapped(path, headers = {}, { signal = null } = {}) {
  const response = await pageFetch(path, { headers: { Accept: "application/json", ...headers } });
  if (!response.ok) {
    const error = /** @type {HttpError} */ (new MnemoError(`HTTP_${response.status}`, `${path.split("?")[0]} answered ${response.status}`));
    error.status = response.status;
    error.retryAfter = response.headers.get("Retry-After");
    throw error;
  }
  return cappedJson(path, response, signal);
}

/**
 * POST a JSON body to a same-site endpoint and parse the JSON reply, read within JSON_REPLY_CAP and stopped with
 * `signal` (a backup's stop); a non-2xx answer is an HTTP_<status> error.
 */
export async function postJson(path, body, { signal = null } = {}) {
  const response = await pageFetch(path, {
    method: "POST",
    headers: { Accept: "application/json", "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!response.ok) {
    const error = /** @type {HttpError} */ (new MnemoError(`HTTP_${response.status}`, `${path.split("?")[0]} answered ${response.status}`));
    error.status = response.status;
    error.retryAfter = response.headers.get("Retry-After");
    throw error;
  }
  return cappedJson(path, response, signal);
}
