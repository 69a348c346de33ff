// Shared namespace of this extension's content scripts (classic scripts in the isolated world,
// loaded in manifest order). Holds the runtime API, i18n, text normalisation and messaging.
(() => {
  const M = (globalThis.Mnemo = globalThis.Mnemo || {});
  M.api = globalThis.browser ?? globalThis.chrome;
  M.t = (key, substitutions) => M.api.i18n.getMessage(key, substitutions) || key;

  const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
  /** Page text may hold lone surrogates; the host rejects them, so replace them with U+FFFD. */
  M.wellFormed = (text) => {
    const value = String(text ?? "");
    return typeof value.toWellFormed === "function" ? value.toWellFormed() : value.replace(LONE_SURROGATE, "\uFFFD");
  };

  /** Normalise every string (keys too) of a JSON value, iteratively so deep trees cannot overflow. */
  M.wellFormedDeep = (value) => {
    const fix = (v) => (typeof v === "string" ? M.wellFormed(v) : v);
    const root = { v: value };
    const stack = [[root, "v"]];
    while (stack.length) {
      const [holder, key] = stack.pop();
      const current = holder[key];
      if (typeof current === "string") holder[key] = fix(current);
      else if (Array.isArray(current)) current.forEach((_, i) => stack.push([current, i]));
      else if (current && typeof current === "object") {
        const copy = {};
        for (const [k, v] of Object.entries(current)) copy[fix(k)] = v;
        holder[key] = copy;
        for (const k of Object.keys(copy)) stack.push([copy, k]);
      }
    }
    return root.v;
  };

  class MnemoError extends Error {
    constructor(code, message) {
      super(message || code);
      this.code = code;
    }
  }
  M.MnemoError = MnemoError;

  /** Ask the service worker; replies are {ok, data} | {ok:false, error:{code, message}}. */
  M.send = async (type, params = {}) => {
    let reply;
    try {
      reply = await M.api.runtime.sendMessage({ type, ...params });
    } catch (error) {
      throw new MnemoError("EXTENSION_RELOADED", String(error?.message ?? error));
    }
    if (!reply) throw new MnemoError("NO_REPLY", M.t("errorNoReply"));
    if (!reply.ok) throw new MnemoError(reply.error?.code ?? "INTERNAL", reply.error?.message);
    return reply.data;
  };

  /** A user-facing sentence for an error, with the fix when we know it. */
  M.describeError = (error) => {
    if (error?.code === "HOST_NOT_FOUND") return M.t("errorHostMissing");
    if (error?.code === "HOST_FORBIDDEN") return M.t("errorHostForbidden");
    if (error?.code === "KEYRING_UNAVAILABLE") return M.t("errorKeyring");
    if (error?.code === "EXTENSION_RELOADED") return M.t("errorReloaded");
    return M.t("errorGeneric", [String(error?.message ?? error)]);
  };

  M.siteOfHost = (host) => {
    if (host === "chatgpt.com" || host === "chat.openai.com") return "chatgpt";
    if (host === "claude.ai") return "claude";
    if (host === "gemini.google.com") return "gemini";
    return null;
  };

  /** Page-origin fetch: Firefox content scripts need content.fetch to send the page's cookies. */
  M.pageFetch = (url, init = {}) => {
    const fetcher = globalThis.content?.fetch ? globalThis.content.fetch.bind(globalThis.content) : globalThis.fetch.bind(globalThis);
    return fetcher(url, { credentials: "include", ...init });
  };

  M.readCookie = (name) => {
    for (const pair of document.cookie.split(";")) {
      const [key, ...rest] = pair.trim().split("=");
      if (key === name) return decodeURIComponent(rest.join("="));
    }
    return null;
  };

  M.sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
})();
