// Background entry (Chromium service worker, Firefox background script): wires the router,
// the context menus, the backup runs and tab clean-up. All host traffic goes through host.js.
import { api } from "../shared/api.js";
import { installRouter } from "./router.js";
import { createMenus, installMenuHandler } from "./menus.js";
import { forgetTab } from "./grants.js";
import { installBackup } from "./backup.js";

installRouter();
installMenuHandler();
installBackup(); // resumes a backup run that a stopped worker or a browser restart interrupted
api.runtime.onInstalled.addListener(createMenus);
api.runtime.onStartup?.addListener(createMenus);
api.tabs.onRemoved.addListener((tabId) => {
  forgetTab(tabId).catch(() => {});
});
