// The preview shown before a context is filled or copied: the host's context report as sent (host/PROTOCOL.md
// `context`: token count against the budget, how many messages were kept, compressed and left out, how many
// secrets were redacted) as a meter and a line, then the start of the text: the conversation first, and the
// instructions the host wraps around it folded under it. Used by the view page and the preview window.
import { t } from "./api.js";
import { el } from "./element.js";

const sum = (counts) => Object.values(counts ?? {}).reduce((total, n) => total + (Number(n) || 0), 0);

/**
 * The preview text as {conversation, wrapper}: the lines between the host's transcript markers, and the rest
 * (its safety header and closing). A text without the markers is all conversation. Nothing is dropped: every
 * line is in one of the two.
 */
export function splitPreview(text) {
  const lines = String(text ?? "").split("\n");
  const begin = lines.findIndex((line) => /BEGIN TRANSCRIPT/.test(line));
  if (begin < 0) return { conversation: lines.join("\n"), wrapper: "" };
  const after = lines.slice(begin + 1);
  const end = after.findIndex((line) => /END TRANSCRIPT/.test(line));
  const conversation = end < 0 ? after : after.slice(0, end);
  const wrapper = [...lines.slice(0, begin + 1), ...(end < 0 ? [] : after.slice(end))].filter((line) => line.trim());
  return { conversation: conversation.join("\n"), wrapper: wrapper.join("\n") };
}

/** context: the `context` message's reply ({report, preview, ...}). */
export function previewNodes(context) {
  const report = context.report ?? {};
  const counts = report.counts ?? {};
  const approx = report.estimate ? "≈" : "";
  const budget = Number(report.budget) || 0;
  const used = Number(report.tokens) || 0;
  const meter = budget ? el("meter", { className: "token-meter", min: "0", max: String(budget), value: String(Math.min(used, budget)),
    high: String(Math.round(budget * 0.9)), "aria-label": t("previewMeterLabel"), dataset: { mnemosyne: "preview-meter" } }) : null;
  const tokens = el("p", { className: "tokens", dataset: { mnemosyne: "preview-tokens", tokens: String(report.tokens ?? "") } }, [
    t("previewTokens", [`${approx}${report.tokens ?? "?"}`, String(report.budget ?? "?"), String(report.tokenizer ?? "")]),
  ]);
  const summary = el("p", { className: "summary", dataset: { mnemosyne: "preview-summary" }, text: t("previewSummary", [
    String(counts.kept ?? 0), String(counts.compressed ?? 0), String(counts.dropped ?? 0), String(sum(report.redactions)),
  ]) });
  const { conversation, wrapper } = splitPreview(context.preview);
  const text = el("pre", { className: "preview-text", dataset: { mnemosyne: "preview-text" }, text: conversation });
  const wrapped = wrapper ? el("details", { className: "preview-wrapper", dataset: { mnemosyne: "preview-wrapper" } }, [
    el("summary", { text: t("previewWrapper") }),
    el("pre", { className: "preview-wrapper-text", text: wrapper }),
  ]) : null;
  return [meter, tokens, summary, text, wrapped].filter(Boolean);
}
