// www.perplexity.ai adapter (the interface is in sites/README.md). API path:
// GET /rest/thread/{slug}?with_schematized_response=true&from_first=true, following its pages, sent as
// `perplexity_api` (the host's perplexity reader). DOM path (captured thread pages): the questions are the
// `group/query` headings and the answers `#markdown-content-N`, in page order; an answer's body adds, for a
// research report, the report's own prose box that follows the same question.
import { MnemoError } from "../shared/errors.js";
import { fetchJson, postJson } from "./page.js";

const ID_PATTERN = /^\/search\/([A-Za-z0-9._-]+)/;
const API = "/rest/thread/";
const LIST = "/rest/thread/list_ask_threads?version=2.18&source=default";
const QUERY = "[class*='group/query']";
const ANSWER = "[id^='markdown-content-']";
const ENTRY = "[role='tabpanel']";
const MAX_PAGES = 50;

function outermost(nodes) {
  return nodes.filter((node) => !nodes.some((other) => other !== node && other.contains(node)));
}

const before = (a, b) => Boolean(a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING);

/** Every question and answer on the page, in page order: one entry's panel may hold one pair or the whole thread. */
function messages() {
  return outermost([...document.querySelectorAll(`${QUERY}, ${ANSWER}`)]);
}

function roleOf(node) {
  if (node.matches(QUERY)) return "user";
  if (node.matches(ANSWER)) return "assistant";
  return null;
}

/** The question an answer (or a report box) follows: the last question before it in page order. */
function questionOf(node, queries = [...document.querySelectorAll(QUERY)]) {
  return queries.filter((query) => before(query, node)).pop() ?? null;
}

/** The entry a message belongs to: `markdown-content-N`'s N when the page numbers its answers apart, else the
 * place of its question among the page's questions (a thread whose answers all say 0, as two captured pages do). */
function entryKey(node) {
  const queries = [...document.querySelectorAll(QUERY)];
  const question = roleOf(node) === "user" ? node : questionOf(node, queries);
  const answers = [...document.querySelectorAll(ANSWER)];
  const numbers = answers.map((answer) => answer.id.match(/^markdown-content-(\d+)$/)?.[1]);
  const numbered = numbers.every(Boolean) && new Set(numbers).size === numbers.length;
  const answer = roleOf(node) === "assistant" ? node
    : answers.find((a) => before(node, a) && questionOf(a, queries) === node);
  if (numbered && answer) return `entry-${numbers[answers.indexOf(answer)]}`;
  return question ? `entry-q${queries.indexOf(question)}` : "entry-start";
}

function bodyOf(node) {
  if (roleOf(node) === "user") return node;
  // the answer, and a research report's prose box of the same entry (never a question's heading)
  const question = questionOf(node);
  const blocks = [...document.querySelectorAll(`${ANSWER}, .prose`)]
    .filter((block) => !block.closest(QUERY) && questionOf(block) === question);
  const found = outermost(blocks);
  return found.length ? found : [node];
}

const dom = {
  firstIndex: 0,
  turns: messages,
  isUnrendered: () => false,
  keyOf: (node) => `${entryKey(node)}:${roleOf(node) ?? "unknown"}`,
  indexOf: () => null,
  roleOf,
  bodyOf,
  modelOf: () => null,
  scopeOf: (node) => (roleOf(node) === "user" ? node : node.closest(ENTRY) || node),
  owns: (message, node) => (roleOf(message) === "user" ? true : !node.closest(QUERY) && questionOf(node) === questionOf(message)),
  scrollRoot: () => {
    const first = document.querySelector(`${QUERY}, ${ANSWER}`);
    for (let node = first?.parentElement; node; node = node.parentElement) {
      const style = getComputedStyle(node);
      if (/(auto|scroll)/.test(style.overflowY) && node.scrollHeight > node.clientHeight) return node;
    }
    return document.scrollingElement;
  },
  attachments: {
    files: "[data-testid='file-attachment'], [data-testid='attachment-chip']",
    images: `${QUERY} img`,
  },
};

export const perplexity = {
  name: "perplexity",
  hosts: ["www.perplexity.ai"],
  source: true,
  conversationId: () => location.pathname.match(ID_PATTERN)?.[1] ?? null,
  title: () => {
    const title = document.title.replace(/\s*[-|]\s*Perplexity(?: AI)?$/, "").trim();
    return title || document.querySelector(QUERY)?.textContent.trim().replace(/\s+/g, " ").slice(0, 200) || null;
  },

  apiPrefix: API,
  apiGet: (path) => fetchJson(path),
  apiPost: (path, body, options) => postJson(path, body, options),
  streaming: "button[aria-label*='Stop']",

  /** Every entry of the thread, its pages joined; a thread cut short by an error says it has more. */
  async fetchApi(slug) {
    const first = `${API}${encodeURIComponent(slug)}?with_schematized_response=true&from_first=true`;
    const page = await fetchJson(first);
    if (!page || !Array.isArray(page.entries)) throw new MnemoError("API_SHAPE", "no entries in reply");
    const entries = [...page.entries];
    let { has_next_page: more, next_cursor: cursor } = page;
    for (let n = 1; more && cursor && n < MAX_PAGES; n += 1) {
      try {
        const next = await fetchJson(`${first}&cursor=${encodeURIComponent(cursor)}`);
        entries.push(...(Array.isArray(next?.entries) ? next.entries : []));
        ({ has_next_page: more, next_cursor: cursor } = next ?? {});
      } catch {
        break; // what was read is saved, and the host marks it partial (has_next_page stays true)
      }
    }
    return { kind: "perplexity_api", payload: { status: page.status ?? "success", entries, has_next_page: Boolean(more) } };
  },

  probes: {
    // the thread list answers only a signed-in user: one thread of it proves the API works
    api: async () => Array.isArray(await postJson(LIST, { limit: 1, offset: 0, ascending: false, search_term: "" })),
    turnSelectors: [QUERY, ANSWER, ENTRY],
    scrollRoot: [ANSWER],
    anchors: [],
  },
  dom,
  composer: ["#ask-input", "textarea#ask-input", "[contenteditable='true']#ask-input",
    "[data-ask-input-container] [contenteditable='true']", "textarea[placeholder*='Ask']", "textarea[placeholder]",
    "[contenteditable='true']"],

  /** No verified place beside Perplexity's own actions: the bar floats. */
  anchor: () => null,
};
