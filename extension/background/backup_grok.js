// grok.com's part of a backup (the interface is backup_lists.js's): the list is
// GET /rest/app-chat/conversations?pageSize=60, paged by the reply's nextPageToken; each conversation is read by
// the grok.com tab's adapter (response-node, then load-responses: two requests, counted as one by the schedule).
// The list ends when a token comes back or a page adds nothing new (`bounds`, from backup_lists.js).
const PAGE = 60;
const LIST = "/rest/app-chat/conversations";

function text(value) {
  return typeof value === "string" && value ? value : null;
}

export const grokBackup = {
  home: "https://grok.com/",
  initialListing: () => ({ phase: "chats", cursor: null, cursors: [] }),

  nextListPath(listing) {
    if (listing.phase !== "chats") return null;
    const token = listing.cursor ? `&pageToken=${encodeURIComponent(listing.cursor)}` : "";
    return `${LIST}?pageSize=${PAGE}${token}`;
  },

  applyListReply(listing, reply, bounds) {
    const items = Array.isArray(reply?.conversations) ? reply.conversations : [];
    const entries = items.filter((c) => c && bounds.id(c.conversationId)).map((c) => ({
      id: c.conversationId, title: bounds.title(c.title), updated: text(c.modifyTime) ?? text(c.createTime),
    }));
    const fresh = entries.some((e) => !bounds.known(e.id)); // a page of nothing new: the site repeats itself
    const token = fresh ? bounds.freshCursor(listing, text(reply?.nextPageToken)) : null;
    const next = token ? bounds.nextCursor(listing, token) : { ...listing, phase: "end", cursor: null, cursors: [] };
    return { listing: next, entries, projects: [] };
  },

  /** Read through the tab's adapter (its fetchApi), not one path: a conversation takes two requests. */
  conversationRequest: (entry) => ({ fetchApi: entry.id }),
  conversationKind: (payload) => ({ kind: "grok_api", ok: Array.isArray(payload?.responses) && payload.responses.length > 0 }),
  sourceUrl: (entry) => `https://grok.com/c/${entry.id}`,
};
