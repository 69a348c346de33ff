// Content-script entry on the sites we save from (bundled into bundle/source.js): keep the Export /
// Continue bar beside the conversation actions as the single-page app re-renders and navigates, answer
// the service worker's requests (context-menu clicks, health check, the backup's API reads), and fill the
// composer when this tab was opened by "Continue in…".
import { api } from "../shared/api.js";
import { adapterForHost } from "../sites/index.js";
import { closeMenusOnEscape, continueIn } from "./continue.js";
import { abortDownload, backupConversation, backupFile, backupGet } from "./backup_fetch.js";
import { buildBar, exportNow } from "./export.js";
import { claimAndFill } from "./fill.js";
import { health } from "./health.js";
import { keepCurrent } from "./keep_current.js";

const site = adapterForHost(location.hostname);
if (site?.source && window.top === window) start(site);

function start(site) {
  let bar = null;
  let floating = false;

  function place() {
    const onConversation = Boolean(site.conversationId()) || site.dom.turns().length > 0;
    if (!onConversation) {
      bar?.remove();
      bar = null;
      return;
    }
    const anchor = site.anchor();
    if (bar && bar.isConnected && floating === !anchor) {
      if (!anchor) return;
      const placed = anchor.place === "before" ? bar.nextElementSibling === anchor.node : bar.parentElement === anchor.node;
      if (placed) return;
    }
    bar?.remove();
    floating = !anchor;
    bar = buildBar(site, floating);
    if (!anchor) document.documentElement.append(bar);
    else if (anchor.place === "before") anchor.node.before(bar);
    else if (anchor.place === "prepend") anchor.node.prepend(bar);
    else anchor.node.append(bar);
  }

  let scheduled = false;
  const observer = new MutationObserver((records) => {
    if (scheduled || records.every((r) => r.target instanceof Element && r.target.closest("mnemosyne-ui"))) return;
    scheduled = true;
    setTimeout(() => {
      scheduled = false;
      place();
    }, 300);
  });

  api.runtime.onMessage.addListener((message, sender, sendResponse) => {
    if (sender.id !== api.runtime.id || sender.tab) return false; // only our service worker
    if (message?.type === "menu-export") exportNow(site, null);
    else if (message?.type === "menu-continue") continueIn(site, message.target);
    else if (message?.type === "backup-get") {
      backupGet(site, message.path, { method: message.method, body: message.body, requestId: message.requestId,
        timeoutMs: message.timeoutMs }).then(sendResponse);
      return true;
    } else if (message?.type === "backup-conversation") {
      backupConversation(site, message.id, { requestId: message.requestId, timeoutMs: message.timeoutMs }).then(sendResponse);
      return true;
    } else if (message?.type === "backup-file") {
      backupFile(site, message.path, message.capBytes, { requestId: message.requestId, timeoutMs: message.timeoutMs })
        .then(sendResponse);
      return true;
    } else if (message?.type === "backup-account") {
      // the account's name as the site's own data gives it (never its tokens); null when the site gives none
      Promise.resolve(site.account?.() ?? null).then((name) => sendResponse({ name: name ?? null }), () => sendResponse({ name: null }));
      return true;
    } else if (message?.type === "backup-abort") {
      abortDownload(message.requestId);
    } else if (message?.type === "health") {
      health(site).then(sendResponse, (error) => sendResponse({ site: site.name, checks: [
        { name: "health", status: "fail", detail: String(error.message ?? error) }] }));
      return true;
    }
    return false;
  });

  closeMenusOnEscape();
  place();
  observer.observe(document.body || document.documentElement, { childList: true, subtree: true });
  claimAndFill(site);
  keepCurrent(site);
}
