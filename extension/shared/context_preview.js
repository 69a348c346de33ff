// The preview shown before a context is filled or copied: token count against the budget and
// what the host kept, compressed, dropped and redacted. Used by the view page.
import { t } from "./api.js";
import { el } from "./dom.js";

function count(value) {
  if (Array.isArray(value)) return value.length;
  if (value && typeof value === "object") return Object.values(value).reduce((sum, v) => sum + (Number(v) || 0), 0);
  return Number(value) || 0;
}

function describeDropped(entry) {
  if (typeof entry !== "object" || entry === null) return String(entry);
  return [entry.role, entry.kind ?? entry.type, entry.reason, entry.summary ?? entry.text].filter(Boolean).join(" · ");
}

export function previewNodes(context) {
  const approx = context.estimate ? "≈" : "";
  const tokens = el("p", { className: "tokens", dataset: { tokens: String(context.tokens ?? "") } }, [
    t("previewTokens", [`${approx}${context.tokens ?? "?"}`, String(context.budget ?? "?"), String(context.tokenizer ?? "")]),
  ]);
  const summary = el("p", { className: "summary", text: t("previewSummary", [
    String(count(context.kept)), String(count(context.compressed)), String(count(context.dropped)), String(count(context.redactions)),
  ]) });
  const dropped = Array.isArray(context.dropped) && context.dropped.length
    ? el("ul", { className: "dropped" }, context.dropped.slice(0, 12).map((entry) => el("li", { text: describeDropped(entry) })))
    : null;
  const text = el("pre", { className: "preview-text", text: String(context.text ?? "").slice(0, 4000) });
  return [tokens, summary, dropped, text];
}
