// Renders a portable conversation (mnemosyne.conversation) as DOM nodes. A user's own words are shown as
// typed (textContent, as the sites do); the assistant's Markdown goes through shared/render.js (sanitized).
// The only links are http(s), opened in a new tab with noopener noreferrer.
import { t } from "./api.js";
import { el, formatDate } from "./dom.js";
import { markdownFragment, highlightedCode } from "./render.js";
import { attachmentNode } from "./attachments.js";
import { icon } from "./icons.js";
import { footnotes, linkCitations, markCitations, noteIdsFor, numberSources, safeHref } from "./citations.js";

export { safeHref };

/**
 * The messages of the active branch, root first (the tree's other branches stay in the archive).
 * The host's rule (mnemosyne/tree.py path_to): the active leaf, else the last message no one answers.
 */
export function activePath(conversation) {
  const byId = new Map(conversation.messages.map((message) => [message.id, message]));
  let leaf = conversation.active_leaf && byId.get(conversation.active_leaf);
  if (!leaf) {
    const parents = new Set(conversation.messages.map((message) => message.parent));
    leaf = conversation.messages.filter((message) => !parents.has(message.id)).at(-1);
  }
  const path = [];
  const seen = new Set();
  for (let node = leaf; node && !seen.has(node.id); node = byId.get(node.parent)) {
    seen.add(node.id);
    path.push(node);
  }
  return path.reverse();
}

/** Plain text with ``` fences shown as code blocks; everything else as pre-wrapped paragraphs. */
function textBlocks(text) {
  const nodes = [];
  const pieces = String(text).split(/^(```[^\n]*\n[\s\S]*?\n```)\s*$/m);
  for (const piece of pieces) {
    if (!piece.trim()) continue;
    const fence = piece.match(/^```([^\n]*)\n([\s\S]*?)\n```$/);
    if (fence) nodes.push(codeBlock(fence[2], fence[1].trim()));
    else nodes.push(el("div", { className: "text", text: piece.trim() }));
  }
  return nodes;
}

/** A code block's head: its language (or "code") and a Copy button that copies the code as written. */
function codeHead(language, code) {
  const copy = el("button", { type: "button", className: "code-copy", dataset: { mnemosyne: "copy-code" } }, [icon("copy", 14), t("codeCopy")]);
  copy.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(code());
      copy.replaceChildren(icon("check", 14), t("codeCopied"));
    } catch {
      copy.replaceChildren(t("copyFailed"));
    }
  });
  return el("div", { className: "code-head" }, [el("span", { className: "code-language", text: language || t("codeLabel") }), copy]);
}

function codeBlock(code, language) {
  return el("figure", { className: "code" }, [codeHead(language, () => code), highlightedCode(code, language)]);
}

/** Markdown for what the assistant wrote; the user's text as typed. Fenced code gets the same head. */
function prose(text, markdown) {
  if (!markdown) return textBlocks(text);
  const box = el("div", { className: "markdown" }, [markdownFragment(text)]);
  for (const pre of box.querySelectorAll("pre")) {
    const code = pre.querySelector("code");
    const language = [...(code?.classList ?? [])].find((name) => name.startsWith("language-"))?.slice(9) ?? "";
    pre.before(codeHead(language, () => pre.textContent));
  }
  return [box];
}

function details(summary, body, className) {
  return el("details", { className }, [el("summary", { text: summary }), ...[].concat(body)]);
}

function link(title, url) {
  const href = safeHref(url);
  const label = title || url || "";
  if (!href) return el("span", { text: label });
  return el("a", { href, target: "_blank", rel: "noopener noreferrer", text: label });
}

/** A part's text with its sources: the numbers in the text where the site cited them, the list under it. */
function citedProse(part, markdown, site) {
  const { sources, numberOf } = numberSources(part.citations);
  if (!sources.length) return prose(part.text, markdown);
  const noteIds = noteIdsFor(sources);
  const marked = markCitations(String(part.text ?? ""), part.citations, numberOf, site);
  const nodes = prose(marked.text, markdown);
  for (const node of nodes) linkCitations(node, marked.token, sources, noteIds);
  return [...nodes, footnotes(sources, noteIds)];
}

/** Footnotes only: where a part's text is not prose (a tool's output). */
function sourceList(citations) {
  const { sources } = numberSources(citations);
  return footnotes(sources, noteIdsFor(sources));
}

function stringify(value) {
  if (typeof value === "string") return value;
  try {
    return JSON.stringify(value, null, 2);
  } catch {
    return String(value);
  }
}

const PART_RENDERERS = {
  text: (part, markdown, site) => citedProse(part, markdown, site),
  code: (part) => codeBlock(part.code, part.language),
  code_output: (part) => details(t("partOutput"), el("pre", { text: part.text }), "output"),
  attachment: (part) => attachmentNode(part),
  tool_call: (part) => details(t("partToolCall", [part.name]), el("pre", { text: stringify(part.arguments) }), "tool"),
  tool_result: (part) => details(t("partToolResult", [part.name || ""]), [el("pre", { text: part.output }), sourceList(part.citations)], "tool"),
  reasoning: (part) => details(part.summary || t("partReasoning"), prose(part.text, true), "reasoning"),
  citation: (part) => el("div", { className: "citation" }, [link(part.title, part.url), part.text ? el("q", { text: part.text }) : null]),
  artifact: (part) => details(part.title || t("partArtifact"), codeBlock(part.content, part.language), "artifact"),
  system_error: (part) => el("div", { className: "system-error", text: part.text }),
  unknown: (part) => el("div", { className: "unknown", text: t("partUnknown", [String(part.source_type)]) }),
};

// A message's text before it is formatted (a long transcript's messages off the first screen): the same
// words, unformatted, so the page shows and find-in-page finds them while the formatting happens in idle time.
const PLAIN_RENDERERS = {
  text: (part) => el("div", { className: "text", text: part.text }),
  code: (part) => el("pre", { className: "code", text: part.code }),
  reasoning: (part) => details(part.summary || t("partReasoning"), el("div", { className: "text", text: part.text }), "reasoning"),
  artifact: (part) => details(part.title || t("partArtifact"), el("pre", { text: part.content }), "artifact"),
};

// Steps of an assistant's work (its reasoning, tool calls and their results, code it ran) fold into one
// collapsed line under the turn, as the sites show them, instead of standing as messages of their own.
const STEP_PARTS = new Set(["reasoning", "tool_call", "tool_result", "code", "code_output"]);
const STEP_RENDERERS = {
  reasoning: (part, plain) => (plain ? el("div", { className: "text", text: part.text }) : prose(part.text, true)),
  tool_call: (part) => el("pre", { text: stringify(part.arguments) }),
  tool_result: (part) => [el("pre", { text: part.output }), sourceList(part.citations)],
  code: (part, plain) => (plain ? el("pre", { className: "code", text: part.code }) : codeBlock(part.code, part.language)),
  code_output: (part) => el("pre", { text: part.text }),
};

/** A message that is a step of the assistant's work: a tool's message, or an assistant's with only step parts. */
export function isStep(message) {
  const parts = message.parts ?? [];
  if (message.role === "tool") return parts.every((part) => STEP_PARTS.has(part.type) || part.type === "text");
  return message.role === "assistant" && parts.length > 0 && parts.every((part) => STEP_PARTS.has(part.type));
}

function stepName(part) {
  if (part.type === "reasoning") return part.summary || t("partReasoning");
  if (part.type === "tool_call") return t("partToolCall", [part.name]);
  if (part.type === "tool_result") return t("partToolResult", [part.name || ""]);
  if (part.type === "code") return t("stepCode");
  if (part.type === "code_output") return t("partOutput");
  return t("partToolResult", [""]);
}

function renderStep(message, plain, dataset) {
  const parts = message.parts ?? [];
  const names = [...new Set(parts.map(stepName))];
  const body = parts.flatMap((part) => [].concat(Object.hasOwn(STEP_RENDERERS, part.type)
    ? STEP_RENDERERS[part.type](part, plain) : el("pre", { text: String(part.text ?? "") })));
  return el("article", { className: `message step role-${message.role}`, dataset: { ...dataset, step: "true" } }, [
    el("header", {}),
    details(names.join(" · "), body, "step-details"),
  ]);
}

const ROLE_KEYS = { user: "roleUser", assistant: "roleAssistant", system: "roleSystem", tool: "roleTool" };

/** One message as an <article>; `plain`: its text unformatted (data-formatted="false"), cheap to build;
 * `site`: the conversation's (where its citations' numbers go: shared/citations.js). */
export function renderMessage(message, { plain = false, site = null } = {}) {
  if (isStep(message)) return renderStep(message, plain, { role: message.role, formatted: String(!plain) });
  const header = el("header", {}, [
    el("strong", { text: ROLE_KEYS[message.role] ? t(ROLE_KEYS[message.role]) : String(message.role) }),
    message.author ? el("span", { className: "author", text: message.author }) : null,
    message.model ? el("span", { className: "model", text: message.model }) : null,
    message.created_at ? el("time", { text: formatDate(message.created_at) }) : null,
  ]);
  const body = [];
  for (const part of message.parts ?? []) {
    const render = plain && Object.hasOwn(PLAIN_RENDERERS, part.type) ? PLAIN_RENDERERS[part.type]
      : Object.hasOwn(PART_RENDERERS, part.type) ? PART_RENDERERS[part.type] : PART_RENDERERS.unknown;
    body.push(...[].concat(render(part, message.role !== "user", site)));
  }
  const dataset = { role: message.role, formatted: String(!plain) };
  return el("article", { className: `message role-${message.role}`, dataset }, [header, ...body]);
}
