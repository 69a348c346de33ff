// Local outputs: download a file (Blob + <a download>, no extra permission) or copy text to the
// clipboard, with the execCommand fallback for pages without focus.
import { el } from "../shared/element.js";
import { overlay } from "./shadow_ui.js";

export function download(text, filename, mediaType) {
  const url = URL.createObjectURL(new Blob([text], { type: mediaType || "text/plain" }));
  const { root } = overlay();
  const anchor = el("a", { href: url, download: filename, dataset: { mnemosyne: "download" } });
  root.append(anchor);
  anchor.click();
  anchor.remove();
  setTimeout(() => URL.revokeObjectURL(url), 30_000);
}

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
