// DOM helpers for extension pages. Everything goes through createElement + textContent:
// transcript text is never parsed as HTML.
import { api, t } from "./api.js";

export function el(tag, props = {}, children = []) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null) continue;
    if (key === "text") node.textContent = String(value);
    else if (key === "className") node.className = value;
    else if (key === "dataset") Object.assign(node.dataset, value);
    else if (key === "on") for (const [type, handler] of Object.entries(value)) node.addEventListener(type, handler);
    else if (key.startsWith("on")) throw new Error(`use props.on for ${key}`);
    else node.setAttribute(key, String(value));
  }
  for (const child of [].concat(children)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return node;
}

/** Fill every [data-i18n] element's text (and [data-i18n-placeholder]) from _locales. */
export function localize(root = document) {
  for (const node of root.querySelectorAll("[data-i18n]")) node.textContent = t(node.dataset.i18n);
  for (const node of root.querySelectorAll("[data-i18n-placeholder]")) {
    node.setAttribute("placeholder", t(node.dataset.i18nPlaceholder));
  }
  for (const node of root.querySelectorAll("[data-i18n-title]")) node.setAttribute("title", t(node.dataset.i18nTitle));
  document.documentElement.lang = api.i18n.getUILanguage();
}

export function siteIcon(site) {
  const known = ["chatgpt", "claude"].includes(site) ? site : "other";
  return el("img", { src: `../icons/site-${known}.png`, alt: site || "", className: "site-icon", width: 16, height: 16 });
}

export function formatDate(iso) {
  if (!iso) return "";
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return String(iso);
  return date.toLocaleString(api.i18n.getUILanguage(), { dateStyle: "medium", timeStyle: "short" });
}

/** Render "before «match» after" snippets: markers become <mark> nodes built by hand. */
export function snippetNodes(snippet) {
  const nodes = [];
  const parts = String(snippet ?? "").split(/(«[^»]*»)/);
  for (const part of parts) {
    if (!part) continue;
    if (part.startsWith("«") && part.endsWith("»")) nodes.push(el("mark", { text: part.slice(1, -1) }));
    else nodes.push(document.createTextNode(part));
  }
  return nodes;
}
