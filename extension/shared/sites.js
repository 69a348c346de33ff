// Which pages the extension reads from and which it may fill. One list, used by the router and the menus.

export const SOURCE_SITES = {
  chatgpt: ["chatgpt.com", "chat.openai.com"],
  claude: ["claude.ai"],
};

export const FILL_SITES = ["chatgpt.com", "chat.openai.com", "claude.ai", "gemini.google.com"];

function parse(url) {
  try {
    return new URL(url);
  } catch {
    return null;
  }
}

/** "chatgpt" | "claude" | null for an https URL on a site we can save from. */
export function sourceSiteOf(url) {
  const u = parse(url);
  if (!u || u.protocol !== "https:") return null;
  for (const [site, hosts] of Object.entries(SOURCE_SITES)) {
    if (hosts.includes(u.hostname)) return site;
  }
  return null;
}

export function isFillSite(url) {
  const u = parse(url);
  return Boolean(u && u.protocol === "https:" && FILL_SITES.includes(u.hostname));
}

/** Documentation-safe patterns for contextMenus.documentUrlPatterns. */
export const SOURCE_PATTERNS = Object.values(SOURCE_SITES).flat().map((h) => `https://${h}/*`);
