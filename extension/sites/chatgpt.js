// chatgpt.com adapter (the interface is in sites/README.md). API path: /api/auth/session token ->
// /backend-api/conversation/{id} (workspace header when the _account cookie names a workspace). The token
// stays in this module for the page's lifetime and is never sent anywhere but chatgpt.com itself.
// DOM path: the selector cascades of docs/sites.md, newest renderer first. Since Sept 2026 a turn is one
// `div[data-turn-key]` holding the prompt and its answer; the sweep gets its two messages as two elements
// (the user bubble, and the answer's role heading or first body), keyed `<turn key>:user` / `:assistant`.
import { MnemoError } from "../shared/errors.js";
import { fetchJson, readCookie } from "./page.js";

const ID_PATTERN = /^\/(?:share|c|g\/[a-z0-9-]+\/c)\/([a-z0-9-]+)/i;
const TURN_CASCADE = [
  "section[data-testid^='conversation-turn-']",
  "article[data-testid^='conversation-turn-']",
  "[data-testid^='conversation-turn-']",
  "article[data-turn-id]",
  "[data-virtualized-turn-content]",
];
const TURN_KEY = "[data-turn-key]";
const USER_BUBBLE = "[data-user-message-bubble]";
const ROLE_HEADING = "h4[data-conversation-role], h5[data-conversation-role], h6[data-conversation-role]";
const ANSWER_BODY = "[data-markdown-text-style='assistant-message']";
// never a class-based selector: those matched the sidebar (and [data-app-action-sidebar-scroll] holds no turns)
const SCROLL_ROOTS = ["[data-app-action-timeline-scroll]", "[data-scroll-root]", "#thread", "main .overflow-y-auto"];
let session = null; // {token, expires, user}

async function token(refresh = false) {
  if (!refresh && session && session.expires > Date.now() + 60_000) return session.token;
  const data = await fetchJson("/api/auth/session");
  if (!data?.accessToken) throw new MnemoError("LOGGED_OUT", "no ChatGPT session");
  const expires = Date.parse(data.expires) || Date.now() + 10 * 60_000;
  session = { token: data.accessToken, expires, user: data.user ?? null };
  return session.token;
}

let headersOf = { token: null, headers: null }; // the workspace check once per token, not once per request
let workspaceName = null; // the workspace the _account cookie names, as the check calls it

async function headers(accessToken) {
  if (headersOf.token === accessToken) return headersOf.headers;
  headersOf = { token: accessToken, headers: await buildHeaders(accessToken) };
  return headersOf.headers;
}

async function buildHeaders(accessToken) {
  const out = { Authorization: `Bearer ${accessToken}` };
  const deviceId = readCookie("oai-did");
  if (deviceId) out["OAI-Device-Id"] = deviceId;
  const account = readCookie("_account");
  workspaceName = null;
  if (account && account !== "personal") {
    try {
      const check = await fetchJson("/backend-api/accounts/check/v4-2023-04-27", out);
      const entry = check?.accounts?.[account];
      if (entry) out["ChatGPT-Account-Id"] = entry.account?.account_id ?? account;
      workspaceName = typeof entry?.account?.name === "string" ? entry.account.name.trim() || null : null;
    } catch {
      // not a workspace member or the check moved: the personal account still works
    }
  }
  return out;
}

function outermost(nodes) {
  return nodes.filter((node) => !nodes.some((other) => other !== node && other.contains(node)));
}

/** The answer's anchor in a Sept-2026 turn: its role heading (present on image-only answers too), else its body. */
function answerAnchor(turn) {
  const heading = [...turn.querySelectorAll(ROLE_HEADING)].find((h) => h.getAttribute("data-conversation-role") !== "user");
  return heading || turn.querySelector(ANSWER_BODY);
}

/** The messages of one Sept-2026 turn, in order; the turn itself while nothing inside has rendered. */
function messagesOfTurn(turn) {
  const user = turn.querySelector(USER_BUBBLE);
  const answer = answerAnchor(turn);
  const found = [user, answer].filter(Boolean);
  return found.length ? found : [turn];
}

function turnsInPage() {
  const scope = (node) => !node.closest("[data-app-shell-active-page='false']");
  const keyed = outermost([...document.querySelectorAll(TURN_KEY)].filter(scope));
  if (keyed.length) return keyed.flatMap(messagesOfTurn);
  const shells = [...document.querySelectorAll("[data-turn-id-container]")].filter(scope);
  if (shells.length) return shells;
  for (const selector of TURN_CASCADE) {
    const found = [...document.querySelectorAll(selector)].filter(scope);
    if (found.length) return found.filter((node) => !found.some((other) => other !== node && other.contains(node)));
  }
  return [...document.querySelectorAll("[data-message-author-role]")].filter(scope);
}

function roleOf(turn) {
  if (turn.matches(USER_BUBBLE)) return "user";
  if (turn.matches(ROLE_HEADING)) return turn.getAttribute("data-conversation-role") === "user" ? "user" : "assistant";
  if (turn.matches(ANSWER_BODY)) return "assistant";
  if (turn.matches(TURN_KEY)) return null; // a turn whose messages have not rendered
  const marked = turn.matches("[data-message-author-role]") ? turn : turn.querySelector("[data-message-author-role]");
  const role = marked?.getAttribute("data-message-author-role") || turn.getAttribute("data-turn")
    || turn.querySelector("[data-turn]")?.getAttribute("data-turn");
  if (role === "user" || role === "assistant") return role;
  if (turn.querySelector("[data-user-message-bubble], [data-markdown-text-tone='user-message']")) return "user";
  if (turn.querySelector("[data-markdown-text-style='assistant-message'], .markdown")) return "assistant";
  return null;
}

function bodyOf(turn) {
  const role = roleOf(turn);
  const keyedTurn = turn.closest(TURN_KEY);
  if (keyedTurn && role === "user") return turn.querySelector(".whitespace-pre-wrap") || turn;
  if (keyedTurn && role === "assistant") return outermost([...keyedTurn.querySelectorAll(ANSWER_BODY)]);
  const messages = turn.matches("[data-message-author-role]") ? [turn] : [...turn.querySelectorAll("[data-message-author-role]")];
  if (role === "user") {
    return messages.map((m) => m.querySelector(".whitespace-pre-wrap, [data-user-message-bubble]") || m)
      .concat(messages.length ? [] : [turn.querySelector("[data-user-message-bubble], .whitespace-pre-wrap")]);
  }
  const bodies = [...turn.querySelectorAll(".markdown, [data-message-content]")];
  return bodies.length ? bodies.filter((b) => !bodies.some((o) => o !== b && o.contains(b))) : messages;
}

function keyOf(turn) {
  const keyedTurn = turn.closest(TURN_KEY);
  if (keyedTurn) return `${keyedTurn.getAttribute("data-turn-key")}:${roleOf(turn) || "user"}`;
  return turn.getAttribute("data-turn-id") || turn.getAttribute("data-turn-id-container")
    || turn.querySelector("[data-turn-id]")?.getAttribute("data-turn-id")
    || turn.querySelector("[data-message-id]")?.getAttribute("data-message-id") || turn.getAttribute("data-testid");
}

/** Whether `node` (an attachment) belongs to `message`: in a Sept-2026 turn, the prompt's part precedes the answer. */
function owns(message, node) {
  const keyedTurn = message.closest(TURN_KEY);
  if (!keyedTurn) return true;
  const answer = answerAnchor(keyedTurn);
  const beforeAnswer = !answer || Boolean(answer.compareDocumentPosition(node) & Node.DOCUMENT_POSITION_PRECEDING);
  return roleOf(message) === "user" ? beforeAnswer : !beforeAnswer;
}

const dom = {
  firstIndex: 1,
  topSettleMs: 2000, // older turns load 69-138 ms after the top is reached (measured Sept 2026): ~15x margin
  turns: turnsInPage,
  isUnrendered: (turn) => (turn.matches("[data-turn-id-container]") && !turn.querySelector("[data-message-author-role], [data-turn]"))
    || turn.matches(TURN_KEY),
  keyOf,
  scopeOf: (message) => message.closest(TURN_KEY) || message,
  owns,
  indexOf: (turn) => {
    const numbered = "[data-testid^='conversation-turn-']";
    const carrier = turn.matches(numbered) ? turn : turn.querySelector(numbered);
    const match = (carrier?.getAttribute("data-testid") || "").match(/^conversation-turn-(\d+)$/);
    return match ? Number(match[1]) : null;
  },
  roleOf,
  bodyOf,
  modelOf: (turn) => turn.querySelector("[data-message-model-slug]")?.getAttribute("data-message-model-slug") ?? null,
  scrollRoot: () => SCROLL_ROOTS.map((selector) => document.querySelector(selector)).find(Boolean) || document.scrollingElement,
  attachments: {
    files: "[data-testid='file-card'], [data-testid='artifact-card']",
    images: "[data-message-author-role='user'] img, [data-user-message-bubble] img, [data-testid='generated-image-preview'] img",
  },
};

const COMPOSER = ["#prompt-textarea", "textarea[name='prompt-textarea']", "form textarea"];

export const chatgpt = {
  name: "chatgpt",
  hosts: ["chatgpt.com", "chat.openai.com"],
  source: true,
  conversationId: () => location.pathname.match(ID_PATTERN)?.[1] ?? null,
  title: () => document.title.replace(/\s+[-|]\s+ChatGPT$/, "").trim() || null,

  /** GET one /backend-api/ path with the session's token (refreshed once when it expired). */
  async apiGet(path) {
    try {
      return await fetchJson(path, await headers(await token()));
    } catch (error) {
      if (error.code !== "HTTP_401") throw error;
      return fetchJson(path, await headers(await token(true)));
    }
  },

  /** The raw conversation JSON from the site's own API. */
  async fetchApi(id) {
    const result = await this.apiGet(`/backend-api/conversation/${encodeURIComponent(id)}`);
    if (!result || typeof result !== "object" || !result.mapping) throw new MnemoError("API_SHAPE", "no mapping in reply");
    return { kind: "chatgpt_api", payload: result };
  },

  /** Who a backup reads: the workspace's name when the tab is in one, else the session's email or name. */
  async account() {
    await headers(await token());
    const user = session?.user ?? {};
    const named = [workspaceName, user.email, user.name].find((value) => typeof value === "string" && value.trim());
    return named ? named.trim() : null;
  },

  apiPrefix: "/backend-api/",
  streaming: "[data-testid='stop-button']", // shown while a reply streams (keep current waits for it to go)

  /** Endpoints and selectors that the health check tries. */
  probes: {
    api: async () => Boolean(await token()),
    turnSelectors: [TURN_KEY].concat(TURN_CASCADE, "[data-message-author-role]"),
    scrollRoot: SCROLL_ROOTS,
    anchors: ["#conversation-header-actions", "[data-testid='thread-header-right-actions']",
      "[data-testid='share-chat-button']", "[data-testid='model-switcher-dropdown-button']"],
  },
  dom,
  composer: COMPOSER,

  /** Where the Export / Continue buttons go: beside the site's own conversation actions. */
  anchor() {
    for (const selector of this.probes.anchors) {
      const node = document.querySelector(selector);
      if (node) return { node, place: /actions/.test(selector) ? "prepend" : "before" };
    }
    return null;
  },
};
