// Popup: search first, then the archive newest first with ranked snippets when searching; a click opens the
// conversation view in a tab. The list follows a running backup (new conversations appear as they are
// saved). Without the host it shows the set-up notice (shared/setup.js). All text goes in through
// textContent (shared/dom.js).
import { api, t } from "../shared/api.js";
import { el, formatDate, localize, siteIcon, snippetNodes, titleNode } from "../shared/dom.js";
import { icon } from "../shared/icons.js";
import { describeError, request } from "../shared/messages.js";
import { countText } from "../shared/plural.js";
import { mountBackupPanel } from "../shared/backup_panel.js";
import { RUN_KEY } from "../shared/backup_run.js";
import { hostMissing, setupNotice } from "../shared/setup.js";

const PAGE_SIZE = 50;
const list = document.getElementById("items");
const status = document.getElementById("status");
const more = document.getElementById("more");
const search = /** @type {HTMLInputElement} */ (document.getElementById("search"));
let nextCursor = null;
let generation = 0; // drops replies that arrive after a newer query started
let backupRunning = false;

function openConversation(id) {
  api.tabs.create({ url: api.runtime.getURL(`view/view.html?id=${encodeURIComponent(id)}`) });
  window.close?.();
}

function item(entry, snippet) {
  const meta = [formatDate(entry.updated_at ?? entry.saved_at), countText("message", entry.message_count ?? 0)];
  const button = el("button", {
    type: "button",
    className: "item",
    dataset: { mnemosyne: "conversation", conversationId: entry.id, site: entry.site ?? "" },
    on: { click: () => openConversation(entry.id) },
  }, [
    siteIcon(entry.site),
    el("span", { className: "item-body" }, [
      titleNode(entry, "item-title"),
      el("span", { className: "item-meta", text: meta.filter(Boolean).join(" · ") }),
      snippet ? el("span", { className: "item-snippet" }, snippetNodes(snippet)) : null,
    ]),
  ]);
  return el("li", {}, [button]);
}

function say(text, kind = "") {
  status.textContent = text;
  status.className = `status ${kind}`;
}

function showError(error) {
  document.querySelector("[data-mnemosyne='setup']")?.remove();
  if (hostMissing(error)) {
    say("");
    list.replaceChildren();
    more.hidden = true;
    status.after(setupNotice());
    return;
  }
  say(describeError(error), "error");
}

async function showList(append = false) {
  const mine = ++generation;
  if (!append && !list.children.length) say(t("loading"));
  try {
    const data = await request("list", { limit: PAGE_SIZE, cursor: append ? nextCursor : undefined });
    if (mine !== generation) return;
    const items = data.items.map((entry) => item(entry));
    if (append) list.append(...items);
    else list.replaceChildren(...items);
    nextCursor = data.next_cursor ?? null;
    more.hidden = !nextCursor;
    if (list.children.length) say("");
    else say(backupRunning || lastDone ? t("popupBackingUp") : t("emptyArchive"));
  } catch (error) {
    if (mine === generation) showError(error);
  }
}

async function showSearch(query) {
  const mine = ++generation;
  say(t("searching"));
  more.hidden = true;
  try {
    const data = await request("search", { query, limit: PAGE_SIZE });
    if (mine !== generation) return;
    list.replaceChildren(...data.items.map((entry) => item(entry, entry.snippet)));
    say(data.items.length ? countText("match", data.items.length) : t("noResults"));
  } catch (error) {
    if (mine === generation) showError(error);
  }
}

/** While a backup saves, the newest-first list is refreshed (at most once a second) when its count moves. */
let lastDone = null;
let followTimer = null;
function followBackup(run) {
  backupRunning = run?.state === "running";
  const done = run?.counts?.done ?? null;
  // the list catches up a moment later: until then an empty list is the backup's, not an empty archive
  if (!list.children.length && !search.value.trim() && (backupRunning || done)) say(t("popupBackingUp"));
  if (done === lastDone) return;
  lastDone = done;
  if (search.value.trim() || followTimer) return;
  followTimer = setTimeout(() => {
    followTimer = null;
    if (!search.value.trim()) showList();
  }, 1000);
}

let debounce = null;
search.addEventListener("input", () => {
  clearTimeout(debounce);
  debounce = setTimeout(() => {
    const query = search.value.trim();
    if (query) showSearch(query);
    else showList();
  }, 200);
});
more.addEventListener("click", () => showList(true));
api.storage.onChanged.addListener((changes, area) => {
  if (area === "local" && changes[RUN_KEY]) followBackup(changes[RUN_KEY].newValue ?? null);
});

localize();
document.getElementById("search-box").prepend(icon("search", 16));
mountBackupPanel(document.getElementById("backup"));
api.storage.local.get(RUN_KEY).then((stored) => {
  const run = /** @type {{state: string, counts?: {done: number}} | undefined} */ (stored[RUN_KEY]) ?? null;
  backupRunning = run?.state === "running";
  lastDone = run?.counts?.done ?? null;
}).finally(() => showList());
search.focus();
