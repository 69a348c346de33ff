// Gemini's part of a backup (the interface is backup_lists.js's): the chat list (batchexecute rpc MaZiqc), pinned
// chats first (flag 1) then the rest (flag 0), each paged by the token its reply ends with; a flag's list ends when
// a token comes back or a page adds nothing new (`bounds`, from backup_lists.js). Every chat is then read by the
// tab's adapter as Export reads it (hNvQHb, every page). Both are POSTs the tab checks (content/backup_fetch.js).
const PATH = "/_/BardChatUi/data/batchexecute";
const FLAGS = [1, 0];

/** A chat's [seconds, nanos] as the list's change marker: the sync state compares it as a string. */
function marker(time) {
  return Array.isArray(time) && Number.isInteger(time[0]) ? `${time[0]}.${String(time[1] ?? 0).padStart(9, "0")}` : null;
}

export const geminiBackup = {
  home: "https://gemini.google.com/app",
  initialListing: () => ({ phase: "chats", flagIndex: 0, cursor: null, cursors: [] }),

  nextListPath(listing) {
    if (listing.phase !== "chats" || listing.flagIndex >= FLAGS.length) return null;
    return { path: PATH, method: "POST", body: { rpc: "MaZiqc", flag: FLAGS[listing.flagIndex], cursor: listing.cursor ?? "" } };
  },

  applyListReply(listing, reply, bounds) {
    const items = Array.isArray(reply?.[2]) ? reply[2] : [];
    const entries = items.filter((item) => Array.isArray(item) && bounds.id(item[0]))
      .map((item) => ({ id: item[0], title: bounds.title(item[1]), updated: marker(item[5]) }));
    const fresh = entries.some((e) => !bounds.known(e.id)); // a page of nothing new: the site repeats itself
    const token = fresh ? bounds.freshCursor(listing, typeof reply?.[1] === "string" ? reply[1] : null) : null;
    if (token) return { listing: bounds.nextCursor(listing, token), entries, projects: [] };
    const flagIndex = listing.flagIndex + 1;
    const next = { ...listing, flagIndex, cursor: null, cursors: [], phase: flagIndex < FLAGS.length ? "chats" : "end" };
    return { listing: next, entries, projects: [] };
  },

  /** Read through the tab's adapter (its fetchApi): a long chat takes one request a page. */
  conversationRequest: (entry) => ({ fetchApi: String(entry.id).replace(/^c_/, "") }),
  conversationKind: (payload) => ({ kind: "gemini_api",
    ok: payload?.format === "batchexecute" && Array.isArray(payload.responses) && payload.responses.length > 0 }),
  sourceUrl: (entry) => `https://gemini.google.com/app/${String(entry.id).replace(/^c_/, "")}`,
  // the conversation's reply has no title: the list's
  withEntry: (payload, entry) => ({ ...payload, title: payload.title ?? entry.title ?? null }),
};
