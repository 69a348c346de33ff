// What a backup lists, per site, as a small state machine over plain JSON (kept in storage.local with the run):
// `nextListPath(site, listing)` is the next list request (a same-origin path the site tab fetches), and
// `applyListReply(site, listing, reply)` reads its answer into listed conversations and the next state.
// Endpoints and paging: ../shared/docs/sites.md (ChatGPT offset/limit + total, archived, the project sidebar
// with cursors; Claude organizations, projects, chat_conversations_v2 with has_more).
//
// A site's answers bound nothing here: a phase ends when a cursor comes back or a page lists nothing new, and a run
// lists at most MAX_LIST_PAGES pages, MAX_LISTED conversations and MAX_PROJECTS projects, keeping each text a
// project carries (name, instructions, documents) within TEXT_LIMITS (`listing.textsCut` counts what was cut).
// grok.com, Perplexity, Gemini and DeepSeek list through modules of their own, held to the same bounds (`boundsFor`).

import { deepseekBackup } from "./backup_list_deepseek.js";
import { geminiBackup } from "./backup_list_gemini.js";
import { grokBackup } from "./backup_grok.js";
import { perplexityBackup } from "./backup_perplexity.js";

// Sites whose whole backup part is one module of their own (home, list, conversation request, kind, URL)
const SITE_BACKUPS = { grok: grokBackup, perplexity: perplexityBackup, gemini: geminiBackup, deepseek: deepseekBackup };

const CHATGPT_PAGE = 100; // the list's maximum (limit=101 answers 422)
const CLAUDE_PAGE = 50;
const CLAUDE_QUERY = "tree=True&rendering_mode=messages&render_all_tools=true";
export const MAX_LIST_PAGES = 5_000;
export const MAX_LISTED = 100_000;
export const MAX_PROJECTS = 500;
const MAX_DOCS = 50; // documents kept per project
const TEXT_LIMITS = Object.freeze({ title: 500, name: 500, instructions: 100_000, content: 100_000 }); // characters
const MAX_CURSOR = 2_000; // characters: a longer cursor ends its phase
const MAX_CURSOR_PAGES = 1_000; // pages of one cursor-paged list (the sidebar, a project)

/** The page a backup opens when no tab of the site is open. */
export function siteHome(site) {
  return SITE_BACKUPS[site]?.home ?? (site === "claude" ? "https://claude.ai/" : "https://chatgpt.com/");
}

export function initialListing(site) {
  if (SITE_BACKUPS[site]) return { ...SITE_BACKUPS[site].initialListing(), pages: 0, listed: 0, textsCut: 0 };
  return site === "claude"
    ? { phase: "orgs", orgs: [], orgIndex: 0, offset: 0, projectQueue: [], pages: 0, listed: 0, textsCut: 0 }
    : { phase: "main", offset: 0, cursor: null, cursors: [], projects: [], projectIndex: 0, pages: 0, listed: 0, textsCut: 0 };
}

const enc = encodeURIComponent;

/** The next list request (a GET path, or `{path, method, body}`), or null when everything is listed. */
export function nextListPath(site, listing) {
  if (SITE_BACKUPS[site]) return SITE_BACKUPS[site].nextListPath(listing);
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

/** The conversation's own path (the full tree) for a listed entry, or `{fetchApi: id}`: the tab's adapter reads it. */
export function conversationPath(site, entry) {
  if (SITE_BACKUPS[site]) return SITE_BACKUPS[site].conversationRequest(entry);
  if (site === "claude") return `/api/organizations/${enc(entry.org)}/chat_conversations/${enc(entry.id)}?${CLAUDE_QUERY}`;
  return `/backend-api/conversation/${enc(entry.id)}`;
}

/**
 * The save `kind` and whether the reply is a shape we save. ChatGPT: the full tree (`mapping`), or a window of
 * `messages` (the plural endpoint's shape), which the host reads as partial and never lets replace a complete copy.
 */
export function conversationKind(site, payload) {
  if (SITE_BACKUPS[site]) return SITE_BACKUPS[site].conversationKind(payload);
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

/** A text a site sent, kept within its limit; `cut.count` counts the ones cut. */
function limited(value, kind, cut) {
  const kept = text(value);
  if (kept === null || kept.length <= TEXT_LIMITS[kind]) return kept;
  cut.count += 1;
  return kept.slice(0, TEXT_LIMITS[kind]);
}

function chatgptEntries(items, project, cut) {
  return (Array.isArray(items) ? items : []).filter((item) => item && text(item.id) && item.id.length <= TEXT_LIMITS.name)
    .map((item) => ({ id: item.id, title: limited(item.title, "title", cut), updated: marker(item.update_time), ...(project ? { project } : {}) }));
}

/** A cursor the site answered, or null; null too for one this phase already asked (the site would loop). */
function freshCursor(listing, value) {
  const cursor = value === null || value === undefined || value === "" ? null : String(value);
  const asked = listing.cursors ?? [];
  if (cursor === null || cursor.length > MAX_CURSOR || cursor === listing.cursor || asked.includes(cursor)) return null;
  return asked.length < MAX_CURSOR_PAGES ? cursor : null;
}

function nextCursor(listing, cursor) {
  return { ...listing, cursor, cursors: [...(listing.cursors ?? []), ...(listing.cursor ? [listing.cursor] : [])] };
}

function chatgptOffsetPage(listing, reply, nextPhase) {
  const items = Array.isArray(reply?.items) ? reply.items : [];
  const offset = listing.offset + items.length;
  const total = Number.isInteger(reply?.total) ? reply.total : null;
  const limit = Number.isInteger(reply?.limit) && reply.limit > 0 ? reply.limit : CHATGPT_PAGE;
  const more = items.length > 0 && (total !== null ? offset < total : items.length >= limit) && reply?.has_more !== false;
  return more ? { ...listing, offset } : { ...listing, phase: nextPhase, offset: 0, cursor: null };
}

function applyChatgpt(listing, reply, known, cut) {
  if (listing.phase === "main" || listing.phase === "archived") {
    const entries = chatgptEntries(reply?.items, null, cut);
    const nextPhase = listing.phase === "main" ? "archived" : "sidebar";
    const stale = entries.length > 0 && entries.every((e) => known(e.id)); // the site repeats itself: nothing more
    const next = stale ? { ...listing, phase: nextPhase, offset: 0, cursor: null } : chatgptOffsetPage(listing, reply, nextPhase);
    return { listing: next, entries, projects: [] };
  }
  if (listing.phase === "sidebar") {
    const listed = new Set(listing.projects.map((p) => p.id));
    const gizmos = (Array.isArray(reply?.items) ? reply.items : []).map((item) => item?.gizmo?.gizmo ?? item?.gizmo)
      .filter((g) => g && text(g.id) && g.id.length <= TEXT_LIMITS.name);
    const fresh = gizmos.some((g) => !listed.has(g.id)); // (custom GPTs too: a page may list no project)
    const projects = gizmos.filter((g) => /^g-p-/.test(g.id) && !listed.has(g.id))
      .slice(0, Math.max(0, MAX_PROJECTS - listed.size))
      .map((g) => ({ id: g.id, name: limited(text(g.display?.name) ?? text(g.name), "name", cut),
        instructions: limited(g.instructions, "instructions", cut) }));
    // (only the ids go in the listing: the projects' texts are stored once, apart from the run's state)
    const all = listing.projects.concat(projects.map((p) => ({ id: p.id })));
    const cursor = fresh ? freshCursor(listing, text(reply?.cursor) ?? (Number.isInteger(reply?.cursor) ? reply.cursor : null)) : null;
    const next = cursor ? { ...nextCursor(listing, cursor), projects: all }
      : { ...listing, projects: all, phase: "project", cursor: null, cursors: [], projectIndex: 0 };
    return { listing: next, entries: [], projects };
  }
  if (listing.phase === "project") {
    const project = listing.projects[listing.projectIndex];
    const entries = chatgptEntries(reply?.items, project?.id, cut);
    // (a chat the main list gave still counts as new here while its queued entry lacks this project)
    const fresh = entries.some((e) => !known(e.id, e.project));
    const cursor = fresh ? freshCursor(listing, reply?.cursor) : null;
    const next = cursor ? nextCursor(listing, cursor) : { ...listing, cursor: null, cursors: [], projectIndex: listing.projectIndex + 1 };
    if (next.projectIndex >= listing.projects.length) next.phase = "end";
    return { listing: next, entries, projects: [] };
  }
  return { listing: { ...listing, phase: "end" }, entries: [], projects: [] };
}

function applyClaude(listing, reply, known, cut) {
  const org = listing.orgs[listing.orgIndex];
  if (listing.phase === "orgs") {
    const all = Array.isArray(reply) ? reply.filter((o) => o && text(o.uuid)) : [];
    const chat = all.filter((o) => !Array.isArray(o.capabilities) || o.capabilities.includes("chat"));
    const orgs = (chat.length ? chat : all).map((o) => o.uuid);
    return { listing: { ...listing, orgs, orgIndex: 0, phase: orgs.length ? "projects" : "end" }, entries: [], projects: [] };
  }
  if (listing.phase === "projects") {
    const projects = (Array.isArray(reply) ? reply : []).filter((p) => p && text(p.uuid) && p.uuid.length <= TEXT_LIMITS.name)
      .slice(0, MAX_PROJECTS)
      .map((p) => ({ id: p.uuid, org, name: limited(p.name, "name", cut), instructions: limited(p.prompt_template, "instructions", cut),
        description: limited(p.description, "instructions", cut) }));
    const projectQueue = projects.map((p) => p.id);
    return { listing: { ...listing, projectQueue, phase: projectQueue.length ? "docs" : "chats", offset: 0 }, entries: [], projects };
  }
  if (listing.phase === "docs") {
    const all = (Array.isArray(reply) ? reply : []).filter((d) => d && typeof d.content === "string");
    if (all.length > MAX_DOCS) cut.count += all.length - MAX_DOCS;
    const docs = all.slice(0, MAX_DOCS).map((d) => ({ filename: limited(d.filename, "name", cut), content: limited(d.content, "content", cut) ?? "" }));
    const [id, ...rest] = listing.projectQueue;
    return { listing: { ...listing, projectQueue: rest, phase: rest.length ? "docs" : "chats" }, entries: [], projects: [], docs: { id, docs } };
  }
  if (listing.phase === "chats") {
    const items = Array.isArray(reply) ? reply : Array.isArray(reply?.data) ? reply.data : [];
    const entries = items.filter((c) => c && text(c.uuid) && c.uuid.length <= TEXT_LIMITS.name).map((c) => ({
      id: c.uuid, title: limited(c.name, "title", cut), updated: marker(c.updated_at), org,
      ...(text(c.project_uuid) ? { project: c.project_uuid } : {}),
    }));
    const fresh = entries.some((e) => !known(e.id)); // has_more with nothing new: the site repeats itself
    const more = !Array.isArray(reply) && reply?.has_more === true && items.length > 0 && fresh;
    if (more) return { listing: { ...listing, offset: listing.offset + items.length }, entries, projects: [] };
    const orgIndex = listing.orgIndex + 1;
    const phase = orgIndex < listing.orgs.length ? "projects" : "end";
    return { listing: { ...listing, orgIndex, offset: 0, phase }, entries, projects: [] };
  }
  return { listing: { ...listing, phase: "end" }, entries: [], projects: [] };
}

/** The conversation's page on its site, saved as the source URL. */
export function sourceUrlOf(site, entry) {
  if (SITE_BACKUPS[site]) return SITE_BACKUPS[site].sourceUrl(entry);
  if (site === "claude") return `https://claude.ai/chat/${entry.id}`;
  return entry.project ? `https://chatgpt.com/g/${entry.project}/c/${entry.id}` : `https://chatgpt.com/c/${entry.id}`;
}

/** The saved payload with what only the list knew (Gemini's reply has no title: the list's). */
export function withListEntry(site, payload, entry) {
  return SITE_BACKUPS[site]?.withEntry ? SITE_BACKUPS[site].withEntry(payload, entry) : payload;
}

/** What a site's own list reader bounds its pages with (the same rules as ChatGPT's and Claude's). */
function boundsFor(known, cut) {
  return {
    known,
    id: (value) => (text(value) && value.length <= TEXT_LIMITS.name ? value : null),
    title: (value) => limited(value, "title", cut),
    freshCursor,
    nextCursor,
  };
}

/**
 * Read one list reply: `{listing, entries: [{id, title, updated, org?, project?}], projects, docs?}`. `known(id,
 * project)` says whether this run listed `id` already, with `project` when one is given and its entry can still take
 * it (a page of nothing new ends its phase).
 * @param {(id: string, project?: string) => boolean} [known]
 */
export function applyListReply(site, listing, reply, known = () => false) {
  const cut = { count: 0 };
  const read = SITE_BACKUPS[site] ? SITE_BACKUPS[site].applyListReply(listing, reply, boundsFor(known, cut))
    : site === "claude" ? applyClaude(listing, reply, known, cut) : applyChatgpt(listing, reply, known, cut);
  const pages = (listing.pages ?? 0) + 1;
  const room = Math.max(0, MAX_LISTED - (listing.listed ?? 0));
  const entries = read.entries.slice(0, room);
  const next = { ...read.listing, pages, listed: (listing.listed ?? 0) + entries.length, textsCut: (listing.textsCut ?? 0) + cut.count };
  if (pages >= MAX_LIST_PAGES || entries.length >= room) { // a run lists this much at most: the rest next run
    next.phase = "end";
    next.capped = pages >= MAX_LIST_PAGES ? "pages" : "conversations";
  }
  return { ...read, listing: next, entries };
}
