// The library: the whole archive in a tab. Without a query it pages through the host's `list` (site,
// date range, newest/oldest: all done by the host, keyset cursors, the next page fetched when the end
// of the list scrolls into view), so 10,000 conversations cost one page at a time. With a query it shows
// the host's ranked `search` (snippets with the hit marked, site filter by the host; the date range and
// a date sort applied here to those results). All text goes in through textContent (shared/dom.js).
import { api, t } from "../shared/api.js";
import { el, formatDate, localize, siteIcon, snippetNodes, titleNode } from "../shared/dom.js";
import { mountBackupPanel } from "../shared/backup_panel.js";
import { describeError, request } from "../shared/messages.js";
import { modelName, projectName, siteName } from "../shared/names.js";
import { countText } from "../shared/plural.js";
import { hostMissing, setupNotice } from "../shared/setup.js";
import { clearSelection, initSelection, selectAllShown, selectBox, toggle } from "./selection.js";

const PAGE_SIZE = 100;
const SEARCH_LIMIT = 100;
const $ = (id) => document.getElementById(id);
/** @param {string} id */
const inputEl = (id) => /** @type {HTMLInputElement} */ ($(id));
/** @param {string} id */
const selectEl = (id) => /** @type {HTMLSelectElement} */ ($(id));
const list = $("items");
const status = $("status");
const search = inputEl("search");
let nextCursor = null;
let loading = false;
let choicesLoaded = false; // the project and model lists come with the first page of the session
let generation = 0; // a reply for an older query or filter set is dropped
let total = null; // conversations in the whole archive (the host's list with facets)
let shownId = new URLSearchParams(location.search).get("id"); // "Show in library" from a chat page: that row gets focus

function say(text, kind = "") {
  status.textContent = text;
  status.className = `status ${kind}`;
}

function openConversation(id) {
  api.tabs.create({ url: api.runtime.getURL(`view/view.html?id=${encodeURIComponent(id)}`) });
}

const projectLabel = (short) => t("projectShort", [short]);

function row(entry) {
  const meta = [entry.site ? siteName(entry.site) : null, entry.model ? modelName(entry.model) : null, formatDate(entry.updated_at ?? entry.saved_at), countText("message", entry.message_count ?? 0)];
  return el("li", {
    className: "row",
    tabindex: "0",
    role: "option",
    dataset: { mnemosyne: "conversation", conversationId: entry.id, site: entry.site ?? "" },
    on: { click: () => openConversation(entry.id) },
  }, [
    selectBox(entry.id),
    siteIcon(entry.site),
    el("span", { className: "row-body" }, [
      titleNode(entry, "row-title"),
      el("span", { className: "row-meta", text: meta.filter(Boolean).join(" · ") }),
      entry.snippet ? el("span", { className: "row-snippet" }, snippetNodes(entry.snippet)) : null,
    ]),
  ]);
}

const ORDERS = ["newest", "oldest", "created", "title", "length"]; // the host's `list` orders

/** The filters as the host's `list` takes them; `until` is the day after the chosen last day. */
function filters() {
  const until = inputEl("until").value ? new Date(`${inputEl("until").value}T00:00:00Z`) : null;
  until?.setUTCDate(until.getUTCDate() + 1);
  return {
    source: selectEl("site").value || undefined,
    since: inputEl("since").value || undefined,
    until: until ? until.toISOString().slice(0, 10) : undefined,
    project: selectEl("project").value || undefined,
    model: selectEl("model").value || undefined,
    has_code: inputEl("has-code").checked || undefined,
    has_attachments: inputEl("has-attachments").checked || undefined,
    order: ORDERS.includes(selectEl("sort").value) ? selectEl("sort").value : "newest",
  };
}

function filtered() {
  return ["site", "since", "until", "project", "model"].some((id) => /** @type {HTMLInputElement | HTMLSelectElement} */ ($(id)).value)
    || inputEl("has-code").checked || inputEl("has-attachments").checked;
}

/** The project and model choices from the host's facet counts (once, with the first page). */
function fillChoices(facets) {
  for (const [id, values] of [["project", facets?.project], ["model", facets?.model]]) {
    const select = selectEl(id);
    const chosen = select.value;
    const named = id === "model" ? modelName : (value) => projectName(value, projectLabel);
    select.replaceChildren(select.options[0], ...(values ?? []).map(({ value, count }) =>
      el("option", { value, title: value, text: `${named(value)} (${count})` })));
    select.value = chosen;
    select.closest("label").hidden = !values?.length;
  }
}

function showEmpty(text) {
  list.replaceChildren(el("li", { className: "empty", dataset: { mnemosyne: "empty" }, text }));
}

/** An error in the status line; a missing host replaces the list with the set-up notice (said once, not twice). */
function showError(error) {
  if (hostMissing(error)) {
    say("");
    list.replaceChildren(el("li", { className: "empty" }, [setupNotice()]));
    return;
  }
  say(describeError(error), "error");
  if (!list.children.length) showEmpty(describeError(error));
}

async function loadPage() {
  if (loading || (!nextCursor && list.children.length)) return;
  loading = true;
  const mine = generation;
  try {
    const first = !nextCursor && !choicesLoaded;
    const data = await request("list", { limit: PAGE_SIZE, cursor: nextCursor ?? undefined, facets: first || undefined, ...filters() });
    if (mine !== generation) return;
    if (data.facets) {
      fillChoices(data.facets);
      choicesLoaded = true;
    }
    if (Number.isInteger(data.total)) total = data.total;
    list.append(...data.items.map(row));
    nextCursor = data.next_cursor ?? null;
    const rows = /** @type {HTMLCollectionOf<HTMLElement>} */ (list.children);
    const asked = shownId && [...rows].find((node) => node.dataset.conversationId === shownId);
    if (asked) {
      shownId = null;
      asked.focus();
      asked.scrollIntoView({ block: "center" });
    }
    if (!list.children.length) {
      say("");
      showEmpty(filtered() ? t("libraryNoneInFilter") : t("emptyArchive"));
    } else if (nextCursor) {
      // the total is the archive's: said beside the shown count only when no filter narrows the list
      say(total !== null && !filtered() ? t("libraryShownOfTotal", [String(list.children.length), String(total)])
        : t("libraryShown", [String(list.children.length)]));
    } else say(countText("conversation", list.children.length));
  } catch (error) {
    if (mine === generation) showError(error);
  } finally {
    loading = false;
    if (mine === generation) fillViewport();
  }
}

/** Keep fetching while the end of the list is on screen (a tall window shows more than one page). */
function fillViewport() {
  if (!nextCursor || search.value.trim()) return;
  if ($("sentinel").getBoundingClientRect().top <= innerHeight + 400) loadPage();
}

/** The `list` filters the host's `search` does not take, applied to its results (which carry the facets). */
function matches(entry, { since, until, project, model, has_code: code, has_attachments: attachments }) {
  const when = entry.updated_at ?? entry.created_at ?? "";
  return (!since || when >= since) && (!until || when < until) && (!project || entry.project === project)
    && (!model || entry.model === model) && (!code || entry.has_code) && (!attachments || entry.has_attachments);
}

const created = (entry) => entry.created_at ?? entry.updated_at ?? entry.saved_at ?? "";
const titleKey = (entry) => (entry.title || entry.first_words || "").toLocaleLowerCase(); // as the host sorts
// the host's orders, for search results: ties by id as the host breaks them
const COMPARE = {
  newest: (a, b) => (b.updated_at ?? "").localeCompare(a.updated_at ?? "") || b.id.localeCompare(a.id),
  oldest: (a, b) => (a.updated_at ?? "").localeCompare(b.updated_at ?? "") || a.id.localeCompare(b.id),
  created: (a, b) => created(b).localeCompare(created(a)) || b.id.localeCompare(a.id),
  title: (a, b) => titleKey(a).localeCompare(titleKey(b)) || a.id.localeCompare(b.id),
  length: (a, b) => (b.length ?? 0) - (a.length ?? 0) || b.id.localeCompare(a.id),
};

async function showSearch(query) {
  const mine = generation;
  say(t("searching"));
  try {
    const range = filters();
    const data = await request("search", { query, limit: SEARCH_LIMIT, source: range.source });
    if (mine !== generation) return;
    const items = data.items.filter((entry) => matches(entry, range));
    const sort = selectEl("sort").value;
    if (Object.hasOwn(COMPARE, sort)) items.sort(COMPARE[sort]);
    list.replaceChildren(...items.map(row));
    if (!items.length) showEmpty(t("noResults"));
    say(items.length ? countText("match", items.length) : "");
  } catch (error) {
    if (mine === generation) showError(error);
  }
}

function refresh() {
  generation += 1;
  clearSelection();
  nextCursor = null;
  loading = false;
  list.replaceChildren();
  const query = search.value.trim();
  if (query) showSearch(query);
  else {
    say(t("loading"));
    loadPage();
  }
}

function onKey(event) {
  const rows = [.../** @type {NodeListOf<HTMLElement>} */ (list.querySelectorAll("[data-mnemosyne='conversation']:not([hidden])"))];
  const index = rows.indexOf(/** @type {HTMLElement} */ (document.activeElement));
  if (event.key === "/" && document.activeElement !== search) {
    event.preventDefault();
    search.focus();
  } else if (event.key === "ArrowDown" && (index >= 0 || document.activeElement === search) && rows.length) {
    event.preventDefault();
    rows[Math.min(index + 1, rows.length - 1)].focus();
  } else if (event.key === "ArrowUp" && index >= 0) {
    event.preventDefault();
    if (index === 0) search.focus();
    else rows[index - 1].focus();
  } else if (event.key === " " && index >= 0) {
    event.preventDefault();
    toggle(rows[index]);
  } else if (event.key === "Enter" && index >= 0) {
    openConversation(rows[index].dataset.conversationId);
  } else if (event.key === "Escape" && document.activeElement === search && search.value) {
    search.value = "";
    refresh();
  }
}

let debounce = null;
let sortChosen = false; // until the user picks a sort: best match while searching, newest otherwise
selectEl("sort").addEventListener("change", () => { sortChosen = true; });
search.addEventListener("input", () => {
  if (!sortChosen) selectEl("sort").value = search.value.trim() ? "relevance" : "newest";
  clearTimeout(debounce);
  debounce = setTimeout(refresh, 150);
});
$("filters").addEventListener("change", refresh);
$("select-all").addEventListener("change", (event) => selectAllShown(/** @type {HTMLInputElement} */ (event.target).checked));
$("filters").addEventListener("submit", (event) => event.preventDefault());
document.addEventListener("keydown", onKey);
new IntersectionObserver((entries) => {
  if (entries.some((entry) => entry.isIntersecting)) fillViewport();
}, { rootMargin: "400px" }).observe($("sentinel"));
// and on scrolling: the observer reports changes only, so a page that grew and was scrolled to its end in the
// same frame would otherwise never fetch the next page
let scrollPending = false;
addEventListener("scroll", () => {
  if (scrollPending) return;
  scrollPending = true;
  requestAnimationFrame(() => { scrollPending = false; fillViewport(); });
}, { passive: true });

localize();
mountBackupPanel($("backup"));
initSelection(say);
selectEl("sort").value = "newest";
refresh();
if (!shownId) search.focus();
