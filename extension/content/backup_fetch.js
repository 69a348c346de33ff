// The site tab's half of a backup: the service worker asks for one same-origin API path at a time
// (`backup-get`), this tab fetches it as the site's own app would (cookies, session token, workspace header)
// and answers the JSON, or the status and Retry-After the worker's rate policy needs.
import { MnemoError } from "../shared/errors.js";
import { pageFetch } from "../sites/page.js";

function failed(error, status = 0) {
  return { ok: false, status, retryAfter: error.retryAfter ?? null, code: error.code, message: String(error.message ?? error) };
}

/** Answer one `backup-get`: `{ok: true, data}` or `{ok: false, status, retryAfter, code, message}`. A POST (a list
 * the site only answers to a POST, with a JSON body) only where the adapter has `apiPost`. */
export async function backupGet(site, path, method = "GET", body = null) {
  if (typeof path !== "string" || !path.startsWith(site.apiPrefix) || path.includes("..") || path.includes("//")) {
    return failed(new MnemoError("BAD_REQUEST", "not an API path of this site"), 400);
  }
  const post = method === "POST";
  if ((post && !site.apiPost) || (!post && method !== "GET")) return failed(new MnemoError("BAD_REQUEST", "not a request of this site"), 400);
  try {
    return { ok: true, data: post ? await site.apiPost(path, body) : await site.apiGet(path) };
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

/**
 * Answer one `backup-file`: download a file the conversation refers to, within `capBytes`. ChatGPT's path answers
 * `{download_url}` first; Claude's path is the file. `{ok: true, data: {bytes, mime, data (base64)}}`, or
 * `{ok: true, data: {url}}` when the download URL is on another origin (the worker downloads it), or a failure.
 */
export async function backupFile(site, path, capBytes) {
  if (typeof path !== "string" || !path.startsWith(site.apiPrefix) || path.includes("..") || path.includes("//")) {
    return failed(new MnemoError("BAD_REQUEST", "not an API path of this site"), 400);
  }
  try {
    let url = path;
    if (site.name === "chatgpt") {
      url = (await site.apiGet(path))?.download_url;
      if (typeof url !== "string" || !/^(https:\/\/|\/)/.test(url)) return failed(new MnemoError("API_SHAPE", "no download_url"), 200);
      // a signed URL on the site's file host: the worker fetches it (its host permission, not the page's CORS)
      if (new URL(url, location.origin).origin !== location.origin) return { ok: true, data: { url } };
    }
    const response = await pageFetch(url);
    if (!response.ok) {
      return { ...failed(new MnemoError(`HTTP_${response.status}`, `the file answered ${response.status}`), response.status),
        retryAfter: response.headers.get("Retry-After") };
    }
    const declared = Number(response.headers.get("Content-Length"));
    if (declared > capBytes) return tooLarge(declared, capBytes);
    const blob = await response.blob();
    if (blob.size > capBytes) return tooLarge(blob.size, capBytes);
    return { ok: true, data: { bytes: blob.size, mime: response.headers.get("Content-Type"), data: await blobBase64(blob) } };
  } catch (error) {
    const status = Number.isInteger(error.status) ? error.status : 0;
    return failed(error.code ? error : new MnemoError("NETWORK", String(error?.message ?? error)), status);
  }
}

/** Answer one `backup-conversation`: the conversation as the adapter reads it for Export (sites whose conversation
 * takes more than one request: grok.com's tree and turns, Perplexity's thread pages). */
export async function backupConversation(site, id) {
  if (typeof id !== "string" || !id || id.length > 200 || /[/?#]/.test(id)) {
    return failed(new MnemoError("BAD_REQUEST", "not a conversation id"), 400);
  }
  try {
    const { kind, payload } = await site.fetchApi(id);
    return { ok: true, data: payload, kind };
  } catch (error) {
    const status = Number.isInteger(error.status) ? error.status : error.code === "API_SHAPE" ? 200 : 0;
    return failed(error.code ? error : new MnemoError("NETWORK", String(error?.message ?? error)), status);
  }
}
