// DOM -> Markdown on the real HTML -> Markdown pairs of jsh9/chatgpt-to-markdown (MIT; tests/fixtures/
// dom_chatgpt/jsh9_test_cases): each saved ChatGPT page is read with the chatgpt adapter and the converter,
// and must say the same words with the same headings, tables and code fences as the pair's Markdown.
// Emphasis markers (*x* / _x_), list and quote spacing are style, so they are not compared.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { FIXTURES, fixture, loadPage } from "./dom_env.mjs";
import { toMarkdown } from "../content/markdown.js";
import { chatgpt } from "../sites/chatgpt.js";

const CASES = join(FIXTURES, "dom_chatgpt", "jsh9_test_cases");
const PAIRS = readdirSync(CASES).filter((name) => name.endsWith(".html")).map((name) => name.slice(0, -".html".length));
// What our converter keeps on purpose and the pair's converter drops: the text of a <time> element.
const KEPT_EXTRA = { timestamp_and_hr: "10:00 AM " };

/** The page as the pair's Markdown lays it out: "# _Question_" / "# _Answer_" then each message. */
function convertPage(html) {
  loadPage(html);
  return chatgpt.dom.turns().map((turn) => {
    const heading = chatgpt.dom.roleOf(turn) === "user" ? "# _Question_" : "# _Answer_";
    const bodies = [].concat(chatgpt.dom.bodyOf(turn)).filter(Boolean);
    return `${heading}\n\n${bodies.map((body) => toMarkdown(body)).join("\n\n")}`;
  }).join("\n\n");
}

function words(markdown) {
  return markdown
    .replace(/\]\((https?:[^)]*?)\/?\)/g, "]($1)") // https://example.com/ and https://example.com are one link
    .replace(/^\s*-{3,}\s*$/gm, " ")
    .replace(/^\s*(?:[-+]|\d+\.)\s/gm, " ")
    .replace(/[*_~#>|`]/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}

function shape(markdown) {
  const lines = markdown.split("\n");
  const count = (pattern) => lines.filter((line) => pattern.test(line)).length;
  return { headings: count(/^#{1,6} /), tableRows: count(/^\|/), fences: count(/^\s*```/) };
}

test("there are 17 pairs", () => assert.equal(PAIRS.length, 17));

for (const name of PAIRS) {
  test(`markdown pair ${name}`, () => {
    const ours = convertPage(fixture("dom_chatgpt", "jsh9_test_cases", `${name}.html`));
    const expected = fixture("dom_chatgpt", "jsh9_test_cases", `${name}.md`);
    const extra = KEPT_EXTRA[name];
    const compared = extra ? words(ours).replace(extra, "") : words(ours);
    if (extra) assert.ok(words(ours).includes(extra), `${name} no longer keeps ${extra}`);
    assert.equal(compared, words(expected));
    assert.deepEqual(shape(ours), shape(expected));
  });
}

test("a user message keeps its own line breaks", () => {
  const ours = convertPage(fixture("dom_chatgpt", "jsh9_test_cases", "different_text_styles.html"));
  assert.match(ours, /following styling:\n- bold\n- italic\n/);
});

test("subscripts and superscripts are kept", () => {
  const ours = convertPage(fixture("dom_chatgpt", "jsh9_test_cases", "different_text_styles.html"));
  assert.ok(ours.includes("H<sub>2</sub>O") && ours.includes("E=mc<sup>2</sup>"), ours);
});

test("KaTeX becomes its TeX annotation and links keep only http(s) targets", () => {
  const page = loadPage("<div id='m'><p>a <span class='katex'><span class='katex-mathml'><math><semantics><annotation encoding='application/x-tex'>x^2</annotation></semantics></math></span><span class='katex-html'>x2</span></span> <a href='javascript:alert(1)'>bad</a> <a href='https://example.org/p'>good</a></p></div>");
  assert.equal(toMarkdown(page.document.getElementById("m")), "a $x^2$ bad [good](https://example.org/p)");
});
