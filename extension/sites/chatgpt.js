// chatgpt.com adapter (the interface is in sites/README.md). API path: /api/auth/session token ->
// /backend-api/conversation/{id} (workspace header when the _account cookie names a workspace). The token
// stays in this module for the page's lifetime and is never sent anywhere but chatgpt.com itself.
// DOM path: the selector cascades of docs/sites.md, newest renderer first.
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
let session = null; // {token, expires}

async function token(refresh = false) {
  if (!refresh && session && session.expires > Date.now() + 60_000) return session.token;
  const data = await fetchJson("/api/auth/session");
  if (!data?.accessToken) throw new MnemoError("LOGGED_OUT", "no ChatGPT session");
  const expires = Date.parse(data.expires) || Date.now() + 10 * 60_000;
  session = { token: data.accessToken, expires };
  return session.token;
}

async function headers(accessToken) {
  const out = { Authorization: `Bearer ${accessToken}` };
  const deviceId = readCookie("oai-did");
  if (deviceId) out["OAI-Device-Id"] = deviceId;
  const account = readCookie("_account");
  if (account && account !== "personal") {
    try {
      const check = await fetchJson("/backend-api/accounts/check/v4-2023-04-27", out);
      const entry = check?.accounts?.[account];
      if (entry) out["ChatGPT-Account-Id"] = entry.account?.account_id ?? account;
    } catch {
      // not a workspace member or the check moved: the personal account still works
    }
  }
  return out;
}

function turnsInPage() {
  const scope = (node) => !node.closest("[data-app-shell-active-page='false']");
  const shells = [...document.querySelectorAll("[data-turn-id-container]")].filter(scope);
  if (shells.length) return shells;
  for (const selector of TURN_CASCADE) {
    const found = [...document.querySelectorAll(selector)].filter(scope);
    if (found.length) return found.filter((node) => !found.some((other) => other !== node && other.contains(node)));
  }
  return [...document.querySelectorAll("[data-message-author-role]")].filter(scope);
}

function roleOf(turn) {
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
  const messages = turn.matches("[data-message-author-role]") ? [turn] : [...turn.querySelectorAll("[data-message-author-role]")];
  if (role === "user") {
    return messages.map((m) => m.querySelector(".whitespace-pre-wrap, [data-user-message-bubble]") || m)
      .concat(messages.length ? [] : [turn.querySelector("[data-user-message-bubble], .whitespace-pre-wrap")]);
  }
  const bodies = [...turn.querySelectorAll(".markdown, [data-message-content]")];
  return bodies.length ? bodies.filter((b) => !bodies.some((o) => o !== b && o.contains(b))) : messages;
}

const dom = {
  firstIndex: 1,
  turns: turnsInPage,
  isUnrendered: (turn) => turn.matches("[data-turn-id-container]") && !turn.querySelector("[data-message-author-role], [data-turn]"),
  keyOf: (turn) => turn.getAttribute("data-turn-id") || turn.getAttribute("data-turn-id-container")
    || turn.querySelector("[data-turn-id]")?.getAttribute("data-turn-id")
    || turn.querySelector("[data-message-id]")?.getAttribute("data-message-id") || turn.getAttribute("data-testid"),
  indexOf: (turn) => {
    const numbered = "[data-testid^='conversation-turn-']";
    const carrier = turn.matches(numbered) ? turn : turn.querySelector(numbered);
    const match = (carrier?.getAttribute("data-testid") || "").match(/^conversation-turn-(\d+)$/);
    return match ? Number(match[1]) : null;
  },
  roleOf,
  bodyOf,
  modelOf: (turn) => turn.querySelector("[data-message-model-slug]")?.getAttribute("data-message-model-slug") ?? null,
  scrollRoot: () => document.querySelector("[data-scroll-root]") || document.querySelector("#thread")
    || document.querySelector("main .overflow-y-auto") || document.scrollingElement,
  attachments: {
    files: "[data-testid='file-card'], [data-testid='artifact-card']",
    images: "[data-message-author-role='user'] img",
  },
};

const COMPOSER = ["#prompt-textarea", "textarea[name='prompt-textarea']", "form textarea"];

export const chatgpt = {
  name: "chatgpt",
  hosts: ["chatgpt.com", "chat.openai.com"],
  source: true,
  conversationId: () => location.pathname.match(ID_PATTERN)?.[1] ?? null,
  title: () => document.title.replace(/\s+[-|]\s+ChatGPT$/, "").trim() || null,

  /** The raw conversation JSON from the site's own API. */
  async fetchApi(id) {
    let accessToken = await token();
    let result;
    try {
      result = await fetchJson(`/backend-api/conversation/${encodeURIComponent(id)}`, await headers(accessToken));
    } catch (error) {
      if (error.code !== "HTTP_401") throw error;
      accessToken = await token(true); // expired token: refresh once
      result = await fetchJson(`/backend-api/conversation/${encodeURIComponent(id)}`, await headers(accessToken));
    }
    if (!result || typeof result !== "object" || !result.mapping) throw new MnemoError("API_SHAPE", "no mapping in reply");
    return { kind: "chatgpt_api", payload: result };
  },

  /** Endpoints and selectors that the health check tries. */
  probes: {
    api: async () => Boolean(await token()),
    turnSelectors: TURN_CASCADE.concat("[data-message-author-role]"),
    scrollRoot: ["[data-scroll-root]", "#thread", "main .overflow-y-auto"],
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
