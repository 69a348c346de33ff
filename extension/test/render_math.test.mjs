// Math in the Markdown renderer (shared/render.js) never costs words: texmath's display-math block rule used to
// end at the closing `$$` and drop the rest of that line. Each case is written as prose and TeX parts, so the
// test knows which words are prose without parsing the source the way the renderer does.
import { test } from "node:test";
import assert from "node:assert/strict";
import { loadPage } from "./dom_env.mjs";

const page = loadPage("<!doctype html><body></body>");
globalThis.window = page;
const { markdownFragment } = await import("../shared/render.js");

const tex = (source) => ({ tex: source });
const CASES = {
  "one-line display math then words": [tex("$$E=mc^2$$"), " and more"],
  "words on both sides of display math": ["before ", tex("$$x^2$$"), " after"],
  "display math alone": [tex("$$\\frac{1}{3}$$")],
  "multi-line display math": ["Energy:\n\n", tex("$$\n\\int_0^1 x^2 \\, dx\n$$"), "\n\nthen the rest"],
  "multi-line display math then words": [tex("$$\n\\sum_i a_i\n$$"), " tail words"],
  "numbered display math then words": [tex("$$y$$"), " (1) numbered tail"],
  "two formulas on one line": [tex("$$a$$"), " middle ", tex("$$b$$"), " end"],
  "display math in a list item": ["- ", tex("$$z$$"), " listed words\n- second item"],
  "display math in a quote": ["> ", tex("$$q$$"), " quoted words"],
  "bracket display math then words": [tex("\\[w\\]"), " bracket tail"],
  "numbered bracket display math then words": [tex("\\[v\\]"), " (2) bracket numbered"],
  "multi-line bracket display math then words": [tex("\\[\nu\n\\]"), " bracket lines"],
  "inline parentheses math": ["ahead ", tex("\\(p\\)"), " behind"],
  "inline dollar math": ["ahead ", tex("$r$"), " behind"],
};

function render(text) {
  const host = page.document.createElement("div");
  host.append(markdownFragment(text));
  return host;
}

/** The rendered text without the formulas (whose MathML and <annotation> repeat the TeX), one text node after
 * another with a space between: the renderer leaves no whitespace between blocks such as two list items. */
function proseOf(host) {
  const copy = host.cloneNode(true);
  for (const math of copy.querySelectorAll(".katex, math")) math.remove();
  const walker = page.document.createTreeWalker(copy, page.NodeFilter.SHOW_TEXT);
  const texts = [];
  while (walker.nextNode()) texts.push(walker.currentNode.data);
  return texts.join(" ");
}

function wordCounts(text) {
  const counts = new Map();
  for (const word of text.match(/[\p{L}\p{N}]+/gu) || []) counts.set(word, (counts.get(word) || 0) + 1);
  return counts;
}

function assertKeepsWords(prose, rendered, label) {
  const shown = wordCounts(rendered);
  for (const [word, count] of wordCounts(prose)) {
    assert.ok((shown.get(word) || 0) >= count, `${label}: "${word}" ×${count} in the source, ×${shown.get(word) || 0} shown in ${JSON.stringify(rendered)}`);
  }
}

for (const [label, parts] of Object.entries(CASES)) {
  test(`every prose word is shown: ${label}`, () => {
    const source = parts.map((part) => part.tex ?? part).join("");
    const prose = parts.filter((part) => typeof part === "string").join(" ");
    const out = render(source);
    assertKeepsWords(prose, proseOf(out), label);
    // the TeX is kept too: as a rendered formula, or as text when the delimiters are not math there
    const annotations = [...out.querySelectorAll("annotation")].map((a) => a.textContent).join(" ");
    for (const part of parts.filter((part) => part.tex)) assertKeepsWords(part.tex, `${annotations} ${proseOf(out)}`, `${label} TeX`);
  });
}

test("a one-line display formula followed by words: display math inside the words' paragraph", () => {
  const out = render("$$E=mc^2$$ and more");
  const paragraph = out.querySelector("p");
  assert.ok(paragraph, out.innerHTML);
  assert.equal(paragraph.querySelector("math[display='block'] annotation").textContent, "E=mc^2");
  assert.equal(proseOf(paragraph).trim(), "and more");
  assert.equal(render("before $$x$$ after").querySelector("p math[display='block'] annotation").textContent, "x");
});

test("a display formula alone on its lines is still a block of its own", () => {
  for (const source of ["$$x$$", "$$x$$  ", "$$\nx\n$$", "\\[x\\]", "$$x$$ (1)"]) {
    const out = render(`${source}\n\nnext`);
    assert.equal(out.querySelector("math[display='block'] annotation").textContent.trim(), "x", source);
    assert.equal(out.querySelector("math").closest("p"), null, source);
    assert.equal(out.querySelector("p").textContent, "next", source);
  }
  assert.match(render("$$x$$ (1)").textContent, /\(1\)/);
});

test("math delimiters in fenced code and code spans stay literal", () => {
  for (const body of ["$$x$$ and more", "before $$x$$ after", "$$\nx\n$$ tail", "\\[x\\] and more", "\\(x\\) and $y$ more"]) {
    const fenced = render(`\`\`\`\n${body}\n\`\`\``);
    assert.equal(fenced.querySelector("pre code").textContent, `${body}\n`, body);
    assert.equal(fenced.querySelectorAll("math").length, 0, body);
    if (body.includes("\n")) continue;
    const span = render(`see \`${body}\` here`);
    assert.equal(span.querySelector("code").textContent, body, body);
    assert.equal(span.querySelectorAll("math").length, 0, body);
    assert.equal(span.textContent, `see ${body} here`, body);
  }
});
