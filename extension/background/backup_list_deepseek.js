// What a DeepSeek backup lists: GET /api/v0/chat_session/fetch_page (the page's own session list, unpinned chats
// newest first), paged by the last chat's updated_at (lte_cursor: the chat at the cursor comes again and is
// listed once); each chat is then read with chat/history_messages, as Export does.
const LIST = "/api/v0/chat_session/fetch_page?lte_cursor.pinned=false";
const enc = encodeURIComponent;

function text(value) {
  return typeof value === "string" && value ? value : null;
}

function marker(value) {
  return typeof value === "number" && Number.isFinite(value) ? String(value) : text(value);
}

export const deepseekBackup = {
  home: "https://chat.deepseek.com/",
  initial: () => ({ phase: "chats", cursor: null }),
  nextPath(listing) {
    if (listing.phase !== "chats") return null;
    return listing.cursor === null ? LIST : `${LIST}&lte_cursor.updated_at=${enc(listing.cursor)}`;
  },
  apply(listing, reply) {
    const data = reply?.data?.biz_data;
    const sessions = Array.isArray(data?.chat_sessions) ? data.chat_sessions : [];
    const entries = sessions.filter((s) => s && text(s.id)).map((s) => ({ id: s.id, title: text(s.title), updated: marker(s.updated_at) }));
    const cursor = entries.length ? entries.at(-1).updated : null;
    const more = data?.has_more === true && cursor !== null && cursor !== listing.cursor;
    return { listing: more ? { ...listing, cursor } : { ...listing, phase: "end" }, entries, projects: [] };
  },
  conversationPath: (entry) => `/api/v0/chat/history_messages?chat_session_id=${enc(entry.id)}`,
  kind: (payload) => ({ kind: "deepseek_api",
    ok: payload?.code === 0 && Array.isArray(payload?.data?.biz_data?.chat_messages) && payload.data.biz_data.chat_messages.length > 0 }),
  sourceUrl: (entry) => `https://chat.deepseek.com/a/chat/s/${entry.id}`,
  withEntry: (payload) => payload,
};
