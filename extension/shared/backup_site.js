// Which site a backup started now would back up: the active tab's, else the most recently used tab of a source
// site. The worker starts its run on it; the backup panel reads it before the click, to know whether the run may
// need ChatGPT's file hosts (an optional permission it can ask for only inside the click).
import { api } from "./api.js";
import { MnemoError } from "./errors.js";
import { SOURCE_PATTERNS, sourceSiteOf } from "../sites/index.js";

/** `{site, tabId}` of the tab a backup would use; throws NO_SOURCE_TAB when none is open. */
export async function siteOfOpenTab() {
  const [active] = await api.tabs.query({ active: true, lastFocusedWindow: true });
  if (active && sourceSiteOf(active.url)) return { site: sourceSiteOf(active.url), tabId: active.id };
  const tabs = await api.tabs.query({ url: SOURCE_PATTERNS });
  tabs.sort((a, b) => (b.lastAccessed ?? 0) - (a.lastAccessed ?? 0));
  if (!tabs.length) throw new MnemoError("NO_SOURCE_TAB", "open ChatGPT, Claude, Grok, Perplexity, Gemini or DeepSeek, signed in, then start the backup");
  return { site: sourceSiteOf(tabs[0].url), tabId: tabs[0].id };
}
