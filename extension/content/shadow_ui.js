// Shadow-DOM containers for the injected UI and a createElement/textContent builder.
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

  M.el = (tag, props = {}, children = []) => {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(props)) {
      if (value === undefined || value === null) continue;
      if (key === "text") node.textContent = String(value);
      else if (key === "className") node.className = value;
      else if (key === "dataset") Object.assign(node.dataset, value);
      else if (key === "on") for (const [type, handler] of Object.entries(value)) node.addEventListener(type, handler);
      else node.setAttribute(key, String(value));
    }
    for (const child of [].concat(children)) {
      if (child === null || child === undefined || child === false) continue;
      node.append(typeof child === "string" ? document.createTextNode(child) : child);
    }
    return node;
  };

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
