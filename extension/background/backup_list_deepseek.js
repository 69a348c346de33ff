// DeepSeek's part of a backup (the interface is backup_lists.js's): GET /api/v0/chat_session/fetch_page (the
// page's own session list, unpinned chats newest first), paged by the last chat's updated_at (lte_cursor: the chat
// at the cursor comes again and is listed once); the list ends when has_more is false, a cursor comes back or a
// page adds nothing new (`bounds`). Each chat is then read with chat/history_messages, as Export does.
const LIST = "/api/v0/chat_session/fetch_page?lte_cursor.pinned=false";
const enc = encodeURIComponent;

function marker(value) {
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  return typeof value === "string" && value ? value : null;
}

export const deepseekBackup = {
  home: "https://chat.deepseek.com/",
  initialListing: () => ({ phase: "chats", cursor: null, cursors: [] }),

  nextListPath(listing) {
    if (listing.phase !== "chats") return null;
    return listing.cursor === null ? LIST : `${LIST}&lte_cursor.updated_at=${enc(listing.cursor)}`;
  },

  applyListReply(listing, reply, bounds) {
    const data = reply?.data?.biz_data;
    const sessions = Array.isArray(data?.chat_sessions) ? data.chat_sessions : [];
    const entries = sessions.filter((s) => s && bounds.id(s.id)).map((s) => ({ id: s.id, title: bounds.title(s.title), updated: marker(s.updated_at) }));
    const fresh = entries.some((e) => !bounds.known(e.id)); // a page of nothing new: the site repeats itself
    const cursor = data?.has_more === true && fresh ? bounds.freshCursor(listing, entries.at(-1)?.updated ?? null) : null;
    const next = cursor ? bounds.nextCursor(listing, cursor) : { ...listing, phase: "end", cursor: null, cursors: [] };
    return { listing: next, entries, projects: [] };
  },

  conversationRequest: (entry) => `/api/v0/chat/history_messages?chat_session_id=${enc(entry.id)}`,
  conversationKind: (payload) => ({ kind: "deepseek_api",
    ok: payload?.code === 0 && Array.isArray(payload?.data?.biz_data?.chat_messages) && payload.data.biz_data.chat_messages.length > 0 }),
  sourceUrl: (entry) => `https://chat.deepseek.com/a/chat/s/${entry.id}`,
};
