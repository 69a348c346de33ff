// Right-click menu on the sites we read: Export, and Continue in… with one entry per host menu entry.
// A click is forwarded to that tab's content script, which runs the same flow as its buttons.
import { api, t } from "../shared/api.js";
import { SOURCE_PATTERNS } from "../sites/index.js";
import { hostMenu, onMenuLoaded } from "./continue.js";

const EXPORT_ID = "mnemosyne-export";
const CONTINUE_ID = "mnemosyne-continue";

/** @returns {{contexts: ["page", "selection"], documentUrlPatterns: string[]}} */
const common = () => ({ contexts: ["page", "selection"], documentUrlPatterns: SOURCE_PATTERNS });

let loadedEntries = null;

function addTargetEntries(entries) {
  for (const entry of entries) {
    // the callback reads lastError: an entry that already exists is not an error worth a console warning
    api.contextMenus.create({ id: `${CONTINUE_ID}:${entry.target}`, parentId: CONTINUE_ID, title: entry.label, ...common() },
      () => void api.runtime.lastError);
  }
}

export async function createMenus() {
  await api.contextMenus.removeAll();
  api.contextMenus.create({ id: EXPORT_ID, title: t("menuExport"), ...common() });
  api.contextMenus.create({ id: CONTINUE_ID, title: t("menuContinue"), ...common() });
  if (loadedEntries) addTargetEntries(loadedEntries);
  else hostMenu().catch(() => {}); // no host yet: the entries come when the host's menu is first read
}

// the host's menu, whenever this worker first reads it (here, or for a page's Continue menu)
onMenuLoaded((entries) => {
  loadedEntries = entries;
  addTargetEntries(entries);
});

export function installMenuHandler() {
  api.contextMenus.onClicked.addListener((info, tab) => {
    if (!tab?.id) return;
    const id = String(info.menuItemId);
    let message = null;
    if (id === EXPORT_ID) message = { type: "menu-export" };
    else if (id === CONTINUE_ID) message = { type: "menu-continue", target: null };
    else if (id.startsWith(`${CONTINUE_ID}:`)) message = { type: "menu-continue", target: id.slice(CONTINUE_ID.length + 1) };
    if (message) api.tabs.sendMessage(tab.id, message, { frameId: 0 }).catch(() => {});
  });
}
