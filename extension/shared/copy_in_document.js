// Copy text with a textarea and execCommand("copy") in an extension-owned document (the Chromium offscreen
// document, or Firefox's background page): neither has focus, so the async Clipboard API is refused there,
// and no web page can see this document's DOM, selection or copy event.
export function copyInDocument(doc, text) {
  const area = doc.createElement("textarea");
  area.value = text;
  doc.body.append(area);
  try {
    area.select();
    return doc.execCommand("copy");
  } finally {
    area.remove();
  }
}
