// On a target site opened by "Continue in…": ask the service worker for the text meant for this
// tab, wait for the composer, and fill it WITHOUT sending. If filling fails, copy the text to the
// clipboard and say so.
(() => {
  const M = globalThis.Mnemo;
  const COMPOSERS = {
    chatgpt: ["#prompt-textarea", "textarea[name='prompt-textarea']", "form textarea"],
    claude: [".ProseMirror[contenteditable='true']", "[data-testid='chat-input'] [contenteditable='true']", "[contenteditable='true']"],
    gemini: ["rich-textarea .ql-editor", "rich-textarea [contenteditable='true']", ".ql-editor[contenteditable='true']", "[contenteditable='true']"],
  };
  const WAIT_MS = 20_000;
  const CLAIM_ATTEMPTS = 5;
  const CLAIM_RETRY_MS = 300;

  function findComposer(site) {
    for (const selector of COMPOSERS[site] ?? []) {
      const node = document.querySelector(selector);
      if (node) return node;
    }
    return null;
  }

  async function waitForComposer(site) {
    const deadline = Date.now() + WAIT_MS;
    while (Date.now() < deadline) {
      const node = findComposer(site);
      if (node) return node;
      await M.sleep(250);
    }
    return null;
  }

  function probe(text) {
    return text.trim().split("\n")[0].slice(0, 60);
  }

  function holds(node, text) {
    const current = "value" in node && node.tagName === "TEXTAREA" ? node.value : node.innerText || node.textContent;
    return current.replace(/\s+/g, " ").includes(probe(text).replace(/\s+/g, " "));
  }

  function fillTextarea(area, text) {
    const setter = Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, "value").set;
    setter.call(area, text); // the native setter, so frameworks see the change
    area.dispatchEvent(new Event("input", { bubbles: true }));
  }

  function fillEditable(node, text) {
    node.focus();
    const selection = getSelection();
    const range = document.createRange();
    range.selectNodeContents(node);
    selection.removeAllRanges();
    selection.addRange(range);
    if (text.length > 20_000) {
      // editors handle a paste of a long text much faster than typed input
      const data = new DataTransfer();
      data.setData("text/plain", text);
      node.dispatchEvent(new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true }));
      if (holds(node, text)) return;
    }
    document.execCommand("insertText", false, text);
    if (holds(node, text)) return;
    // last resort: one paragraph per line, built as nodes, then tell the editor
    node.replaceChildren(...text.split("\n").map((line) => M.el("p", {}, [line || document.createElement("br")])));
    node.dispatchEvent(new InputEvent("input", { bubbles: true, inputType: "insertText", data: text }));
  }

  M.fillComposer = async (site, text) => {
    const composer = await waitForComposer(site);
    if (composer) {
      try {
        if (composer.tagName === "TEXTAREA") fillTextarea(composer, text);
        else fillEditable(composer, text);
      } catch {
        // fall through to the clipboard
      }
      if (holds(composer, text)) {
        composer.setAttribute("data-mnemosyne-filled", "true");
        M.toast("success", M.t("fillDone"));
        return "filled";
      }
    }
    const copied = await M.copyTextForFill(text);
    M.toast(copied ? "success" : "error", copied ? M.t("fillCopied") : M.t("fillFailed"));
    return copied ? "copied" : "failed";
  };

  M.copyTextForFill = async (text) => {
    if (M.copyText) return M.copyText(text);
    try {
      await navigator.clipboard.writeText(text);
      return true;
    } catch {
      return false;
    }
  };

  async function claim() {
    if (window.top !== window) return;
    const site = M.siteOfHost(location.hostname);
    if (!site) return;
    // a tab opened by "Continue in…" gets its text stored right after it is created: ask a few times
    for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt++) {
      let pending;
      try {
        pending = await M.send("fill-claim");
      } catch {
        return; // extension reloaded or not ours to fill
      }
      if (pending?.text) {
        await M.fillComposer(site, pending.text);
        return;
      }
      await M.sleep(CLAIM_RETRY_MS);
    }
  }

  claim();
})();
