// On a target site opened by "Continue in…": claim the text meant for this tab from the service worker
// (once: the worker answers only after the tab's text is stored), wait for the composer of the site's
// adapter, and fill it WITHOUT sending. If filling fails, the extension copies the text to the clipboard
// (never through this page's DOM) and this tab says so.
import { t } from "../shared/api.js";
import { el } from "../shared/element.js";
import { request } from "../shared/messages.js";
import { toast } from "./toast.js";

const WAIT_MS = 20_000;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function findComposer(adapter) {
  for (const selector of adapter.composer) {
    const node = document.querySelector(selector);
    if (node) return node;
  }
  return null;
}

async function waitForComposer(adapter) {
  const deadline = Date.now() + WAIT_MS;
  while (Date.now() < deadline) {
    const node = findComposer(adapter);
    if (node) return node;
    await sleep(250);
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
  node.replaceChildren(...text.split("\n").map((line) => el("p", {}, [line || document.createElement("br")])));
  node.dispatchEvent(new InputEvent("input", { bubbles: true, inputType: "insertText", data: text }));
}

export async function fillComposer(adapter, text) {
  const composer = await waitForComposer(adapter);
  if (composer) {
    try {
      if (composer.tagName === "TEXTAREA") fillTextarea(composer, text);
      else fillEditable(composer, text);
    } catch {
      // fall through to the clipboard
    }
    if (holds(composer, text)) {
      composer.setAttribute("data-mnemosyne-filled", "true");
      toast("success", t("fillDone"));
      return "filled";
    }
  }
  // the extension copies the text it handed this tab (background/clipboard.js), not this page's DOM
  const copied = await request("fill-copy").then(() => true, () => false);
  toast(copied ? "success" : "error", copied ? t("fillCopied") : t("fillFailed"));
  return copied ? "copied" : "failed";
}

/** Ask once whether this tab was opened to be filled, and fill it. */
export async function claimAndFill(adapter) {
  if (window.top !== window) return;
  let pending;
  try {
    pending = await request("fill-claim");
  } catch {
    return; // extension reloaded or not ours to fill
  }
  if (pending?.text) await fillComposer(adapter, pending.text);
}
