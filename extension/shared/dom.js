// DOM helpers for extension pages. Everything goes through createElement + textContent:
// transcript text is never parsed as HTML.
import { api, t } from "./api.js";
import { el } from "./element.js";

export { el };

/**
 * Fill every [data-i18n] element's text (and [data-i18n-placeholder]) from _locales.
 * @param {ParentNode} [root]
 */
export function localize(root = document) {
  /** @param {string} selector */
  const marked = (selector) => /** @type {NodeListOf<HTMLElement>} */ (root.querySelectorAll(selector));
  for (const node of marked("[data-i18n]")) node.textContent = t(node.dataset.i18n);
  for (const node of marked("[data-i18n-placeholder]")) {
    node.setAttribute("placeholder", t(node.dataset.i18nPlaceholder));
  }
  for (const node of marked("[data-i18n-title]")) node.setAttribute("title", t(node.dataset.i18nTitle));
  document.documentElement.lang = api.i18n.getUILanguage();
}

export function siteIcon(site) {
  const known = ["chatgpt", "claude"].includes(site) ? site : "other";
  return el("img", { src: `../icons/site-${known}.png`, alt: site || "", className: "site-icon", width: 16, height: 16 });
}

let dateFormat = null; // one formatter: toLocaleString builds a new one per call (5% of a long view's render)

export function formatDate(iso) {
  if (!iso) return "";
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return String(iso);
  dateFormat ??= new Intl.DateTimeFormat(api.i18n.getUILanguage(), { dateStyle: "medium", timeStyle: "short" });
  return dateFormat.format(date);
}

/** A list entry's title; an untitled one shows the start of its first message (the host's `first_words`), marked
 *  as such, so untitled conversations can be told apart. */
export function titleNode(entry, className) {
  if (entry.title) return el("span", { className, text: entry.title });
  if (entry.first_words) {
    return el("span", { className: `${className} derived-title`, title: t("untitledFirstWords"), dataset: { derived: "true" },
      text: entry.first_words });
  }
  return el("span", { className, text: t("untitled") });
}

/**
 * A snippet's Markdown as the plain words a reader sees: no emphasis marks, heading hashes, table pipes,
 * code fences, list bullets or link brackets (the words and the link text stay).
 */
export function plainSnippet(text) {
  return String(text ?? "")
    .replace(/```[^\s`]*/g, " ")
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/(^|\s)#{1,6}\s+/g, "$1")
    .replace(/(\*\*|__|~~|`)/g, "")
    .replace(/(^|\s)[*_](\S)/g, "$1$2")
    .replace(/(\S)[*_](?=\s|$|[.,;:!?»])/g, "$1")
    .replace(/\s*\|\s*(:?-{3,}:?\s*\|?\s*)*/g, " · ")
    .replace(/(^|\n)[ \t]*(?:[-*+]|\d+\.)[ \t]+/g, "$1")
    .replace(/(?: · ){2,}/g, " · ")
    .replace(/\s+/g, " ")
    .trim()
    .replace(/^· | ·$/g, "");
}

/** Render "before «match» after" snippets as plain text: markers become <mark> nodes built by hand. */
export function snippetNodes(snippet) {
  const nodes = [];
  const parts = plainSnippet(snippet).split(/(«[^»]*»)/);
  for (const part of parts) {
    if (!part) continue;
    if (part.startsWith("«") && part.endsWith("»")) nodes.push(el("mark", { text: part.slice(1, -1) }));
    else nodes.push(document.createTextNode(part));
  }
  return nodes;
}
