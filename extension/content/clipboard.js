// Copy text to the clipboard from a content script, with the execCommand fallback for pages without focus.
import { el } from "../shared/element.js";
import { overlay } from "./shadow_ui.js";

export async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const { root } = overlay();
    const area = el("textarea", { readonly: "" });
    area.style.position = "fixed"; // set through CSSOM: inline style attributes may be blocked by the page CSP
    area.style.left = "-9999px";
    area.value = text;
    root.append(area);
    area.select();
    const copied = document.execCommand("copy");
    area.remove();
    return copied;
  }
}
