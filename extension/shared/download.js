// Save text as a file: Blob + <a download>, no downloads permission needed. `parent` holds the link for the
// click (a content script passes its shadow root, so the page's own scripts never see it).
import { el } from "./element.js";

export function download(text, filename, mediaType, parent = document.body) {
  const url = URL.createObjectURL(new Blob([text], { type: mediaType || "text/plain" }));
  const anchor = el("a", { href: url, download: filename, dataset: { mnemosyne: "download" } });
  parent.append(anchor);
  anchor.click();
  anchor.remove();
  setTimeout(() => URL.revokeObjectURL(url), 30_000);
}
