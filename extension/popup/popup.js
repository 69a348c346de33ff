// Popup: the archive newest first, full-text search with ranked snippets; a click opens the
// conversation view in a tab. All text goes in through textContent (shared/dom.js).
import { api, t } from "../shared/api.js";
import { el, formatDate, localize, siteIcon, snippetNodes } from "../shared/dom.js";
import { describeError, request } from "../shared/messages.js";
import { mountBackupPanel } from "../shared/backup_panel.js";

const PAGE_SIZE = 50;
const list = document.getElementById("items");
const status = document.getElementById("status");
const more = document.getElementById("more");
const search = /** @type {HTMLInputElement} */ (document.getElementById("search"));
let nextCursor = null;
let generation = 0; // drops replies that arrive after a newer query started

function openConversation(id) {
  api.tabs.create({ url: api.runtime.getURL(`view/view.html?id=${encodeURIComponent(id)}`) });
  window.close?.();
}

function item(entry, snippet) {
  const meta = [formatDate(entry.updated_at ?? entry.saved_at), t("messageCount", [String(entry.message_count ?? 0)])];
  const button = el("button", {
    type: "button",
    className: "item",
    dataset: { mnemosyne: "conversation", conversationId: entry.id, site: entry.site ?? "" },
    on: { click: () => openConversation(entry.id) },
  }, [
    siteIcon(entry.site),
    el("span", { className: "item-body" }, [
      el("span", { className: "item-title", text: entry.title || t("untitled") }),
      el("span", { className: "item-meta", text: meta.filter(Boolean).join(" · ") }),
      snippet ? el("span", { className: "item-snippet" }, snippetNodes(snippet)) : null,
    ]),
  ]);
  return el("li", {}, [button]);
}

function showError(error) {
  status.textContent = describeError(error);
  status.classList.add("error");
}

async function showList(append = false) {
  const mine = ++generation;
  status.classList.remove("error");
  if (!append) {
    list.replaceChildren();
    status.textContent = t("loading");
  }
  try {
    const data = await request("list", { limit: PAGE_SIZE, cursor: append ? nextCursor : undefined });
    if (mine !== generation) return;
    for (const entry of data.items) list.append(item(entry));
    nextCursor = data.next_cursor ?? null;
    more.hidden = !nextCursor;
    status.textContent = list.children.length ? "" : t("emptyArchive");
  } catch (error) {
    if (mine === generation) showError(error);
  }
}

async function showSearch(query) {
  const mine = ++generation;
  status.classList.remove("error");
  status.textContent = t("searching");
  more.hidden = true;
  try {
    const data = await request("search", { query, limit: PAGE_SIZE });
    if (mine !== generation) return;
    list.replaceChildren(...data.items.map((entry) => item(entry, entry.snippet)));
    status.textContent = data.items.length ? t("resultCount", [String(data.items.length)]) : t("noResults");
  } catch (error) {
    if (mine === generation) showError(error);
  }
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

localize();
mountBackupPanel(document.getElementById("backup"));
showList();
search.focus();
