// Shadow-DOM containers for the injected UI; elements come from the shared createElement builder.
// Page and transcript text never pass through an HTML parser.
(() => {
  const M = globalThis.Mnemo;
  let sheet = null;

  function styleSheet() {
    if (!sheet) {
      sheet = new CSSStyleSheet();
      sheet.replaceSync(M.UI_CSS);
    }
    return sheet;
  }

  M.el = globalThis.mnemoElement; // shared/element.js, loaded before this script

  /** A host element with an open shadow root carrying our stylesheet. */
  M.shadowHost = (name) => {
    const host = document.createElement("mnemosyne-ui");
    host.setAttribute("data-mnemosyne-host", name);
    const root = host.attachShadow({ mode: "open" });
    root.adoptedStyleSheets = [styleSheet()];
    return { host, root };
  };

  /** The full-viewport overlay (toasts, menus, previews), created once per page. */
  M.overlay = () => {
    if (M._overlay?.host.isConnected) return M._overlay;
    const { host, root } = M.shadowHost("overlay");
    const layer = M.el("div", { className: "overlay" });
    root.append(layer);
    document.documentElement.append(host);
    M._overlay = { host, root, layer };
    return M._overlay;
  };
})();
