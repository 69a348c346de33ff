// The Chromium offscreen document that writes the clipboard for the service worker (which has no DOM).
// It answers only the worker's own "offscreen-copy" messages (not a content script's: those come from a tab).
import { api } from "../shared/api.js";
import { copyInDocument } from "../shared/copy_in_document.js";

api.runtime.onMessage.addListener((message, sender, sendResponse) => {
  const fromWorker = sender.id === api.runtime.id && !sender.tab && sender.url?.startsWith(api.runtime.getURL(""));
  if (!fromWorker || message?.target !== "offscreen" || message.type !== "offscreen-copy") return false;
  sendResponse({ copied: copyInDocument(document, String(message.text ?? "")) });
  return false;
});
