// Selector health for the page the user is looking at: ask the content script of the active
// chatgpt.com / claude.ai tab (or the most recent one) which reading paths work there.
import { api } from "../shared/api.js";
import { SOURCE_PATTERNS } from "../sites/index.js";
import { MnemoError } from "../shared/errors.js";

export async function healthOfTab() {
  const tabs = await api.tabs.query({ url: SOURCE_PATTERNS });
  if (!tabs.length) throw new MnemoError("NO_SOURCE_TAB", "open a ChatGPT, Claude, Grok or Perplexity conversation first");
  tabs.sort((a, b) => Number(b.active) - Number(a.active) || (b.lastAccessed ?? 0) - (a.lastAccessed ?? 0));
  const tab = tabs[0];
  const report = await api.tabs.sendMessage(tab.id, { type: "health" }, { frameId: 0 });
  return { tab: { id: tab.id, url: tab.url, title: tab.title }, report };
}
