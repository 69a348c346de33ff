// Shadow-DOM containers for the injected UI, so the site's CSS cannot reach our elements and ours cannot
// leak into the site. Page and transcript text never pass through an HTML parser (shared/element.js).
import { el } from "../shared/element.js";
import { UI_CSS } from "./ui_style.js";

let sheet = null;
let overlayParts = null;

function styleSheet() {
  if (!sheet) {
    sheet = new CSSStyleSheet();
    sheet.replaceSync(UI_CSS);
  }
  return sheet;
}

/** A host element with an open shadow root carrying our stylesheet. */
export function shadowHost(name) {
  const host = document.createElement("mnemosyne-ui");
  host.setAttribute("data-mnemosyne-host", name);
  const root = host.attachShadow({ mode: "open" });
  root.adoptedStyleSheets = [styleSheet()];
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
