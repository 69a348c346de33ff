// www.perplexity.ai's part of a backup (the interface is backup_lists.js's): the list is
// POST /rest/thread/list_ask_threads {limit, offset, ascending: false}, paged by offset until a short page, the
// items' total_threads, or a page that adds nothing new (`bounds`, from backup_lists.js: the site would loop); each
// thread is read by the tab's adapter (/rest/thread/{slug}, all its pages).
const PAGE = 50;
const LIST = "/rest/thread/list_ask_threads?version=2.18&source=default";

function text(value) {
  return typeof value === "string" && value ? value : null;
}

export const perplexityBackup = {
  home: "https://www.perplexity.ai/",
  initialListing: () => ({ phase: "threads", offset: 0 }),

  nextListPath(listing) {
    if (listing.phase !== "threads") return null;
    return { path: LIST, method: "POST", body: { limit: PAGE, offset: listing.offset, ascending: false, search_term: "" } };
  },

  applyListReply(listing, reply, bounds) {
    const items = Array.isArray(reply) ? reply : Array.isArray(reply?.threads) ? reply.threads : [];
    const entries = items.filter((t) => t && bounds.id(t.slug)).map((t) => ({
      id: t.slug, title: bounds.title(t.title), updated: text(t.last_query_datetime),
    }));
    const offset = listing.offset + items.length;
    const total = items.map((t) => t?.total_threads).find((n) => Number.isInteger(n));
    const fresh = entries.some((e) => !bounds.known(e.id));
    const more = fresh && items.length >= PAGE && (total === undefined || offset < total);
    return { listing: more ? { ...listing, offset } : { ...listing, phase: "end" }, entries, projects: [] };
  },

  conversationRequest: (entry) => ({ fetchApi: entry.id }),
  conversationKind: (payload) => ({ kind: "perplexity_api", ok: Array.isArray(payload?.entries) && payload.entries.length > 0 }),
  sourceUrl: (entry) => `https://www.perplexity.ai/search/${entry.id}`,
};
