// gemini.google.com adapter (the interface is in sites/README.md). API path: the page's own read of a
// conversation, batchexecute rpc hNvQHb, POSTed with the tokens the page was served with (SNlM0e = at,
// cfb2h = bl, FdrFJe = f.sid, read as text from its inline data, never run); long conversations come in
// pages, each answer's text is sent as is and the host reads it (readers/gemini.py). DOM path: every
// `.conversation-container` holds a prompt (`user-query`) and an answer (`model-response`), keyed by the
// container's id; a Deep Research report open in its side panel is one more answer.
import { MnemoError } from "../shared/errors.js";
/** @typedef {import("../shared/errors.js").HttpError} HttpError */
import { JSON_REPLY_CAP, pageFetch, readCapped } from "./page.js";

const ID_PATTERN = /\/app\/([0-9a-f]{8,})(?:[/?#]|$)|\/gem\/[^/]+\/([0-9a-f]{8,})(?:[/?#]|$)/i;
const RPC_READ = "hNvQHb";
const RPC_LIST = "MaZiqc";
const LIST_PAGE = 100;
const RPC_PATH = "/_/BardChatUi/data/batchexecute";
const TURNS_A_PAGE = 10;
const MAX_PAGES = 500;
const BACKUP_PAGE_GAP_MS = 1500; // between the pages of one long chat in a backup (the policy's own spacing is 2 s)
const CONTAINER = ".conversation-container";
const USER = "user-query";
const ANSWER = "model-response";
const REPORT = "deep-research-immersive-panel";
const SCROLL_ROOTS = ["#chat-history", "infinite-scroller[data-test-id='chat-history-container']", "infinite-scroller"];
let requestNumber = Math.floor(Math.random() * 9000) + 1000;

/** The page's tokens (WIZ_global_data in an inline script), read as text. */
function tokens() {
  const found = {};
  for (const script of document.querySelectorAll("script:not([src])")) {
    const text = script.textContent;
    if (!text.includes("SNlM0e") && !text.includes("cfb2h")) continue;
    for (const [key, name] of [["at", "SNlM0e"], ["bl", "cfb2h"], ["fsid", "FdrFJe"]]) {
      const match = text.match(new RegExp(`"${name}"\\s*:\\s*"((?:[^"\\\\]|\\\\.)*)"`));
      if (match && !found[key]) found[key] = JSON.parse(`"${match[1]}"`);
    }
  }
  return found;
}

/** The parsed reply of `rpc` in one response text; what the host reads is the text itself. */
function replyOf(text, rpc = RPC_READ) {
  for (const line of text.split("\n")) {
    if (!line.startsWith("[")) continue;
    let rows;
    try {
      rows = JSON.parse(line);
    } catch {
      continue;
    }
    for (const row of Array.isArray(rows) ? rows : []) {
      if (!Array.isArray(row) || row[0] !== "wrb.fr" || row[1] !== rpc) continue;
      if (typeof row[2] !== "string") throw new MnemoError("API_SHAPE", `Gemini answered ${rpc} with an error`);
      return JSON.parse(row[2]);
    }
  }
  throw new MnemoError("API_SHAPE", `no ${rpc} reply`);
}

/** One batchexecute call of `rpc` with `args`, as the page's own app makes it; the response text, read within
 * JSON_REPLY_CAP and stopped with `signal` (a backup's stop). */
async function post(rpc, args, pageTokens, sourcePath = location.pathname, signal = null) {
  const query = new URLSearchParams({ rpcids: rpc, "source-path": sourcePath, hl: document.documentElement.lang || "en",
    _reqid: String((requestNumber += 100000)), rt: "c" });
  if (pageTokens.bl) query.set("bl", pageTokens.bl);
  if (pageTokens.fsid) query.set("f.sid", pageTokens.fsid);
  const body = new URLSearchParams({ "f.req": JSON.stringify([[[rpc, JSON.stringify(args), null, "generic"]]]), at: pageTokens.at });
  const response = await pageFetch(`${RPC_PATH}?${query}`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded;charset=UTF-8", "X-Same-Domain": "1" },
    body: `${body}&`,
  });
  if (!response.ok) {
    const error = /** @type {HttpError} */ (new MnemoError(`HTTP_${response.status}`, `${RPC_PATH} answered ${response.status}`));
    error.status = response.status; // the backup's rate policy reads these
    error.retryAfter = response.headers.get("Retry-After");
    throw error;
  }
  const read = await readCapped(response, JSON_REPLY_CAP, signal);
  if (read.over) {
    const error = /** @type {HttpError} */ (new MnemoError("TOO_LARGE", `${RPC_PATH} answered more than ${JSON_REPLY_CAP} bytes`));
    error.status = 413;
    throw error;
  }
  if (read.stopped) throw new MnemoError("TAB_TIMEOUT", read.stopped);
  return read.blob.text();
}

function sessionTokens() {
  const pageTokens = tokens();
  if (!pageTokens.at) throw new MnemoError("LOGGED_OUT", "no Gemini session token on the page");
  return pageTokens;
}

/** Every page of one conversation: the response texts, oldest request first. `send(args)` POSTs one page (in a
 * backup, through the tab's checked POST); `gapMs` paces the pages of a long chat in a backup, where the rate
 * policy counts the whole read as one request. */
async function readConversation(conversation, send, gapMs = 0) {
  const responses = [];
  let pageToken = null;
  for (let n = 0; n < MAX_PAGES; n += 1) {
    const text = await send([conversation, TURNS_A_PAGE, pageToken, 1, [0], [4], null, 1]);
    const reply = replyOf(text);
    if (!Array.isArray(reply?.[0])) throw new MnemoError("API_SHAPE", "no turns in the Gemini reply");
    responses.push(text);
    pageToken = typeof reply[1] === "string" && reply[1] && reply[0].length ? reply[1] : null;
    if (!pageToken) return responses;
    if (gapMs) await new Promise((resolve) => setTimeout(resolve, gapMs));
  }
  throw new MnemoError("API_SHAPE", "the Gemini conversation never ended its pages");
}

function readPayload(conversation, responses, shownTitle) {
  return { format: "batchexecute", rpcid: RPC_READ, conversation_id: conversation, title: shownTitle, responses };
}

function title() {
  const node = document.querySelector("[data-test-id='conversation-title'], .conversation-title-container .conversation-title, "
    + "[data-test-id='conversation'].selected .conversation-title, .conversation.selected .conversation-title");
  const text = node?.textContent.trim();
  if (text) return text;
  const fromTitle = document.title.replace(/\s*[-|]\s*(Google )?Gemini$/, "").trim();
  return fromTitle && !/^(Google )?Gemini$/.test(fromTitle) ? fromTitle : null;
}

function outermost(nodes) {
  return nodes.filter((node) => !nodes.some((other) => other !== node && other.contains(node)));
}

/** The prompt and answer of each container (the container itself while neither has rendered), then a report. */
function turnsInPage() {
  const found = [];
  for (const container of outermost([...document.querySelectorAll(CONTAINER)])) {
    const messages = outermost([...container.querySelectorAll(`${USER}, ${ANSWER}`)]);
    found.push(...(messages.length ? messages : [container]));
  }
  found.push(...document.querySelectorAll(REPORT));
  return found;
}

function roleOf(turn) {
  if (turn.matches(USER)) return "user";
  if (turn.matches(`${ANSWER}, ${REPORT}`)) return "assistant";
  return null;
}

/** The ids the site's API gives: `r_…:prompt` for a prompt, the shown draft's `rc_…` for an answer (named in the
 * answer's jslog metadata; `r_…:answer` when the page does not say), so a page capture merges into an API copy. */
function keyOf(turn) {
  if (turn.matches(REPORT)) {
    const content = turn.querySelector("message-content[id]");
    return `report:${content?.id || "panel"}`;
  }
  const container = turn.closest(CONTAINER);
  const fromContent = turn.querySelector("message-content[id^='message-content-id-r_']")?.id.slice("message-content-id-".length);
  const response = container?.id ? `r_${container.id.replace(/^r_/, "")}` : fromContent;
  if (!response) return null;
  if (turn.matches(CONTAINER)) return `${response}:turn`;
  if (roleOf(turn) === "user") return `${response}:prompt`;
  const draft = [...turn.querySelectorAll("[jslog*='rc_']")].map((node) => node.getAttribute("jslog").match(/rc_[0-9a-f]+/i)?.[0])
    .find(Boolean);
  return draft || `${response}:answer`;
}

function bodyOf(turn) {
  if (roleOf(turn) === "user") {
    const lines = turn.querySelectorAll(".query-text");
    return lines.length ? outermost([...lines]) : turn.querySelector("user-query-content") || turn;
  }
  // a report's panel: the whole of it, its sources lists and thinking steps sit beside the report's text
  if (turn.matches(REPORT)) return turn;
  const bodies = outermost([...turn.querySelectorAll("message-content")]);
  return bodies.length ? bodies : [...turn.querySelectorAll(".markdown")];
}

const dom = {
  firstIndex: 0,
  turns: turnsInPage,
  isUnrendered: (turn) => turn.matches(CONTAINER),
  keyOf,
  indexOf: () => null,
  roleOf,
  bodyOf,
  modelOf: () => null, // the page names the model in its picker only, not per answer
  scrollRoot: () => {
    for (const selector of SCROLL_ROOTS) {
      const node = document.querySelector(selector);
      if (node && node.scrollHeight > node.clientHeight) return node;
    }
    return document.querySelector(SCROLL_ROOTS[0]) || document.scrollingElement;
  },
  attachments: {
    files: "user-query [data-test-id='file-name'], user-query .file-preview-container .file-name",
    images: "user-query img.preview-image, user-query .file-preview-container img, model-response generated-image img, "
      + "model-response single-image img",
  },
};

const COMPOSER = ["rich-textarea .ql-editor[contenteditable='true']", "rich-textarea [contenteditable='true']",
  ".ql-editor[contenteditable='true']", "[contenteditable='true']"];

export const gemini = {
  name: "gemini",
  hosts: ["gemini.google.com"],
  source: true,
  conversationId: () => {
    const match = location.pathname.match(ID_PATTERN);
    return match ? match[1] || match[2] : null;
  },
  title,

  /**
   * One conversation as Export sends it. In a backup (`post` given: the tab's checked POST) the pages are paced and
   * the title is left to the backup's list: the tab shows another chat.
   */
  async fetchApi(id, { post: checkedPost = null } = {}) {
    const conversation = `c_${id}`;
    if (!checkedPost) {
      const pageTokens = sessionTokens();
      const send = (args) => post(RPC_READ, args, pageTokens);
      return { kind: "gemini_api", payload: readPayload(conversation, await readConversation(conversation, send), title()) };
    }
    const send = (args) => checkedPost(RPC_PATH, { rpc: RPC_READ, args });
    return { kind: "gemini_api", payload: readPayload(conversation, await readConversation(conversation, send, BACKUP_PAGE_GAP_MS), null) };
  },

  /**
   * The backup's POSTs (background/backup_list_gemini.js and fetchApi above), with the page's tokens: `{rpc:
   * "MaZiqc", flag, cursor}` answers a page of the chat list (its parsed reply), `{rpc: "hNvQHb", args}` one page of
   * a conversation (the response text). No other rpc is sent.
   */
  async apiPost(path, body, { signal = null } = {}) {
    if (body?.rpc === RPC_LIST) {
      const cursor = typeof body.cursor === "string" && body.cursor ? body.cursor : null;
      const args = [LIST_PAGE, cursor, [body.flag === 1 ? 1 : 0, null, 1]];
      return replyOf(await post(RPC_LIST, args, sessionTokens(), "/app", signal), RPC_LIST);
    }
    const conversation = Array.isArray(body?.args) ? body.args[0] : null;
    if (body?.rpc === RPC_READ && typeof conversation === "string" && /^c_[0-9a-f]+$/i.test(conversation)) {
      return post(RPC_READ, body.args, sessionTokens(), `/app/${conversation.slice(2)}`, signal);
    }
    throw new MnemoError("BAD_REQUEST", "not a Gemini read the backup knows");
  },
  apiPrefix: RPC_PATH,

  streaming: "button[aria-label='Stop response'], [data-test-id='stop-button'], model-response .processing-state-streaming",

  probes: {
    api: async () => Boolean(tokens().at),
    turnSelectors: [CONTAINER, USER, ANSWER, "message-content"],
    scrollRoot: SCROLL_ROOTS,
    anchors: ["top-bar-actions .right-section", "top-bar-actions", "[data-test-id='chat-app'] .top-bar-actions"],
  },
  dom,
  composer: COMPOSER,

  anchor() {
    for (const selector of this.probes.anchors) {
      const node = document.querySelector(selector);
      if (node) return { node, place: "prepend" };
    }
    return null;
  },
};
