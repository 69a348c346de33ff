// The site adapters, and what the service worker asks of a URL: which site it is, whether we save from
// it or only fill it. One list: the router, the menus, the content scripts and the filler all read it.
import { chatgpt } from "./chatgpt.js";
import { claude } from "./claude.js";
import { gemini } from "./gemini.js";
import { deepseek } from "./deepseek.js";
import { grok } from "./grok.js";
import { perplexity } from "./perplexity.js";
import { mistral } from "./mistral.js";
import { qwen } from "./qwen.js";

export const ADAPTERS = [chatgpt, claude, gemini, deepseek, grok, perplexity, mistral, qwen];

export function adapterForHost(hostname) {
  return ADAPTERS.find((adapter) => adapter.hosts.includes(hostname)) ?? null;
}

function httpsHost(url) {
  try {
    const parsed = new URL(url);
    return parsed.protocol === "https:" ? parsed.hostname : null;
  } catch {
    return null;
  }
}

/** The site name ("chatgpt", "claude", ...) or null for an https URL on a site we save from. */
export function sourceSiteOf(url) {
  const adapter = adapterForHost(httpsHost(url));
  return adapter?.source ? adapter.name : null;
}

/** The site name or null for an https URL on a site we fill. */
export function fillSiteOf(url) {
  return adapterForHost(httpsHost(url))?.name ?? null;
}

/** contextMenus.documentUrlPatterns / tabs.query patterns of the sites we save from. */
export const SOURCE_PATTERNS = ADAPTERS.filter((a) => a.source).flatMap((a) => a.hosts.map((h) => `https://${h}/*`));
