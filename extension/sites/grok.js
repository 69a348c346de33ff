// grok.com adapter (the interface is in sites/README.md). API path: the turn tree from
// GET /rest/app-chat/conversations/{id}/response-node?includeThreads=true, then every turn from
// POST .../{id}/load-responses {"responseIds": [...]}, sent together as `grok_api` (the host's grok reader).
// DOM path: one `div[id^="response-"]` per message (its id carries the response id; the user's is
// right-aligned, `items-end`), Markdown in `.response-content-markdown`. No capture of grok.com's page is at
// hand: these selectors are those other exporters use, checked only against a page built from them.
import { MnemoError } from "../shared/errors.js";
import { fetchJson, postJson } from "./page.js";

const ID_PATTERN = /^\/(?:c|chat)\/([0-9a-f-]{36})/i;
const API = "/rest/app-chat/conversations";
const MESSAGE = "div[id^='response-']";
const USER_BUBBLE = "[data-testid='user-message']";
const ASSISTANT_BUBBLE = "[data-testid='assistant-message']";
const MARKDOWN = ".response-content-markdown";
const THINKING = "[class*='thinking-container']";

function outermost(nodes) {
  return nodes.filter((node) => !nodes.some((other) => other !== node && other.contains(node)));
}

function roleOf(turn) {
  if (turn.querySelector(USER_BUBBLE) || turn.classList.contains("items-end")) return "user";
  if (turn.querySelector(ASSISTANT_BUBBLE) || turn.classList.contains("items-start") || turn.querySelector(MARKDOWN)) return "assistant";
  return null;
}

function bodyOf(turn) {
  if (roleOf(turn) === "user") return turn.querySelector(`${USER_BUBBLE}, .message-bubble`) || turn;
  // thinking first, as the page shows it, then the answer; the whole bubble when neither is marked
  const parts = outermost([...turn.querySelectorAll(`${THINKING}, ${MARKDOWN}`)]);
  return parts.length ? parts : [turn.querySelector(`${ASSISTANT_BUBBLE}, .message-bubble`) || turn];
}

const dom = {
  firstIndex: 0,
  turns: () => outermost([...document.querySelectorAll(MESSAGE)]),
  isUnrendered: (turn) => !turn.querySelector(`${USER_BUBBLE}, ${ASSISTANT_BUBBLE}, .message-bubble, ${MARKDOWN}`)
    && !turn.textContent.trim(),
  keyOf: (turn) => turn.id || null,
  indexOf: () => null,
  roleOf,
  bodyOf,
  modelOf: () => null,
  scrollRoot: () => {
    const first = document.querySelector(MESSAGE);
    for (let node = first?.parentElement; node; node = node.parentElement) {
      const style = getComputedStyle(node);
      if (/(auto|scroll)/.test(style.overflowY) && node.scrollHeight > node.clientHeight) return node;
    }
    return document.scrollingElement;
  },
  attachments: {
    files: "[data-testid='file-attachment'], [class*='file-attachment']",
    images: `${MESSAGE}.items-end img, ${MESSAGE} [data-testid='generated-image'] img`,
  },
};

export const grok = {
  name: "grok",
  hosts: ["grok.com"],
  source: true,
  conversationId: () => location.pathname.match(ID_PATTERN)?.[1] ?? null,
  title: () => document.title.replace(/\s+[-|]\s+Grok$/, "").trim() || null,

  apiPrefix: API,
  apiGet: (path) => fetchJson(path),
  apiPost: (path, body, options) => postJson(path, body, options),
  streaming: "button[aria-label*='Stop']",

  /** The turn tree, then every turn of it, joined into the one object the host's grok reader takes (`post`: a
   * backup's checked POST). */
  async fetchApi(id, { post = postJson } = {}) {
    const base = `${API}/${encodeURIComponent(id)}`;
    const tree = await fetchJson(`${base}/response-node?includeThreads=true`);
    const nodes = Array.isArray(tree?.responseNodes) ? tree.responseNodes : null;
    if (!nodes?.length) throw new MnemoError("API_SHAPE", "no responseNodes in reply");
    const ids = nodes.map((node) => node?.responseId).filter((rid) => typeof rid === "string");
    const loaded = await post(`${base}/load-responses`, { responseIds: ids });
    if (!Array.isArray(loaded?.responses)) throw new MnemoError("API_SHAPE", "no responses in reply");
    const conversation = { conversationId: id, title: this.title() };
    return { kind: "grok_api", payload: { conversation, responseNodes: nodes,
      inflightResponses: tree.inflightResponses ?? [], responses: loaded.responses } };
  },

  probes: {
    api: async () => Array.isArray((await fetchJson(`${API}?pageSize=1`))?.conversations),
    turnSelectors: [MESSAGE, USER_BUBBLE, ASSISTANT_BUBBLE, MARKDOWN],
    scrollRoot: [MESSAGE],
    anchors: [],
  },
  dom,
  composer: ["div[contenteditable='true'].tiptap", ".ProseMirror[contenteditable='true']", "textarea[aria-label*='Grok']",
    "form textarea", "[contenteditable='true'][role='textbox']", "[contenteditable='true']"],

  /** No verified place beside grok.com's own actions: the bar floats. */
  anchor: () => null,
};
