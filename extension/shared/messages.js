// Runtime messages to the service worker: {type, ...} in, {ok, data} | {ok:false, error:{code, message}} out.
// Used by the extension pages and the content scripts alike; MESSAGES.md lists every type.
import { api, t } from "./api.js";
import { MnemoError } from "./errors.js";

export async function request(type, params = {}) {
  let reply;
  try {
    reply = await api.runtime.sendMessage({ type, ...params });
  } catch (error) {
    // the extension was reloaded or updated under a content script that is still running
    throw new MnemoError("EXTENSION_RELOADED", String(error?.message ?? error));
  }
  if (!reply) throw new MnemoError("NO_REPLY", t("errorNoReply"));
  if (!reply.ok) throw new MnemoError(reply.error?.code ?? "INTERNAL", reply.error?.message);
  return reply.data;
}

// Plain words for the codes a user meets (MESSAGES.md lists them all); the code itself stays in data attributes
// and logs, never in the sentence. The set-up path for a missing host is shared/setup.js's.
const PLAIN = {
  HOST_NOT_FOUND: () => t("errorHostMissing"),
  HOST_FORBIDDEN: () => t("errorHostForbidden"),
  HOST_DISCONNECTED: () => t("errorHostStopped"),
  HOST_TIMEOUT: () => t("errorHostStopped"),
  KEYRING_UNAVAILABLE: () => t("errorKeyring"),
  EXTENSION_RELOADED: () => t("errorReloaded"),
  NO_SOURCE_TAB: () => t("errorNoSourceTab"),
  NO_SITE_TAB: () => t("errorNoSiteTab"),
  TAB_TIMEOUT: () => t("errorNoSiteTab"),
  LOGGED_OUT: () => t("errorSignedOut"),
  HTTP_401: () => t("errorSignedOut"),
  HTTP_403: () => t("errorSignedOut"),
  HTTP_429: () => t("errorSlowDown"),
  NETWORK: () => t("errorNetwork"),
  TOO_LARGE: () => t("errorTooLarge"),
  STORAGE: () => t("errorStorage"),
  API_SHAPE: () => t("errorApiShape"),
};

/** A short phrase for a code (a backup's pause or failure reason, maybe `CODE: detail`, whose detail stays in the
 * data); an unknown code reads as "something went wrong". */
export function reasonText(code) {
  const name = String(code ?? "").split(":")[0];
  return Object.hasOwn(PLAIN, name) ? PLAIN[name]() : t("errorUnknownReason");
}

/** A user-facing sentence for an error, with the fix when we know it. */
export function describeError(error) {
  if (Object.hasOwn(PLAIN, error?.code ?? "")) return reasonText(error.code);
  return t("errorGeneric", [String(error?.message ?? error)]);
}
