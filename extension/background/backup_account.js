// Which account a backup started now would read, for the backup panel's sentence: the site tab's own answer (its
// adapter's `account()`: an email, a workspace or organization name), asked with a short timeout so the sentence
// never waits on a slow tab. Only the name crosses over, never the site's tokens.
import { api } from "../shared/api.js";
import { siteOfOpenTab } from "../shared/backup_site.js";

const ACCOUNT_TIMEOUT_MS = 5000;
const NAME_CHARS = 200; // a name, not a document: the panel shows it on one line

/** `{site, account}`: the site a backup would use and its account's name, `account` null when the tab gives none. */
export async function backupAccount() {
  const { site, tabId } = await siteOfOpenTab();
  let timer;
  const timeout = new Promise((resolve) => {
    timer = setTimeout(() => resolve(null), ACCOUNT_TIMEOUT_MS);
  });
  try {
    const reply = await Promise.race([api.tabs.sendMessage(tabId, { type: "backup-account" }, { frameId: 0 }), timeout]);
    const name = typeof reply?.name === "string" ? reply.name.replace(/\s+/g, " ").trim().slice(0, NAME_CHARS) : "";
    return { site, account: name || null };
  } catch {
    return { site, account: null }; // a tab without our content script yet (loading, or opened before the install)
  } finally {
    clearTimeout(timer);
  }
}
