// www.perplexity.ai adapter (the interface is in sites/README.md). API path:
// GET /rest/thread/{slug}?with_schematized_response=true&from_first=true, following its pages, sent as
// `perplexity_api` (the host's perplexity reader). DOM path (captured thread pages): each question and its
// answer sit in one tab panel; the question is the `group/query` heading, the answer is
// `#markdown-content-N` plus, for a research report, the report's own prose box beside it.
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

/** The entries on the page: a panel holding a question or an answer, outermost first. */
function entries() {
  const panels = outermost([...document.querySelectorAll(ENTRY)].filter((p) => p.querySelector(`${QUERY}, ${ANSWER}`)));
  if (panels.length) return panels;
  return [...document.querySelectorAll(QUERY)].map((q) => q.parentElement);
}

/** One entry's messages: the question, then the answer's first block (or the question alone while it streams). */
function messagesOf(entry) {
  const query = entry.querySelector(QUERY);
  const answer = entry.querySelector(ANSWER);
  return [query, answer].filter(Boolean);
}

function roleOf(node) {
  if (node.matches(QUERY)) return "user";
  if (node.matches(ANSWER)) return "assistant";
  return null;
}

function entryNumber(node) {
  const panel = node.closest(ENTRY);
  const answer = panel?.querySelector(ANSWER);
  const numbered = answer?.id.match(/^markdown-content-(\d+)$/);
  return numbered ? Number(numbered[1]) : entries().indexOf(panel);
}

function bodyOf(node) {
  if (roleOf(node) === "user") return node;
  // the answer, and a research report's prose box in the same entry (never the question's heading)
  const panel = node.closest(ENTRY) || node.parentElement;
  const blocks = [...panel.querySelectorAll(`${ANSWER}, .prose`)].filter((block) => !block.closest(QUERY));
  return outermost(blocks);
}

const dom = {
  firstIndex: 0,
  turns: () => entries().flatMap(messagesOf),
  isUnrendered: () => false,
  keyOf: (node) => `entry-${entryNumber(node)}:${roleOf(node) ?? "unknown"}`,
  indexOf: () => null,
  roleOf,
  bodyOf,
  modelOf: () => null,
  scopeOf: (node) => (roleOf(node) === "user" ? node : node.closest(ENTRY) || node),
  owns: (message, node) => !node.closest(QUERY) || roleOf(message) === "user",
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
  apiPost: (path, body) => postJson(path, body),
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
  composer: ["#ask-input", "textarea#ask-input", "[contenteditable='true']#ask-input", "textarea[placeholder]",
    "[contenteditable='true']"],

  /** No verified place beside Perplexity's own actions: the bar floats. */
  anchor: () => null,
};
