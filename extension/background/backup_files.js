// The files a saved conversation refers to (uploads and generated images), and where the site serves each, so a
// backup can download them within the user's size cap and store them with the host's `save-attachment`.
// ChatGPT: image parts' `asset_pointer` (file-service://file-…, sediment://file_…) and `metadata.attachments`,
// served through /backend-api/files/download/{id} (docs/sites.md); Claude: messages' `files_v2` / `files` with
// same-origin `document_asset` / `preview_asset` URLs.

const FILE_ID = /(file[-_][A-Za-z0-9]+)/;
const enc = encodeURIComponent;

/** A pointer part's file type: images (uploads, generated), voice replies (`audio_asset_pointer`), videos. */
function pointerType(part) {
  const format = typeof part.format === "string" && /^[a-z0-9]{1,8}$/.test(part.format) ? part.format : null;
  if (part.content_type === "audio_asset_pointer") return { ext: format ?? "wav", mime: `audio/${format ?? "wav"}` };
  if (part.content_type === "video_asset_pointer") return { ext: format ?? "mp4", mime: `video/${format ?? "mp4"}` };
  return { ext: "png", mime: "image/png" };
}

function chatgptFiles(payload) {
  const found = new Map();
  for (const node of Object.values(payload.mapping ?? {})) {
    const message = node?.message;
    if (!message) continue;
    for (const part of message.content?.parts ?? []) {
      const pointer = typeof part?.asset_pointer === "string" ? part.asset_pointer : null;
      const id = pointer?.match(FILE_ID)?.[1];
      if (id && !found.has(id)) {
        const { ext, mime } = pointerType(part);
        found.set(id, { fileId: pointer, id, name: `${id}.${ext}`, mime, size: Number.isFinite(part.size_bytes) ? part.size_bytes : null });
      }
    }
    for (const attachment of message.metadata?.attachments ?? []) {
      const id = typeof attachment?.id === "string" ? attachment.id : null;
      if (!id) continue;
      // an upload is both an image part (its pointer) and an attachment (its real name, type and size)
      const known = found.get(id);
      found.set(id, { fileId: known?.fileId ?? id, id, name: attachment.name || known?.name || id,
        mime: attachment.mime_type || known?.mime || "application/octet-stream",
        size: Number.isFinite(attachment.size) ? attachment.size : (known?.size ?? null) });
    }
  }
  return [...found.values()].map((file) => ({ ...file, path: `/backend-api/files/download/${enc(file.id)}?post_id=&inline=false` }));
}

function claudeFiles(payload) {
  const found = new Map();
  for (const message of payload.chat_messages ?? []) {
    for (const file of [...(message?.files_v2 ?? []), ...(message?.files ?? [])]) {
      const id = file?.file_uuid ?? file?.uuid;
      const url = file?.document_asset?.url ?? file?.preview_asset?.url ?? null;
      if (typeof id !== "string" || typeof url !== "string" || !url.startsWith("/api/") || found.has(id)) continue;
      found.set(id, { fileId: id, id, name: file.file_name || id, mime: file.document_asset?.file_type || null, size: null, path: url });
    }
  }
  return [...found.values()];
}

/** `[{fileId, id, name, mime, size, path}]`: what to download for a conversation reply, once per file. */
export function filesOf(site, payload) {
  if (!payload || typeof payload !== "object" || !["chatgpt", "claude"].includes(site)) return []; // others: not downloaded
  return site === "claude" ? claudeFiles(payload) : chatgptFiles(payload);
}
