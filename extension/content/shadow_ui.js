// Shadow-DOM containers for the injected UI, so the site's CSS cannot reach our elements and ours cannot
// leak into the site. The roots are CLOSED: the page's scripts (an XSS on the site, another extension's
// content script) get null from `host.shadowRoot` and cannot read, rewrite or click what is inside; only
// this content script holds the root. Every action listens through onTrusted(), so an event the page
// synthesises (`dispatchEvent`, `.click()`) does nothing. Page and transcript text never pass through an
// HTML parser (shared/element.js).
import { el } from "../shared/element.js";
import { UI_CSS } from "./ui_style.js";

let sheet = null;
let overlayParts = null;
const hosts = new Set(); // every host element we made, to re-theme when the site switches light/dark
let themeWatch = null;

/**
 * Whether the site shows its dark theme: ChatGPT and Claude put a "dark" class (or a data attribute / the
 * CSS color-scheme) on <html> when the user picks dark, and follow the system setting otherwise.
 */
export function siteTheme() {
  const root = document.documentElement;
  const marked = `${root.className} ${root.dataset.theme ?? ""} ${root.dataset.mode ?? ""}`.toLowerCase();
  if (/\bdark\b/.test(marked)) return "dark";
  if (/\blight\b/.test(marked)) return "light";
  const scheme = getComputedStyle(root).colorScheme || "";
  if (scheme.trim() === "dark") return "dark";
  if (scheme.trim() === "light") return "light";
  return matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
}

function applyTheme() {
  const theme = siteTheme();
  for (const host of hosts) {
    if (host.getAttribute("data-theme") !== theme) host.setAttribute("data-theme", theme);
  }
}

function watchTheme() {
  if (themeWatch) return;
  themeWatch = new MutationObserver(applyTheme);
  themeWatch.observe(document.documentElement, { attributes: true, attributeFilter: ["class", "style", "data-theme", "data-mode"] });
  matchMedia("(prefers-color-scheme: dark)").addEventListener("change", applyTheme);
}

function styleSheet() {
  if (!sheet) {
    sheet = new CSSStyleSheet();
    sheet.replaceSync(UI_CSS);
  }
  return sheet;
}

/** A host element with a closed shadow root carrying our stylesheet; the root is returned, never exposed. */
export function shadowHost(name) {
  const host = document.createElement("mnemosyne-ui");
  host.setAttribute("data-mnemosyne-host", name);
  const root = host.attachShadow({ mode: "closed" });
  root.adoptedStyleSheets = [styleSheet()];
  host.setAttribute("data-theme", siteTheme());
  hosts.add(host);
  watchTheme();
  return { host, root };
}

/** The full-viewport overlay (toasts, menus, previews), created once per page. */
export function overlay() {
  if (overlayParts?.host.isConnected) return overlayParts;
  const { host, root } = shadowHost("overlay");
  const layer = el("div", { className: "overlay" });
  root.append(layer);
  document.documentElement.append(host);
  overlayParts = { host, root, layer };
  return overlayParts;
}

/** Listen for `type` on `node`, ignoring events the page made up (a script's click is not the user's). */
export function onTrusted(node, type, handler) {
  node.addEventListener(type, (event) => {
    if (event.isTrusted) handler(event);
  });
  return node;
}
