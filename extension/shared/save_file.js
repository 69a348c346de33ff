// Save bytes the library built (a zip) as a file: Blob + <a download> on this extension page. Text exports
// go through the worker's downloads API (background/download.js); a zip is assembled here, in the
// extension's own page, so no web page ever sees it.
import { el } from "./element.js";

export function saveFile(bytes, filename, mediaType) {
  const url = URL.createObjectURL(new Blob([bytes], { type: mediaType }));
  const anchor = el("a", { href: url, download: filename, dataset: { mnemosyne: "download" } });
  document.body.append(anchor);
  anchor.click();
  anchor.remove();
  setTimeout(() => URL.revokeObjectURL(url), 30_000);
}
