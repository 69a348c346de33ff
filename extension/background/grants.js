// A content script may read back (get / context) only the conversations its own tab saved.
// A compromised chatgpt.com renderer then cannot page through the whole archive.
import { api } from "../shared/api.js";

const KEY = "mnemosyneGrants";

/** @returns {Promise<Object<string, string[]>>} tab id -> the conversation ids granted to that tab */
async function load() {
  const stored = await api.storage.session.get(KEY);
  return /** @type {Object<string, string[]>} */ (stored[KEY] ?? {});
}

export async function grant(tabId, conversationId) {
  const grants = await load();
  const ids = new Set(grants[tabId] ?? []);
  ids.add(conversationId);
  grants[tabId] = [...ids].slice(-50);
  await api.storage.session.set({ [KEY]: grants });
}

export async function isGranted(tabId, conversationId) {
  const grants = await load();
  return (grants[tabId] ?? []).includes(conversationId);
}

export async function forgetTab(tabId) {
  const grants = await load();
  if (!(tabId in grants)) return;
  delete grants[tabId];
  await api.storage.session.set({ [KEY]: grants });
}
