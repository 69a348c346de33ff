// The site tab's half of a backup: the service worker asks for one same-origin API path at a time
// (`backup-get`), this tab fetches it as the site's own app would (cookies, session token, workspace header)
// and answers the JSON, or the status and Retry-After the worker's rate policy needs.
import { MnemoError } from "../shared/errors.js";

function failed(error, status = 0) {
  return { ok: false, status, retryAfter: error.retryAfter ?? null, code: error.code, message: String(error.message ?? error) };
}

/** Answer one `backup-get`: `{ok: true, data}` or `{ok: false, status, retryAfter, code, message}`. */
export async function backupGet(site, path) {
  if (typeof path !== "string" || !path.startsWith(site.apiPrefix) || path.includes("..") || path.includes("//")) {
    return failed(new MnemoError("BAD_REQUEST", "not an API path of this site"), 400);
  }
  try {
    return { ok: true, data: await site.apiGet(path) };
  } catch (error) {
    if (error instanceof SyntaxError) return failed(new MnemoError("API_SHAPE", "the reply is not JSON"), 200); // no retry
    const status = Number.isInteger(error.status) ? error.status : error.code === "LOGGED_OUT" ? 401 : 0;
    return failed(error.code ? error : new MnemoError("NETWORK", String(error?.message ?? error)), status);
  }
}
