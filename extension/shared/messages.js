// Extension pages talk to the service worker with {type, ...}; replies are {ok, data} or {ok:false, error}.
import { api, t } from "./api.js";

export class RequestError extends Error {
  constructor(code, message) {
    super(message || code);
    this.code = code;
  }
}

export async function request(type, params = {}) {
  const reply = await api.runtime.sendMessage({ type, ...params });
  if (!reply) throw new RequestError("NO_REPLY", t("errorNoReply"));
  if (!reply.ok) throw new RequestError(reply.error?.code ?? "INTERNAL", reply.error?.message);
  return reply.data;
}

/** A user-facing sentence for an error, with the fix when we know it. */
export function describeError(error) {
  if (error?.code === "HOST_NOT_FOUND") return t("errorHostMissing");
  if (error?.code === "HOST_FORBIDDEN") return t("errorHostForbidden");
  if (error?.code === "KEYRING_UNAVAILABLE") return t("errorKeyring");
  return t("errorGeneric", [String(error?.message ?? error)]);
}
