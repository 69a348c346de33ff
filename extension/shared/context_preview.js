// The preview shown before a context is filled or copied: the host's context report as sent (host/PROTOCOL.md
// `context`: token count against the budget, how many messages were kept, compressed and left out, how many
// secrets were redacted) and the start of the text. Used by the view page and the page's "Continue in…" panel.
import { t } from "./api.js";
import { el } from "./element.js";

const sum = (counts) => Object.values(counts ?? {}).reduce((total, n) => total + (Number(n) || 0), 0);

/** context: the `context` message's reply ({report, preview, ...}). */
export function previewNodes(context) {
  const report = context.report ?? {};
  const counts = report.counts ?? {};
  const approx = report.estimate ? "≈" : "";
  const tokens = el("p", { className: "tokens", dataset: { mnemosyne: "preview-tokens", tokens: String(report.tokens ?? "") } }, [
    t("previewTokens", [`${approx}${report.tokens ?? "?"}`, String(report.budget ?? "?"), String(report.tokenizer ?? "")]),
  ]);
  const summary = el("p", { className: "summary", dataset: { mnemosyne: "preview-summary" }, text: t("previewSummary", [
    String(counts.kept ?? 0), String(counts.compressed ?? 0), String(counts.dropped ?? 0), String(sum(report.redactions)),
  ]) });
  const text = el("pre", { className: "preview-text", text: String(context.preview ?? "") });
  return [tokens, summary, text];
}
