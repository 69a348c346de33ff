// What a backup lists, per site, as a small state machine over plain JSON (kept in storage.local with the run):
// `nextListPath(site, listing)` is the next list request (a same-origin path the site tab fetches), and
// `applyListReply(site, listing, reply)` reads its answer into listed conversations and the next state.
// Endpoints and paging: ../shared/docs/sites.md (ChatGPT offset/limit + total, archived, the project sidebar
// with cursors; Claude organizations, projects, chat_conversations_v2 with has_more). Sites added later list
// in a module of their own (backup_list_<site>.js), registered in OTHER_SITES.
import { deepseekBackup } from "./backup_list_deepseek.js";
import { geminiBackup } from "./backup_list_gemini.js";

/** Listing, paths and save kind of the sites beyond ChatGPT and Claude, one module each. */
export const OTHER_SITES = { gemini: geminiBackup, deepseek: deepseekBackup };

const CHATGPT_PAGE = 100; // the list's maximum (limit=101 answers 422)
const CLAUDE_PAGE = 50;
const CLAUDE_QUERY = "tree=True&rendering_mode=messages&render_all_tools=true";

export function initialListing(site) {
  if (OTHER_SITES[site]) return OTHER_SITES[site].initial();
  return site === "claude"
    ? { phase: "orgs", orgs: [], orgIndex: 0, offset: 0, projectQueue: [] }
    : { phase: "main", offset: 0, cursor: null, projects: [], projectIndex: 0 };
}

const enc = encodeURIComponent;

/** The next list path, or null when everything is listed. */
export function nextListPath(site, listing) {
  if (OTHER_SITES[site]) return OTHER_SITES[site].nextPath(listing);
  if (site === "claude") {
    const org = listing.orgs[listing.orgIndex];
    if (listing.phase === "orgs") return "/api/organizations";
    if (!org) return null;
    if (listing.phase === "projects") return `/api/organizations/${enc(org)}/projects`;
    if (listing.phase === "docs") return `/api/organizations/${enc(org)}/projects/${enc(listing.projectQueue[0])}/docs`;
    if (listing.phase === "chats") {
      return `/api/organizations/${enc(org)}/chat_conversations_v2?limit=${CLAUDE_PAGE}&offset=${listing.offset}&consistency=strong`;
    }
    return null;
  }
  if (listing.phase === "main") return `/backend-api/conversations?offset=${listing.offset}&limit=${CHATGPT_PAGE}&order=updated`;
  if (listing.phase === "archived") {
    return `/backend-api/conversations?offset=${listing.offset}&limit=${CHATGPT_PAGE}&order=updated&is_archived=true`;
  }
  if (listing.phase === "sidebar") return `/backend-api/gizmos/snorlax/sidebar?conversations_per_gizmo=0&cursor=${enc(listing.cursor ?? "")}`;
  if (listing.phase === "project") {
    const project = listing.projects[listing.projectIndex];
    return project ? `/backend-api/gizmos/${enc(project.id)}/conversations?cursor=${enc(listing.cursor ?? "0")}` : null;
  }
  return null;
}

/** The conversation's own path (the full tree) for a listed entry. */
export function conversationPath(site, entry) {
  if (OTHER_SITES[site]) return OTHER_SITES[site].conversationPath(entry);
  if (site === "claude") return `/api/organizations/${enc(entry.org)}/chat_conversations/${enc(entry.id)}?${CLAUDE_QUERY}`;
  return `/backend-api/conversation/${enc(entry.id)}`;
}

/**
 * The save `kind` and whether the reply is a shape we save. ChatGPT: the full tree (`mapping`), or a window of
 * `messages` (the plural endpoint's shape), which the host reads as partial and never lets replace a complete copy.
 */
export function conversationKind(site, payload) {
  if (OTHER_SITES[site]) return OTHER_SITES[site].kind(payload);
  const chatgpt = (p) => Boolean(p.mapping && typeof p.mapping === "object") || (Array.isArray(p.messages) && p.messages.length > 0);
  const ok = Boolean(payload && typeof payload === "object") && (site === "claude" ? Array.isArray(payload.chat_messages) : chatgpt(payload));
  return { kind: site === "claude" ? "claude_api" : "chatgpt_api", ok };
}

function marker(value) {
  if (value === null || value === undefined) return null;
  return typeof value === "string" ? value : String(value);
}

function text(value) {
  return typeof value === "string" && value ? value : null;
}

function chatgptEntries(items, project) {
  return (Array.isArray(items) ? items : []).filter((item) => item && text(item.id)).map((item) => ({
    id: item.id, title: text(item.title), updated: marker(item.update_time), ...(project ? { project } : {}),
  }));
}

function chatgptOffsetPage(listing, reply, nextPhase) {
  const items = Array.isArray(reply?.items) ? reply.items : [];
  const offset = listing.offset + items.length;
  const total = Number.isInteger(reply?.total) ? reply.total : null;
  const limit = Number.isInteger(reply?.limit) && reply.limit > 0 ? reply.limit : CHATGPT_PAGE;
  const more = items.length > 0 && (total !== null ? offset < total : items.length >= limit) && reply?.has_more !== false;
  return more ? { ...listing, offset } : { ...listing, phase: nextPhase, offset: 0, cursor: null };
}

function applyChatgpt(listing, reply) {
  if (listing.phase === "main" || listing.phase === "archived") {
    const next = chatgptOffsetPage(listing, reply, listing.phase === "main" ? "archived" : "sidebar");
    return { listing: next, entries: chatgptEntries(reply?.items), projects: [] };
  }
  if (listing.phase === "sidebar") {
    const projects = (Array.isArray(reply?.items) ? reply.items : []).map((item) => item?.gizmo?.gizmo ?? item?.gizmo)
      .filter((g) => g && text(g.id) && /^g-p-/.test(g.id))
      .map((g) => ({ id: g.id, name: text(g.display?.name) ?? text(g.name), instructions: text(g.instructions) }));
    const cursor = text(reply?.cursor) ?? (Number.isInteger(reply?.cursor) ? String(reply.cursor) : null);
    const all = listing.projects.concat(projects);
    const next = cursor ? { ...listing, projects: all, cursor } : { ...listing, projects: all, phase: "project", cursor: null, projectIndex: 0 };
    return { listing: next, entries: [], projects };
  }
  if (listing.phase === "project") {
    const project = listing.projects[listing.projectIndex];
    const entries = chatgptEntries(reply?.items, project?.id);
    const cursor = reply?.cursor === null || reply?.cursor === undefined || reply?.cursor === "" ? null : String(reply.cursor);
    const next = cursor && entries.length ? { ...listing, cursor } : { ...listing, cursor: null, projectIndex: listing.projectIndex + 1 };
    if (next.projectIndex >= listing.projects.length) next.phase = "end";
    return { listing: next, entries, projects: [] };
  }
  return { listing: { ...listing, phase: "end" }, entries: [], projects: [] };
}

function applyClaude(listing, reply) {
  const org = listing.orgs[listing.orgIndex];
  if (listing.phase === "orgs") {
    const all = Array.isArray(reply) ? reply.filter((o) => o && text(o.uuid)) : [];
    const chat = all.filter((o) => !Array.isArray(o.capabilities) || o.capabilities.includes("chat"));
    const orgs = (chat.length ? chat : all).map((o) => o.uuid);
    return { listing: { ...listing, orgs, orgIndex: 0, phase: orgs.length ? "projects" : "end" }, entries: [], projects: [] };
  }
  if (listing.phase === "projects") {
    const projects = (Array.isArray(reply) ? reply : []).filter((p) => p && text(p.uuid))
      .map((p) => ({ id: p.uuid, org, name: text(p.name), instructions: text(p.prompt_template), description: text(p.description) }));
    const projectQueue = projects.map((p) => p.id);
    return { listing: { ...listing, projectQueue, phase: projectQueue.length ? "docs" : "chats", offset: 0 }, entries: [], projects };
  }
  if (listing.phase === "docs") {
    const docs = (Array.isArray(reply) ? reply : []).filter((d) => d && typeof d.content === "string")
      .map((d) => ({ filename: text(d.filename), content: d.content }));
    const [id, ...rest] = listing.projectQueue;
    return { listing: { ...listing, projectQueue: rest, phase: rest.length ? "docs" : "chats" }, entries: [], projects: [], docs: { id, docs } };
  }
  if (listing.phase === "chats") {
    const items = Array.isArray(reply) ? reply : Array.isArray(reply?.data) ? reply.data : [];
    const entries = items.filter((c) => c && text(c.uuid)).map((c) => ({
      id: c.uuid, title: text(c.name), updated: marker(c.updated_at), org, ...(text(c.project_uuid) ? { project: c.project_uuid } : {}),
    }));
    const more = !Array.isArray(reply) && reply?.has_more === true && items.length > 0;
    if (more) return { listing: { ...listing, offset: listing.offset + items.length }, entries, projects: [] };
    const orgIndex = listing.orgIndex + 1;
    const phase = orgIndex < listing.orgs.length ? "projects" : "end";
    return { listing: { ...listing, orgIndex, offset: 0, phase }, entries, projects: [] };
  }
  return { listing: { ...listing, phase: "end" }, entries: [], projects: [] };
}

/** Read one list reply: `{listing, entries: [{id, title, updated, org?, project?}], projects, docs?}`. */
export function applyListReply(site, listing, reply) {
  if (OTHER_SITES[site]) return OTHER_SITES[site].apply(listing, reply);
  return site === "claude" ? applyClaude(listing, reply) : applyChatgpt(listing, reply);
}
