// Right-click menu on the sites we read: Export, and Continue in… with one entry per host menu entry.
// A click is forwarded to that tab's content script, which runs the same flow as its buttons.
import { api, t } from "../shared/api.js";
import { SOURCE_PATTERNS } from "../sites/index.js";
import { hostMenu } from "./continue.js";

const EXPORT_ID = "mnemosyne-export";
const CONTINUE_ID = "mnemosyne-continue";

export async function createMenus() {
  await api.contextMenus.removeAll();
  const common = { contexts: ["page", "selection"], documentUrlPatterns: SOURCE_PATTERNS };
  api.contextMenus.create({ id: EXPORT_ID, title: t("menuExport"), ...common });
  api.contextMenus.create({ id: CONTINUE_ID, title: t("menuContinue"), ...common });
  let entries = [];
  try {
    entries = await hostMenu();
  } catch {
    // no host yet: "Continue in…" opens the page's own menu, which says what is missing
  }
  for (const entry of entries) {
    api.contextMenus.create({ id: `${CONTINUE_ID}:${entry.target}`, parentId: CONTINUE_ID, title: entry.label, ...common });
  }
}

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
