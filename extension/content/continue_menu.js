// "Continue in…": a menu of targets; choosing one saves the conversation, asks the host for a
// context trimmed to that target, and shows a preview (tokens, what was left out) before the
// user fills the target's composer in a new tab or copies the text.
(() => {
  const M = globalThis.Mnemo;
  let targetsCache = null;

  async function targets() {
    if (!targetsCache) targetsCache = (await M.send("continue-targets")).targets;
    return targetsCache;
  }

  function closeMenus() {
    M.overlay().layer.querySelectorAll(".menu, .panel").forEach((node) => node.remove());
  }

  function count(value) {
    if (Array.isArray(value)) return value.length;
    if (value && typeof value === "object") return Object.values(value).reduce((sum, v) => sum + (Number(v) || 0), 0);
    return Number(value) || 0;
  }

  function describe(entry) {
    if (typeof entry !== "object" || entry === null) return String(entry);
    return [entry.role, entry.kind ?? entry.type, entry.reason, entry.summary ?? entry.text].filter(Boolean).join(" · ");
  }

  function preview(context, label) {
    closeMenus();
    const approx = context.estimate ? "≈" : "";
    const confirm = M.el("button", { type: "button", dataset: { mnemosyne: "preview-confirm" } },
      [context.fills ? M.t("previewFill") : M.t("previewCopy")]);
    const cancel = M.el("button", { type: "button", on: { click: closeMenus } }, [M.t("actionCancel")]);
    const dropped = Array.isArray(context.dropped) && context.dropped.length
      ? M.el("ul", {}, context.dropped.slice(0, 12).map((entry) => M.el("li", { text: describe(entry) }))) : null;
    const panel = M.el("div", { className: "panel", role: "dialog", dataset: { mnemosyne: "preview", target: context.menuTarget } }, [
      M.el("h2", { text: M.t("previewTitle", [label]) }),
      M.el("p", { dataset: { mnemosyne: "preview-tokens", tokens: String(context.tokens ?? "") },
        text: M.t("previewTokens", [`${approx}${context.tokens ?? "?"}`, String(context.budget ?? "?"), String(context.tokenizer ?? "")]) }),
      M.el("p", { text: M.t("previewSummary", [String(count(context.kept)), String(count(context.compressed)),
        String(count(context.dropped)), String(count(context.redactions))]) }),
      dropped,
      M.el("pre", { text: String(context.text ?? "").slice(0, 4000) }),
      M.el("div", { className: "row" }, [cancel, confirm]),
    ]);
    confirm.addEventListener("click", async () => {
      closeMenus();
      try {
        if (context.fills) {
          await M.send("fill-open", { target: context.menuTarget, text: context.text });
          M.toast("success", M.t("fillOpened"));
        } else if (await M.copyText(context.text)) {
          M.toast("success", M.t("contextCopied"));
        } else {
          M.toast("error", M.t("copyFailed"));
        }
      } catch (error) {
        M.toastError(error);
      }
    });
    M.overlay().layer.append(panel);
    confirm.focus();
  }

  /** Save, build the context for `targetId`, then show the preview. */
  M.continueIn = async (site, targetId, label) => {
    closeMenus();
    try {
      M.toast("progress", M.t("toastReading"));
      const saved = await M.captureAndSave(site, (step) => step === "saving" && M.toast("progress", M.t("toastSaving")));
      M.toast("progress", M.t("buildingContext"));
      const settings = await M.settings();
      const context = await M.send("context", { conversation_id: saved.conversation_id, target: targetId,
        budget: settings.budget, redact: settings.redact });
      M.overlay().layer.querySelector(".toast")?.remove();
      const entry = label ? null : (await targets()).find((candidate) => candidate.id === targetId);
      preview(context, label ?? (entry ? M.t(entry.labelKey) : targetId));
    } catch (error) {
      M.toastError(error);
    }
  };

  /** The drop-down under the Continue button. */
  M.openContinueMenu = async (site, button) => {
    const open = M.overlay().layer.querySelector(".menu");
    closeMenus();
    if (open) return; // second click closes
    let entries;
    try {
      entries = await targets();
    } catch (error) {
      M.toastError(error);
      return;
    }
    const rect = button.getBoundingClientRect();
    const menu = M.el("div", { className: "menu", role: "menu", dataset: { mnemosyne: "continue-menu" } },
      entries.map((entry) => M.el("button", {
        type: "button", role: "menuitem", dataset: { mnemosyne: "continue-target", target: entry.id },
        on: { click: () => M.continueIn(site, entry.id, M.t(entry.labelKey)) },
      }, [M.t(entry.labelKey)])));
    menu.style.top = `${Math.min(rect.bottom + 4, innerHeight - 240)}px`;
    menu.style.left = `${Math.max(8, Math.min(rect.left, innerWidth - 280))}px`;
    M.overlay().layer.append(menu);
    menu.querySelector("button")?.focus();
  };

  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape") closeMenus();
  });
})();
