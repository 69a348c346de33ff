// chat.deepseek.com adapter (the interface is in sites/README.md). API path: GET
// /api/v0/chat/history_messages?chat_session_id=… with the page's own token (localStorage.userToken, sent as
// a Bearer header to chat.deepseek.com only); the reply's envelope {code, data: {biz_data}} goes to the host
// as is (readers/deepseek.py). DOM path: the virtual list's rows (`data-virtual-list-item-key`) each hold one
// `.ds-message`; an answer's text is its `.ds-markdown` blocks, a prompt is the message itself.
import { MnemoError } from "../shared/errors.js";
import { getJsonCapped } from "./page.js";

const ID_PATTERN = /\/chat\/s\/([0-9a-f-]{36})(?:[/?#]|$)/i;
const ROW = "[data-virtual-list-item-key]";
const MESSAGE = ".ds-message";
const ANSWER_BODY = ".ds-markdown";

/** The session token the page keeps: {"value": "…", "__version": "0"} (older pages: the bare string). */
function userToken() {
  let stored = null;
  try {
    stored = localStorage.getItem("userToken");
  } catch {
    return null; // storage blocked for this origin
  }
  if (!stored) return null;
  try {
    const parsed = JSON.parse(stored);
    const value = typeof parsed === "string" ? parsed : parsed?.value;
    return typeof value === "string" && value ? value : null;
  } catch {
    return stored;
  }
}

function outermost(nodes) {
  return nodes.filter((node) => !nodes.some((other) => other !== node && other.contains(node)));
}

function turnsInPage() {
  const rows = [...document.querySelectorAll(ROW)];
  const inRows = rows.flatMap((row) => outermost([...row.querySelectorAll(MESSAGE)]));
  return inRows.length ? inRows : outermost([...document.querySelectorAll(MESSAGE)]);
}

function roleOf(turn) {
  return turn.querySelector(ANSWER_BODY) || turn.matches(ANSWER_BODY) ? "assistant" : "user";
}

function bodyOf(turn) {
  if (roleOf(turn) === "user") return turn;
  return outermost([...turn.querySelectorAll(ANSWER_BODY)]);
}

const dom = {
  firstIndex: 0,
  turns: turnsInPage,
  isUnrendered: () => false,
  // a row's key is its message's id in history_messages: a page capture merges into an API copy
  keyOf: (turn) => turn.closest(ROW)?.getAttribute("data-virtual-list-item-key") || null,
  indexOf: () => null, // row keys are message ids, which skip numbers when a reply is regenerated
  roleOf,
  bodyOf,
  modelOf: () => null,
  scrollRoot: () => {
    const first = document.querySelector(MESSAGE);
    for (let node = first?.parentElement; node; node = node.parentElement) {
      const style = getComputedStyle(node);
      if (/(auto|scroll)/.test(style.overflowY) && node.scrollHeight > node.clientHeight) return node;
    }
    return document.querySelector(".ds-scroll-area") || document.scrollingElement;
  },
  attachments: {
    files: `${MESSAGE} [class*='file-name'], ${MESSAGE} [class*='fileName']`,
    images: `${MESSAGE} img`,
  },
};

const COMPOSER = ["textarea#chat-input", "textarea[placeholder*='DeepSeek']", "textarea[name='search']", "textarea"];

export const deepseek = {
  name: "deepseek",
  hosts: ["chat.deepseek.com"],
  source: true,
  conversationId: () => location.pathname.match(ID_PATTERN)?.[1] ?? null,
  title: () => document.title.replace(/\s+[-|]\s+DeepSeek.*$/, "").trim() || null,

  /** GET one /api/v0/ path with the page's token, its reply read within the cap and stopped with `signal`. */
  apiGet(path, { signal = null } = {}) {
    const token = userToken();
    if (!token) return Promise.reject(new MnemoError("LOGGED_OUT", "no DeepSeek session token"));
    return getJsonCapped(path, { Authorization: `Bearer ${token}` }, { signal });
  },

  async fetchApi(id) {
    const reply = await this.apiGet(`/api/v0/chat/history_messages?chat_session_id=${encodeURIComponent(id)}`);
    if (reply?.code !== 0 || !Array.isArray(reply?.data?.biz_data?.chat_messages)) {
      throw new MnemoError("API_SHAPE", "no data.biz_data.chat_messages in reply");
    }
    // the page may keep a conversation in its own cache and be answered an empty list: read the page instead
    if (!reply.data.biz_data.chat_messages.length) throw new MnemoError("API_SHAPE", "history_messages holds no message");
    return { kind: "deepseek_api", payload: reply };
  },

  apiPrefix: "/api/v0/",
  // the composer's send button turns into a stop button while a reply streams
  streaming: "div[role='button'][aria-label='Stop'], .ds-markdown--streaming",

  probes: {
    api: async () => Boolean(userToken()),
    turnSelectors: [ROW, MESSAGE, ANSWER_BODY],
    scrollRoot: [".ds-scroll-area", ".ds-virtual-list"],
    anchors: [".the-header"],
  },
  dom,
  composer: COMPOSER,

  anchor() {
    const headers = [...document.querySelectorAll(".the-header")];
    const shown = headers.find((node) => node.getClientRects().length > 0) || headers[0];
    return shown ? { node: shown, place: "append" } : null;
  },
};
