// One capture of the current conversation: the site's JSON first, the DOM sweep when that fails.
// Every result says which path produced it; all text is made well-formed before it leaves the page.
// The DOM capture's shape is host/schema/capture.schema.json (generated from the host's pydantic model).
import { t } from "../shared/api.js";
import { MnemoError } from "../shared/errors.js";
import { request } from "../shared/messages.js";
import { wellFormed, wellFormedDeep } from "../shared/text.js";
import { sweep } from "./sweep.js";
import { coverWhileReading } from "./sweep_cover.js";

function sourceUrl() {
  return `${location.origin}${location.pathname}`; // no query or fragment: they can carry tokens
}

/** The `mnemosyne.capture` payload for what the sweep read. */
export function capturePayload(site, swept) {
  const title = site.title();
  return {
    format: "mnemosyne.capture",
    version: 1,
    site: site.name,
    url: sourceUrl(),
    conversation_id: site.conversationId(),
    title: title ? wellFormed(title) : null,
    captured_at: new Date().toISOString(),
    complete: swept.complete,
    turns: swept.turns,
    warnings: swept.warnings ?? [],
  };
}

export async function capture(site, { allowApi = true, allowDom = true } = {}) {
  const id = site.conversationId();
  let apiError = null;
  if (id && allowApi) {
    try {
      const { kind, payload } = await site.fetchApi(id);
      return { kind, payload: wellFormedDeep(payload), source_url: sourceUrl(), path: "api" };
    } catch (error) {
      apiError = error; // logged out, rate limited or a changed API: read the page instead
    }
  }
  if (!allowDom) throw apiError ?? new MnemoError("NOTHING_FOUND", t("errorNoTurns"));
  const uncover = coverWhileReading(site.dom.scrollRoot());
  let swept;
  try {
    swept = await sweep(site.dom);
  } finally {
    uncover();
  }
  if (!swept.turns.length) {
    throw new MnemoError("NOTHING_FOUND", apiError ? `${apiError.message}; ${t("errorNoTurns")}` : t("errorNoTurns"));
  }
  return { kind: "capture", payload: capturePayload(site, swept), source_url: sourceUrl(), path: "dom", apiError,
    diagnostics: swept.diagnostics };
}

/**
 * Capture and save; returns the host's save reply plus the path used. `options`: those of capture, and
 * `export`: what an Export click copies or downloads ({to, format, redact}), done by the worker from the save's
 * reply (its `delivered` says what it did).
 * @param {(step: "reading" | "saving") => unknown} [onStep]
 * @param {{allowApi?: boolean, allowDom?: boolean, export?: {to: string, format: string, redact: boolean} | null}} [options]
 */
export async function captureAndSave(site, onStep = () => {}, options = {}) {
  onStep("reading");
  const captured = await capture(site, options);
  onStep("saving");
  const message = { kind: captured.kind, payload: captured.payload, source_url: captured.source_url };
  const saved = await request("save", options.export ? { ...message, export: options.export } : message);
  return { ...saved, path: captured.path };
}
