// User settings (chrome.storage.sync) with their defaults. The options page edits them; the
// service worker and the content scripts read them.
import { api } from "./api.js";

/**
 * @typedef {{exportFormat: "markdown" | "json", downloadOnExport: boolean, copyMarkdownOnExport: boolean, defaultTarget: string,
 *   budget: number, redact: boolean, attachmentCapMb: number, keepCurrent: boolean}} Settings
 */

/** @type {Readonly<Settings>} */
export const DEFAULT_SETTINGS = Object.freeze({
  exportFormat: "markdown", // "markdown" | "json": what a download contains
  downloadOnExport: false, // also download a file when Export saves to the archive
  copyMarkdownOnExport: false, // copy Markdown to the clipboard instead of downloading
  defaultTarget: "chatgpt", // menu entry preselected by the context menu "Continue in…"
  budget: 0, // token budget for contexts; 0 = the target's own default
  redact: true, // ask the host to redact secrets before a context leaves the archive
  attachmentCapMb: 20, // a backup downloads uploaded files and generated images up to this size each; 0 = none
  keepCurrent: false, // save the open conversation again after each completed reply (content/keep_current.js)
});

/** @returns {Promise<Settings>} */
export async function loadSettings() {
  const stored = await api.storage.sync.get(DEFAULT_SETTINGS);
  return /** @type {Settings} */ ({ ...DEFAULT_SETTINGS, ...stored });
}

export async function saveSettings(changes) {
  const clean = {};
  for (const [key, value] of Object.entries(changes)) {
    if (key in DEFAULT_SETTINGS && typeof value === typeof DEFAULT_SETTINGS[key]) clean[key] = value;
  }
  await api.storage.sync.set(clean);
  return loadSettings();
}
