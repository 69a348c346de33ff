// Attachments the archive holds (a backup downloaded them; the part carries their `sha256`): images are shown
// inline, other files can be saved. The bytes come from the host through the worker (`attachment-get`, extension
// pages only) and never leave this extension page; images are shown as data: URLs (the pages' CSP allows
// `img-src data:`), and only raster types a browser decodes safely: never SVG, which can carry script.
import { t } from "./api.js";
import { el } from "./dom.js";
import { request } from "./messages.js";
import { saveFile } from "./save_file.js";

const SHA256 = /^[0-9a-f]{64}$/;
const INLINE_IMAGES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp", "image/avif", "image/bmp"]);

function label(part) {
  return `📎 ${part.name || part.asset_pointer || ""} (${part.kind})`;
}

function bytesOf(base64) {
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

function saveButton(part, sha256) {
  const button = el("button", { type: "button", className: "attachment-save", dataset: { mnemosyne: "attachment-save" },
    text: t("attachmentSave") });
  button.addEventListener("click", async () => {
    button.disabled = true;
    try {
      const file = await request("attachment-get", { sha256 });
      saveFile(bytesOf(file.text), file.name || part.name || `${sha256.slice(0, 12)}.bin`, file.mime || "application/octet-stream");
    } catch (error) {
      button.after(el("span", { className: "attachment-error", text: t("attachmentUnavailable") }));
      console.warn("attachment", error);
    } finally {
      button.disabled = false;
    }
  });
  return button;
}

async function showImage(node, part, sha256) {
  try {
    const file = await request("attachment-get", { sha256 });
    if (!INLINE_IMAGES.has(String(file.mime).toLowerCase())) {
      node.append(saveButton(part, sha256));
      return;
    }
    node.append(el("img", { className: "attachment-image", src: `data:${file.mime};base64,${file.text}`,
      alt: part.name || "", dataset: { mnemosyne: "attachment-image" } }));
  } catch (error) {
    node.append(el("span", { className: "attachment-error", text: t("attachmentUnavailable") }));
    console.warn("attachment", error);
  }
}

/** An attachment part: its name, plus the image or a save button when the archive holds its bytes. */
export function attachmentNode(part) {
  const node = el("div", { className: "attachment", dataset: { mnemosyne: "attachment" } }, [el("span", { text: label(part) })]);
  const sha256 = typeof part.sha256 === "string" && SHA256.test(part.sha256) ? part.sha256 : null;
  if (!sha256) return node;
  node.dataset.sha256 = sha256;
  if (part.kind === "image") showImage(node, part, sha256);
  else node.append(saveButton(part, sha256));
  return node;
}
