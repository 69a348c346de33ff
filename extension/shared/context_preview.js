// The preview shown before a context is filled or copied: the host's context report as sent (token
// count against the budget; what was kept, compressed, dropped and redacted) and the start of the text.
// Used by the view page and the page's "Continue in…" panel.
import { t } from "./api.js";
import { el } from "./element.js";

function count(value) {
  if (Array.isArray(value)) return value.length;
  if (value && typeof value === "object") return Object.values(value).reduce((sum, v) => sum + (Number(v) || 0), 0);
  return Number(value) || 0;
}

function describeDropped(entry) {
  if (typeof entry !== "object" || entry === null) return String(entry);
  return [entry.role, entry.kind ?? entry.type, entry.reason, entry.summary ?? entry.text].filter(Boolean).join(" · ");
}

/** context: the `context` message's reply ({report, preview, ...}). */
export function previewNodes(context) {
  const report = context.report ?? {};
  const approx = report.estimate ? "≈" : "";
  const tokens = el("p", { className: "tokens", dataset: { mnemosyne: "preview-tokens", tokens: String(report.tokens ?? "") } }, [
    t("previewTokens", [`${approx}${report.tokens ?? "?"}`, String(report.budget ?? "?"), String(report.tokenizer ?? "")]),
  ]);
  const summary = el("p", { className: "summary", text: t("previewSummary", [
    String(count(report.kept)), String(count(report.compressed)), String(count(report.dropped)), String(count(report.redactions)),
  ]) });
  const dropped = Array.isArray(report.dropped) && report.dropped.length
    ? el("ul", { className: "dropped" }, report.dropped.slice(0, 12).map((entry) => el("li", { text: describeDropped(entry) })))
    : null;
  const text = el("pre", { className: "preview-text", text: String(context.preview ?? "") });
  return [tokens, summary, dropped, text];
}
