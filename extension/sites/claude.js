// claude.ai adapter (the interface is in sites/README.md). API path: org from the lastActiveOrg cookie
// (else /api/organizations, the org that can chat), then chat_conversations/{uuid} with the full tree and
// all tool blocks. DOM path: message selectors of docs/sites.md; rows keyed by data-index when virtualised.
import { MnemoError } from "../shared/errors.js";
import { fetchJson, readCookie } from "./page.js";

const ID_PATTERN = /^\/chat\/([0-9a-f-]{36})/i;
const USER = "[data-testid='user-message'], .font-user-message, [class*='font-user-message']";
const ASSISTANT = ".font-claude-response, [data-testid='assistant-message'], .font-claude-message, [data-is-streaming]";
const CONVERSATION_QUERY = "tree=True&rendering_mode=messages&render_all_tools=true";

/** The organizations, those that can chat first (API-only orgs answer 404 on chat endpoints). */
async function orgsChatFirst() {
  const orgs = await fetchJson("/api/organizations");
  const list = Array.isArray(orgs) ? orgs.filter((org) => org && typeof org === "object") : [];
  return list.filter((org) => (org.capabilities ?? []).includes("chat")).concat(list);
}

async function chatOrgs() {
  return (await orgsChatFirst()).map((org) => org.uuid).filter(Boolean);
}

function outermost(nodes) {
  return nodes.filter((node) => !nodes.some((other) => other !== node && other.contains(node)));
}

function turnsInPage() {
  const rows = [...document.querySelectorAll("[data-test-render-count]")]
    .filter((row) => row.querySelector(`${USER}, ${ASSISTANT}`) || row.matches(`${USER}, ${ASSISTANT}`));
  if (rows.length) return outermost(rows);
  const messages = [...document.querySelectorAll(`${USER}, ${ASSISTANT}`)]
    .filter((node) => !node.closest("#markdown-artifact"));
  return outermost(messages);
}

function roleOf(turn) {
  if (turn.matches(USER) || turn.querySelector(USER)) return "user";
  if (turn.matches(ASSISTANT) || turn.querySelector(ASSISTANT)) return "assistant";
  return null;
}

function bodyOf(turn) {
  if (roleOf(turn) === "user") return turn.matches("[data-testid='user-message']") ? turn : turn.querySelector(USER);
  // the whole response, not only its .standard-markdown blocks: tool-use chips ("visualize show_widget") and
  // other visible parts of an answer sit beside them and would be lost
  const responses = [...turn.querySelectorAll(ASSISTANT)].concat(turn.matches(ASSISTANT) ? [turn] : [])
    .filter((node) => !node.closest("#markdown-artifact"));
  if (responses.length) return outermost(responses);
  return [...turn.querySelectorAll(".standard-markdown, .progressive-markdown")].filter((node) => !node.closest("#markdown-artifact"));
}

function indexOf(turn) {
  const row = turn.closest("[data-index]");
  return row ? Number(row.getAttribute("data-index")) : null;
}

const dom = {
  firstIndex: 0,
  // claude.ai mounts only part of a long thread (since mid-2026) and may add older rows when the top is
  // reached: the sweep waits this long at the top before it believes nothing older is coming
  topSettleMs: 1000,
  turns: turnsInPage,
  isUnrendered: (turn) => turn.matches("[data-is-streaming='true']") || Boolean(turn.querySelector("[data-is-streaming='true']")),
  keyOf: (turn) => {
    const index = indexOf(turn);
    return Number.isInteger(index) ? `index-${index}` : null;
  },
  indexOf: (turn) => {
    const index = indexOf(turn);
    return Number.isInteger(index) ? index : null;
  },
  // each message row says "Message 3 of 40" (aria-posinset / aria-setsize): the sweep checks it read them all
  announcedTotal: () => {
    const sizes = [...document.querySelectorAll("[data-index] [aria-setsize]")].map((node) => Number(node.getAttribute("aria-setsize")));
    const valid = sizes.filter((size) => Number.isInteger(size) && size > 0);
    return valid.length ? Math.max(...valid) : null;
  },
  roleOf,
  bodyOf,
  modelOf: () => null, // claude.ai shows the model per conversation only
  scrollRoot: () => {
    const first = document.querySelector(`${USER}, ${ASSISTANT}`);
    for (let node = first?.parentElement; node; node = node.parentElement) {
      const style = getComputedStyle(node);
      if (/(auto|scroll)/.test(style.overflowY) && node.scrollHeight > node.clientHeight) return node;
    }
    return document.scrollingElement;
  },
  attachments: {
    files: "[data-testid='file-thumbnail'], .artifact-block-cell .line-clamp-1",
    images: "div.group\\/thumbnail img",
  },
};

const COMPOSER = [".ProseMirror[contenteditable='true']", "[data-testid='chat-input'] [contenteditable='true']", "[contenteditable='true']"];

export const claude = {
  name: "claude",
  hosts: ["claude.ai"],
  source: true,
  conversationId: () => location.pathname.match(ID_PATTERN)?.[1] ?? null,
  title: () => {
    const node = document.querySelector("[data-testid='chat-title-button'] .truncate, button[data-testid='chat-menu-trigger']");
    return node?.textContent.trim() || document.title.replace(/\s+[-|]\s+Claude$/, "").trim() || null;
  },

  /** Who a backup reads: the name of the organization the tab uses (the lastActiveOrg cookie's, else the first that chats). */
  async account() {
    const orgs = await orgsChatFirst();
    const cookieOrg = readCookie("lastActiveOrg");
    const org = orgs.find((o) => cookieOrg && o.uuid === cookieOrg) ?? orgs[0];
    return typeof org?.name === "string" && org.name.trim() ? org.name.trim() : null;
  },

  apiPrefix: "/api/",
  streaming: "[data-is-streaming='true'], button[aria-label='Stop response']",
  apiGet: (path) => fetchJson(path),

  async fetchApi(id) {
    const path = (org) => `/api/organizations/${encodeURIComponent(org)}/chat_conversations/${encodeURIComponent(id)}?${CONVERSATION_QUERY}`;
    const cookieOrg = readCookie("lastActiveOrg");
    let lastError = new MnemoError("NO_ORG", "no Claude organization");
    const attempt = async (org) => {
      try {
        const result = await fetchJson(path(org));
        if (!result || !Array.isArray(result.chat_messages)) throw new MnemoError("API_SHAPE", "no chat_messages in reply");
        return { kind: "claude_api", payload: result };
      } catch (error) {
        if (!/^HTTP_(403|404)$/.test(error.code)) throw error;
        lastError = error; // wrong org for this chat: try the next one
        return null;
      }
    };
    if (cookieOrg) {
      const found = await attempt(cookieOrg);
      if (found) return found;
    }
    for (const org of new Set(await chatOrgs())) {
      if (org === cookieOrg) continue;
      const found = await attempt(org);
      if (found) return found;
    }
    throw lastError;
  },

  probes: {
    api: async () => Boolean(readCookie("lastActiveOrg") || (await chatOrgs()).length),
    turnSelectors: ["[data-test-render-count]", "[data-testid='user-message']", ".font-claude-response", ".font-claude-message", "[data-is-streaming]"],
    scrollRoot: ["[data-index]"],
    anchors: ["[data-testid='wiggle-controls-actions']", "[data-testid='chat-header'] [data-testid='chat-menu-trigger']",
      "[data-testid='chat-title-button']", "[data-testid='chat-header']"],
  },
  dom,
  composer: COMPOSER,

  anchor() {
    for (const selector of this.probes.anchors) {
      const node = document.querySelector(selector);
      if (node) return { node, place: selector === "[data-testid='chat-header']" ? "append" : "before" };
    }
    return null;
  },
};
