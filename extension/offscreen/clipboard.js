// The Chromium offscreen document that writes the clipboard for the service worker (which has no DOM).
// It answers only the worker's own "offscreen-copy" messages.
import { api } from "../shared/api.js";
import { copyInDocument } from "../shared/copy_in_document.js";

api.runtime.onMessage.addListener((message, sender, sendResponse) => {
  if (sender.id !== api.runtime.id || message?.target !== "offscreen" || message.type !== "offscreen-copy") return false;
  sendResponse({ copied: copyInDocument(document, String(message.text ?? "")) });
  return false;
});
