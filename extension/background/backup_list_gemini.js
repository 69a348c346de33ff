// What a Gemini backup lists: the chat list (batchexecute rpc MaZiqc), pinned chats first (flag 1) then the rest
// (flag 0), each paged by the token its reply ends with; every chat is then read as Export reads it (hNvQHb,
// every page). The paths are the adapter's (sites/gemini.js `apiGet`): the tab POSTs them with the page's tokens.
const PATH = "/_/BardChatUi/data/batchexecute";
const FLAGS = [1, 0];
const enc = encodeURIComponent;

function text(value) {
  return typeof value === "string" && value ? value : null;
}

/** A chat's [seconds, nanos] as the list's change marker: the sync state compares it as a string. */
function marker(time) {
  return Array.isArray(time) && Number.isInteger(time[0]) ? `${time[0]}.${String(time[1] ?? 0).padStart(9, "0")}` : null;
}

export const geminiBackup = {
  home: "https://gemini.google.com/app",
  initial: () => ({ flagIndex: 0, cursor: null, phase: "chats" }),
  nextPath(listing) {
    if (listing.phase !== "chats" || listing.flagIndex >= FLAGS.length) return null;
    return `${PATH}?rpcids=MaZiqc&flag=${FLAGS[listing.flagIndex]}&cursor=${enc(listing.cursor ?? "")}`;
  },
  apply(listing, reply) {
    const items = Array.isArray(reply?.[2]) ? reply[2] : [];
    const entries = items.filter((item) => Array.isArray(item) && text(item[0]))
      .map((item) => ({ id: item[0], title: text(item[1]), updated: marker(item[5]) }));
    const cursor = text(reply?.[1]);
    const next = cursor && entries.length && cursor !== listing.cursor ? { ...listing, cursor }
      : { ...listing, cursor: null, flagIndex: listing.flagIndex + 1 };
    if (next.flagIndex >= FLAGS.length) next.phase = "end";
    return { listing: next, entries, projects: [] };
  },
  conversationPath: (entry) => `${PATH}?rpcids=hNvQHb&conversation=${enc(entry.id)}`,
  kind: (payload) => ({ kind: "gemini_api", ok: payload?.format === "batchexecute" && Array.isArray(payload.responses) && payload.responses.length > 0 }),
  sourceUrl: (entry) => `https://gemini.google.com/app/${String(entry.id).replace(/^c_/, "")}`,
  // the conversation's reply has no title: the list's
  withEntry: (payload, entry) => ({ ...payload, title: payload.title ?? entry.title ?? null }),
};
