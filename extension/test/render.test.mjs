// The Markdown renderer (shared/render.js) in jsdom: what it renders, and what it never lets through.
import { test } from "node:test";
import assert from "node:assert/strict";
import { loadPage } from "./dom_env.mjs";

const page = loadPage("<!doctype html><body></body>");
globalThis.window = page;
const { markdownFragment, highlightedCode } = await import("../shared/render.js");

function render(text) {
  const host = page.document.createElement("div");
  host.append(markdownFragment(text));
  return host;
}

test("headings, emphasis, tables, task lists, math and highlighted code", () => {
  const out = render("# Tide\n\n**Core** text\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n- [x] done\n- [ ] todo\n\n$x^2$\n\n```js\nconst a = 1;\n```");
  assert.equal(out.querySelector("h1").textContent, "Tide");
  assert.equal(out.querySelector("strong").textContent, "Core");
  assert.deepEqual([...out.querySelectorAll("td")].map((td) => td.textContent), ["1", "2"]);
  assert.deepEqual([...out.querySelectorAll(".task-box")].map((box) => box.textContent), ["☑", "☐"]);
  assert.equal(out.querySelectorAll("input").length, 0);
  assert.ok(out.querySelector(".katex math msup"));
  assert.equal(out.querySelector("code.language-js .hljs-keyword").textContent, "const");
});

test("links: http(s) only, new tab, noopener noreferrer; images never load", () => {
  const out = render("[a](https://example.org) [b](javascript:alert(1)) [c](data:text/html,x) <https://x.org> ![i](https://example.org/i.png)");
  const links = [...out.querySelectorAll("a")];
  assert.deepEqual(links.map((a) => a.getAttribute("href")), ["https://example.org", "https://x.org", "https://example.org/i.png"]);
  for (const a of links) {
    assert.equal(a.getAttribute("target"), "_blank");
    assert.equal(a.getAttribute("rel"), "noopener noreferrer");
  }
  assert.equal(out.querySelectorAll("img").length, 0);
  assert.match(out.textContent, /\[b\]\(javascript:alert\(1\)\)/);
});

test("raw HTML and hostile markup stay text", () => {
  const payloads = ['<script>alert(1)</script>', '<img src=x onerror="alert(1)">', '<svg onload=alert(1)>', '<a href="javascript:alert(1)">x</a>',
    '<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>', '$\\href{javascript:alert(1)}{x}$', '<iframe srcdoc="<script>x</script>">'];
  for (const payload of payloads) {
    const out = render(payload);
    assert.equal(out.querySelectorAll("script, img, svg, iframe, style, [onerror], [onload]").length, 0, payload);
    assert.equal([...out.querySelectorAll("[href]")].filter((e) => !/^https?:/.test(e.getAttribute("href"))).length, 0, payload);
  }
});

test("code parts are highlighted when the language is known, plain otherwise", () => {
  assert.ok(highlightedCode("def f(): pass", "python").querySelector(".hljs-keyword"));
  const plain = highlightedCode("<b>x</b>", "no-such-language");
  assert.equal(plain.textContent, "<b>x</b>");
  assert.equal(plain.querySelector("b"), null);
});

test("math: MathML with no links, styles or handlers, whatever the TeX asks for", () => {
  const hostile = ["$\\href{javascript:alert(1)}{x}$", "$\\url{javascript:alert(1)}$", "$\\htmlStyle{color:red}{x}$",
    "$\\htmlData{onload=alert(1)}{x}$", "$\\includegraphics{https://x.org/i.png}$", "$\\color{red}{x}$", "$\\textcolor{#f00}{x}$", "$x^{$"];
  for (const tex of hostile) {
    const out = render(tex);
    assert.equal(out.querySelectorAll("[href], [src], [style], [onload], img, a, script").length, 0, tex);
    assert.equal([...out.querySelectorAll("*")].filter((e) => [...e.attributes].some((a) => /^on/i.test(a.name))).length, 0, tex);
  }
  const first = render("$$\\int_0^1 x^2 \\, dx$$\n\nand $a<b$");
  assert.ok(first.querySelector(".katex > math[display='block']"));
  assert.equal(first.querySelector("annotation").textContent, "\\int_0^1 x^2 \\, dx");
  assert.equal([...first.querySelectorAll("annotation")][1].textContent, "a<b");
});
