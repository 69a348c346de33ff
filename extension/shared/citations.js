// A text part's sources: numbered footnotes under it, and each number placed in the text where the site put
// the citation, as a superscript link to the source (http(s) only, new tab, noopener noreferrer) that names
// its footnote (aria-describedby). The readers keep the text as the site showed it and each citation's span
// in the text the site sent, so the places are found in three ways:
// - ChatGPT browsing (2023-24): the span is the marker itself ("【3:0†source】"): replaced by the number;
// - ChatGPT search (2025-): the reader replaced each cite marker by the site's chip, "([Site](url))", so the
//   spans (which count the markers) no longer fit the text: a chip whose url is cited is replaced by the number;
// - Claude: the span is the cited words: the number follows them; a citation without a span (API text blocks,
//   each block one cited passage) gets its number at the end of the part.
// A ChatGPT citation found none of these ways stays a footnote only. The numbers go into the Markdown as
// tokens no text can hold (a random nonce per part), become text nodes, and are swapped for elements after
// sanitizing, so no citation field ever passes through an HTML parser.
import { t } from "./api.js";
import { el } from "./element.js";

const BROWSING_MARKER = /^【[^【】\n]{1,40}】$/;
const CHIP = /\(\[([^\]\n]*)\]\((https?:\/\/\S+?)\)\)/g;
const INSIDE = "a, code, pre, math, annotation"; // a number cannot go in these: it follows them
let serial = 0; // footnote ids, unique in the page

export function safeHref(url) {
  try {
    const parsed = new URL(String(url));
    return parsed.protocol === "https:" || parsed.protocol === "http:" ? parsed.href : null;
  } catch {
    return null;
  }
}

export function hostOf(url) {
  try {
    return new URL(String(url)).hostname;
  } catch {
    return "";
  }
}

const sourceKey = (cite) => `${cite.url ?? ""}\n${cite.url ? "" : cite.title ?? ""}`;

/** Each source once, in first-cited order: {sources, numberOf(cite) -> 1-based footnote number}. */
export function numberSources(citations) {
  const numbers = new Map();
  const sources = [];
  for (const cite of citations ?? []) {
    if (!(cite?.url || cite?.title) || numbers.has(sourceKey(cite))) continue;
    sources.push(cite);
    numbers.set(sourceKey(cite), sources.length);
  }
  return { sources, numberOf: (cite) => numbers.get(sourceKey(cite)) };
}

/** Code-point offset (the readers' unit: Python strings) -> UTF-16 index in `text`; null when beyond it. */
function utf16Index(text) {
  if (!/[\uD800-\uDFFF]/.test(text)) return (i) => (i <= text.length ? i : null);
  const starts = [0];
  for (const ch of text) starts.push(starts.at(-1) + ch.length);
  return (i) => (i < starts.length ? starts[i] : null);
}

function nonce() {
  const bytes = crypto.getRandomValues(new Uint8Array(6));
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * The text with a token where each number goes (see the top of this file), and the RegExp that finds them.
 * `site`: the conversation's site (which of the ways above its spans follow).
 */
export function markCitations(text, citations, numberOf, site) {
  const token = nonce();
  const mark = (n) => `\uE000${token}:${n}\uE001`;
  const at16 = utf16Index(text);
  const edits = []; // [start, end, n]: text[start, end) becomes the number
  const urls = new Map();
  for (const cite of citations ?? []) {
    const n = numberOf(cite);
    if (!n) continue;
    const spanned = Number.isInteger(cite.start) && Number.isInteger(cite.end) && cite.start >= 0 && cite.start <= cite.end;
    const start = spanned ? at16(cite.start) : null;
    const end = spanned ? at16(cite.end) : null;
    const fits = spanned && end !== null && start !== null;
    if (fits && BROWSING_MARKER.test(text.slice(start, end))) edits.push([start, end, n]);
    else if (site === "chatgpt") { if (safeHref(cite.url) && !urls.has(cite.url)) urls.set(cite.url, n); }
    else if (fits && end > start) edits.push([end, end, n]);
    else if (!Number.isInteger(cite.start) && !Number.isInteger(cite.end)) edits.push([text.length, text.length, n]);
  }
  if (urls.size) for (const chip of text.matchAll(CHIP)) {
    const n = urls.get(chip[2]);
    if (n) edits.push([chip.index, chip.index + chip[0].length, n]);
  }
  edits.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let out = "";
  let at = 0;
  let last = null; // the span last replaced: more sources of the same span add their numbers there
  const placed = new Set();
  for (const [start, end, n] of edits) {
    const same = last && last[0] === start && last[1] === end;
    if (start < at && !same) continue; // overlapping spans: the first wins
    if (!same) out += text.slice(at, start);
    if (!placed.has(`${start}:${n}`)) out += mark(n); // the same source twice at one place: one number
    placed.add(`${start}:${n}`);
    last = [start, end];
    at = Math.max(at, end);
  }
  return { text: out + text.slice(at), token: new RegExp(`\uE000${token}:(\\d+)\uE001`, "g") };
}

function citeRef(n, source, noteId) {
  const href = safeHref(source?.url);
  const props = { "aria-describedby": noteId, title: source?.title || hostOf(source?.url) || null, text: String(n) };
  return el("sup", { className: "cite-ref", dataset: { mnemosyne: "cite-ref", footnote: String(n) } }, [
    href ? el("a", { href, target: "_blank", rel: "noopener noreferrer", ...props }) : el("span", props),
  ]);
}

/** Swap the tokens in `root` (rendered, sanitized) for superscript numbers; a token in a link, code or math
 * is taken out and its number put after that element. */
export function linkCitations(root, token, sources, noteIds) {
  const walker = document.createTreeWalker(root, 4 /* NodeFilter.SHOW_TEXT */);
  const found = [];
  for (let node = /** @type {Text | null} */ (walker.nextNode()); node; node = /** @type {Text | null} */ (walker.nextNode())) {
    if (node.data.includes("\uE000")) found.push(node);
  }
  for (const node of found) {
    const refs = [];
    const pieces = [];
    let at = 0;
    for (const match of node.data.matchAll(token)) {
      const n = Number(match[1]);
      pieces.push(node.data.slice(at, match.index));
      at = match.index + match[0].length;
      const ref = n >= 1 && n <= sources.length ? citeRef(n, sources[n - 1], noteIds[n - 1]) : null;
      if (ref) refs.push(ref);
      pieces.push(ref ?? "");
    }
    if (!at) continue;
    pieces.push(node.data.slice(at));
    let outer = null;
    for (let up = node.parentElement; up && root.contains(up) && up !== root; up = up.parentElement) if (up.matches(INSIDE)) outer = up;
    if (outer) {
      node.data = pieces.filter((piece) => typeof piece === "string").join("");
      outer.after(...refs);
    } else node.replaceWith(...pieces.filter((piece) => piece !== ""));
  }
}

/** The numbered list of sources under a part: each a link named by its title, else its site, with its snippet. */
export function footnotes(sources, noteIds) {
  if (!sources.length) return null;
  return el("section", { className: "footnotes", dataset: { mnemosyne: "citations" }, "aria-label": t("citationsHeading") }, [
    el("ol", {}, sources.map((cite, index) => {
      const href = safeHref(cite.url);
      const label = cite.title || hostOf(cite.url) || cite.url || "";
      return el("li", { id: noteIds[index] }, [
        href ? el("a", { href, target: "_blank", rel: "noopener noreferrer", text: label }) : el("span", { text: label }),
        cite.title && href ? el("span", { className: "source-site", text: hostOf(cite.url) }) : null,
        cite.snippet ? el("q", { className: "source-snippet", text: cite.snippet }) : null,
      ]);
    })),
  ]);
}

/** Ids for the footnotes of one part. */
export function noteIdsFor(sources) {
  serial += 1;
  return sources.map((_, index) => `cite-${serial}-${index + 1}`);
}
