// One capture of the current conversation: the site's JSON first, the DOM sweep when that fails.
// Every result says which path produced it; all text is made well-formed before it leaves the page.
(() => {
  const M = globalThis.Mnemo;

  function sourceUrl() {
    return `${location.origin}${location.pathname}`; // no query or fragment: they can carry tokens
  }

  M.capture = async (site, { allowApi = true } = {}) => {
    const id = site.conversationId();
    let apiError = null;
    if (id && allowApi) {
      try {
        const { kind, payload } = await site.fetchApi(id);
        return { kind, payload: M.wellFormedDeep(payload), source_url: sourceUrl(), path: "api" };
      } catch (error) {
        apiError = error; // logged out, rate limited or a changed API: read the page instead
      }
    }
    const swept = await M.sweep(site.dom);
    if (!swept.turns.length) {
      throw new M.MnemoError("NOTHING_FOUND", apiError ? `${apiError.message}; ${M.t("errorNoTurns")}` : M.t("errorNoTurns"));
    }
    const payload = {
      format: "mnemosyne.capture",
      version: 1,
      site: site.name,
      url: sourceUrl(),
      conversation_id: id,
      title: site.title() ? M.wellFormed(site.title()) : null,
      captured_at: new Date().toISOString(),
      complete: swept.complete,
      turns: swept.turns,
    };
    return { kind: "capture", payload, source_url: sourceUrl(), path: "dom", apiError, diagnostics: swept.diagnostics };
  };

  /** Capture and save; returns the host's save reply plus the path used. */
  M.captureAndSave = async (site, onStep = () => {}) => {
    onStep("reading");
    const captured = await M.capture(site);
    onStep("saving");
    const saved = await M.send("save", { kind: captured.kind, payload: captured.payload, source_url: captured.source_url });
    return { ...saved, path: captured.path };
  };
})();
