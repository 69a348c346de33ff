// Local outputs after a save: download a file (Blob + <a download>, no extra permission) or
// copy text to the clipboard, with the execCommand fallback for pages without focus.
(() => {
  const M = globalThis.Mnemo;

  M.download = (text, filename, mediaType) => {
    const url = URL.createObjectURL(new Blob([text], { type: mediaType || "text/plain" }));
    const { root } = M.overlay();
    const anchor = M.el("a", { href: url, download: filename, dataset: { mnemosyne: "download" } });
    root.append(anchor);
    anchor.click();
    anchor.remove();
    setTimeout(() => URL.revokeObjectURL(url), 30_000);
  };

  M.copyText = async (text) => {
    try {
      await navigator.clipboard.writeText(text);
      return true;
    } catch {
      const { root } = M.overlay();
      const area = M.el("textarea", { readonly: "" });
      area.style.position = "fixed"; // set through CSSOM: inline style attributes may be blocked by the page CSP
      area.style.left = "-9999px";
      area.value = text;
      root.append(area);
      area.select();
      const copied = document.execCommand("copy");
      area.remove();
      return copied;
    }
  };

  /** Download or copy per the user's settings, after the archive has the conversation. */
  M.afterSave = async (saved) => {
    const settings = await M.settings();
    if (settings.copyMarkdownOnExport) {
      const data = await M.send("get", { conversation_id: saved.conversation_id, format: "markdown" });
      return (await M.copyText(data.text)) ? "copied" : "copy-failed";
    }
    if (settings.downloadOnExport) {
      const format = settings.exportFormat === "json" ? "portable" : "markdown";
      const data = await M.send("get", { conversation_id: saved.conversation_id, format });
      M.download(data.text, data.filename || `${saved.conversation_id}.${data.extension || "md"}`, data.media_type);
      return "downloaded";
    }
    return null;
  };

  // Same defaults as shared/settings.js (content scripts cannot import modules; a test keeps them equal).
  const DEFAULTS = { exportFormat: "markdown", downloadOnExport: false, copyMarkdownOnExport: false,
    defaultTarget: "chatgpt", budget: 0, redact: true };
  M.settings = async () => ({ ...DEFAULTS, ...(await M.api.storage.sync.get(DEFAULTS)) });
})();
