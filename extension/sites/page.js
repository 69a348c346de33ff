// Requests and cookies of the page an adapter runs in (chatgpt.com, claude.ai), for the site APIs.
import { MnemoError } from "../shared/errors.js";

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
    const error = new MnemoError(`HTTP_${response.status}`, `${path.split("?")[0]} answered ${response.status}`);
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

/** POST a JSON body to a same-site endpoint and parse the JSON reply; a non-2xx answer is an HTTP_<status> error. */
export async function postJson(path, body) {
  const response = await pageFetch(path, {
    method: "POST",
    headers: { Accept: "application/json", "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!response.ok) {
    const error = new MnemoError(`HTTP_${response.status}`, `${path.split("?")[0]} answered ${response.status}`);
    error.status = response.status;
    error.retryAfter = response.headers.get("Retry-After");
    throw error;
  }
  return JSON.parse(await response.text()); // parsed here, as in fetchJson (Firefox's Xray wrappers)
}
