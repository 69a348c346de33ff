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

/** A user-facing sentence for an error, with the fix when we know it. */
export function describeError(error) {
  if (error?.code === "HOST_NOT_FOUND") return t("errorHostMissing");
  if (error?.code === "HOST_FORBIDDEN") return t("errorHostForbidden");
  if (error?.code === "KEYRING_UNAVAILABLE") return t("errorKeyring");
  if (error?.code === "EXTENSION_RELOADED") return t("errorReloaded");
  return t("errorGeneric", [String(error?.message ?? error)]);
}
