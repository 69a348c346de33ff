// The Export and Continue buttons, placed beside the site's conversation actions (or in a small
// floating bar when no anchor is found). Export saves to the archive, then downloads or copies
// per the user's settings, with progress and a clear result.
(() => {
  const M = globalThis.Mnemo;

  M.exportNow = async (site, button) => {
    if (button) button.disabled = true;
    try {
      M.toast("progress", M.t("toastReading"));
      const saved = await M.captureAndSave(site, (step) => step === "saving" && M.toast("progress", M.t("toastSaving")));
      const extra = await M.afterSave(saved);
      const how = saved.path === "api" ? M.t("pathApi") : M.t("pathDom");
      const lines = [M.t("toastSaved", [saved.title || M.t("untitled"), String(saved.messages), how])];
      if (saved.partial) lines.push(M.t("toastPartial"));
      if (extra === "downloaded") lines.push(M.t("toastDownloaded"));
      if (extra === "copied") lines.push(M.t("copied"));
      if (extra === "copy-failed") lines.push(M.t("copyFailed"));
      const box = M.toast("success", lines.join("\n"));
      box.dataset.conversationId = saved.conversation_id;
      box.dataset.path = saved.path;
      box.dataset.status = saved.status;
      return saved;
    } catch (error) {
      M.toastError(error);
      return null;
    } finally {
      if (button) button.disabled = false;
    }
  };

  /** Build the button bar; `floating` when it has no anchor in the page. */
  M.buildBar = (site, floating) => {
    const { host, root } = M.shadowHost(floating ? "floating-bar" : "bar");
    const exportButton = M.el("button", { type: "button", title: M.t("exportTitle"), dataset: { mnemosyne: "export" } }, [M.t("exportButton")]);
    const continueButton = M.el("button", { type: "button", title: M.t("continueTitle"), "aria-haspopup": "menu",
      dataset: { mnemosyne: "continue" } }, [M.t("continueButton")]);
    exportButton.addEventListener("click", () => M.exportNow(site, exportButton));
    continueButton.addEventListener("click", () => M.openContinueMenu(site, continueButton));
    root.append(M.el("div", { className: floating ? "bar floating" : "bar" }, [exportButton, continueButton]));
    return host;
  };
})();
