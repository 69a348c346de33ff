// Markdown of an archived message as safe DOM: markdown-it (raw HTML off, images off) -> KaTeX math as
// MathML (no fonts or inline styles needed under the pages' CSP) and highlight.js code -> DOMPurify, which
// returns a fragment that no script, handler or foreign URL survives. Links: http(s) only, new tab,
// rel="noopener noreferrer"; anything else stays as its text. Task-list checkboxes become plain marks.
import { MarkdownIt, taskLists, texmath, katex, DOMPurify, hljs } from "../bundle/render_libs.js";

const SAFE_URL = /^https?:\/\//i;

function highlight(code, language) {
  try {
    const known = language && hljs.getLanguage(language);
    const html = known ? hljs.highlight(code, { language, ignoreIllegals: true }).value : md.utils.escapeHtml(code);
    return `<pre class="code"><code class="hljs${known ? ` language-${md.utils.escapeHtml(language)}` : ""}">${html}</code></pre>`;
  } catch {
    return ""; // markdown-it then escapes the code itself
  }
}

// texmath's display-math block rules (`$$..$$`, `\[..\]`, with or without an equation number) end the block at
// the closing delimiter and drop the rest of its line: `$$x$$ and more` lost " and more". Our delimiter set is
// texmath's dollars and brackets with one change: a block is claimed only when nothing but spaces follows the
// closing delimiter on its line. Otherwise the lines stay a paragraph, where the inline rule renders `$$..$$`
// as display math among the words, and `\[..\]` stays text (Markdown reads `\[` as an escaped bracket).
const BLANK_TO_LINE_END = /[ \t]*(?:\n|$)/y;
function endsItsLine(src, end) {
  BLANK_TO_LINE_END.lastIndex = end + 1;
  return BLANK_TO_LINE_END.test(src);
}
const { dollars, brackets } = texmath.rules;
texmath.rules.whole_line_blocks = {
  // `$$..$$` in a paragraph: the formula alone, not texmath's <section>, which would close the paragraph
  inline: [...dollars.inline, ...brackets.inline].map((rule) => (rule.name === "math_inline_double" ? { ...rule, tmpl: "$1" } : rule)),
  block: [...dollars.block, ...brackets.block].map((rule) => ({
    ...rule,
    post: (src, outerSpace, end) => (!rule.post || rule.post(src, outerSpace, end)) && endsItsLine(src, end),
  })),
};

const md = new MarkdownIt({ html: false, linkify: true, breaks: false, highlight })
  .disable("image") // no remote fetches: an image's markdown stays as its text
  .use(taskLists, { enabled: false })
  .use(texmath, { engine: katex, delimiters: "whole_line_blocks", katexOptions: { output: "mathml", throwOnError: false } });
md.validateLink = (url) => SAFE_URL.test(url.trim());
// markdown-it ends every block tag with a newline: as text nodes between blocks (which render as nothing) they
// are a fifth of a long answer's nodes, each one parsed and walked by the sanitizer. Code keeps its own: fences
// and inline code have rules of their own, and a paragraph's line breaks are inside its text.
const renderToken = md.renderer.renderToken.bind(md.renderer);
md.renderer.renderToken = (tokens, index, options) => {
  const html = renderToken(tokens, index, options);
  return html.endsWith("\n") ? html.slice(0, -1) : html;
};

const PURIFY_OPTIONS = {
  RETURN_DOM_FRAGMENT: true,
  USE_PROFILES: { html: true, mathMl: true },
  ADD_TAGS: ["semantics", "annotation"], // KaTeX's MathML; the TeX source in <annotation> is not displayed
  FORBID_TAGS: ["style", "img", "svg", "form", "button", "textarea", "select", "iframe", "video", "audio", "source"],
  FORBID_ATTR: ["style", "id", "name"],
  ALLOWED_URI_REGEXP: SAFE_URL,
};

let purifier = null;

function sanitizer() {
  if (purifier) return purifier;
  purifier = DOMPurify(window);
  purifier.setConfig(PURIFY_OPTIONS); // once: a config passed to every sanitize() call is parsed again each time
  purifier.addHook("uponSanitizeAttribute", (node, data) => {
    // KaTeX's display math: <math display="block"> (the profile drops the attribute otherwise)
    if (node.localName === "math" && data.attrName === "display" && data.attrValue === "block") data.forceKeepAttr = true;
  });
  purifier.addHook("afterSanitizeAttributes", (node) => {
    if (node.localName !== "a") return;
    const href = node.getAttribute("href") || "";
    if (!SAFE_URL.test(href)) node.removeAttribute("href");
    else {
      node.setAttribute("target", "_blank");
      node.setAttribute("rel", "noopener noreferrer");
    }
  });
  return purifier;
}

/** Markdown text -> HTML string (not sanitized; only markdownFragment may put it in a page). */
export function markdownHtml(text) {
  return md.render(String(text ?? ""));
}

/** Markdown text -> a sanitized DocumentFragment of the current document. */
export function markdownFragment(text) {
  const fragment = sanitizer().sanitize(markdownHtml(text));
  for (const box of fragment.querySelectorAll("input")) {
    const mark = document.createElement("span");
    mark.className = box.hasAttribute("checked") ? "task-box done" : "task-box";
    mark.textContent = box.hasAttribute("checked") ? "☑" : "☐";
    box.replaceWith(mark);
  }
  return fragment;
}

/** A code part (not Markdown): a <pre><code> highlighted when the language is known, sanitized like the rest. */
export function highlightedCode(code, language) {
  const html = highlight(String(code ?? ""), String(language ?? "").trim().toLowerCase());
  const fragment = html ? sanitizer().sanitize(html) : null;
  if (fragment?.firstElementChild) return fragment.firstElementChild;
  const pre = document.createElement("pre");
  pre.className = "code";
  pre.append(Object.assign(document.createElement("code"), { textContent: String(code ?? "") }));
  return pre;
}
