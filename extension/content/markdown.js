// DOM -> Markdown for the page fallback: code blocks keep their language, KaTeX becomes its TeX
// annotation ($..$ / $$..$$), tables become GFM, links keep only http(s) targets. Buttons,
// icons and screen-reader labels ("You said:") are skipped. What cannot be read as text (a frame, a canvas,
// a video, audio) is kept as a bracketed note naming it, and counted in the caller's `warnings`.
import { wellFormed } from "../shared/text.js";
const SKIP = "button, svg, script, style, noscript, template, textarea, input, select, .sr-only, .cdk-visually-hidden, [data-mnemosyne], " +
  "[role='toolbar'], [data-testid='copy-turn-action-button'], .katex-html";
const TEXT_NODE = 3;
const ELEMENT_NODE = 1;
const OPAQUE = new Set(["IFRAME", "CANVAS", "VIDEO", "AUDIO", "OBJECT", "EMBED"]);
const LAID_OUT = /(?:^|\s)(?:inline-)?(?:flex|grid)(?:\s|$)/;
const BLOCK = new Set(["DIV", "SECTION", "ARTICLE", "MAIN", "HEADER", "FOOTER", "ASIDE", "FIGURE", "FIGCAPTION", "DETAILS", "SUMMARY"]);

const LANGUAGE = /^[A-Za-z0-9#+.\-_ ]{1,24}$/;

function languageOf(pre) {
  const code = pre.querySelector("code[class*='language-']");
  const fromClass = code && [...code.classList].find((c) => c.startsWith("language-"));
  if (fromClass) return fromClass.slice("language-".length);
  const labelled = pre.querySelector("[data-language]")?.getAttribute("data-language");
  if (labelled) return labelled;
  // ChatGPT renders the language as a small label above the code (plain div or sticky span).
  for (const label of pre.querySelectorAll("div.sticky span, div > div:first-child")) {
    if (label.querySelector("code, .cm-content, pre")) continue;
    const text = label.textContent.trim();
    if (LANGUAGE.test(text) && !label.closest("button")) return text.toLowerCase();
  }
  return "";
}

function codeText(pre) {
  const lines = pre.querySelectorAll(".cm-content .cm-line");
  if (lines.length) return [...lines].map((line) => line.textContent).join("\n");
  const code = pre.querySelector(".cm-content") || pre.querySelector("code") || pre;
  return code.textContent.replace(/\n$/, "");
}

function fence(code, language) {
  const longest = Math.max(2, ...(code.match(/`+/g) || []).map((run) => run.length));
  const marks = "`".repeat(longest + 1);
  return `${marks}${language}\n${code}\n${marks}`;
}

function tex(node) {
  const annotation = node.querySelector("annotation[encoding='application/x-tex']");
  const source = (annotation ? annotation.textContent : node.textContent).trim();
  return node.closest(".katex-display") ? `\n\n$$${source}$$\n\n` : `$${source}$`;
}

function safeUrl(url) {
  try {
    const parsed = new URL(url, document.baseURI);
    return parsed.protocol === "https:" || parsed.protocol === "http:" ? parsed.href : null;
  } catch {
    return null;
  }
}

function opaque(node, ctx) {
  const kind = node.tagName.toLowerCase();
  const label = (node.getAttribute("title") || node.getAttribute("aria-label") || node.textContent || "").trim().replace(/\s+/g, " ");
  const raw = node.getAttribute("src") || node.getAttribute("data");
  const src = raw ? safeUrl(raw) : null; // an empty src would resolve to the page itself
  ctx.warnings.push(["UNREADABLE_ELEMENT", "a page element with no readable text (frame, canvas, media) was kept as a note"]);
  const note = [kind, label, src].filter(Boolean).join(": ");
  return `\n\n[${note.replace(/[[\]]/g, "")}]\n\n`;
}

function cellText(cell, ctx) {
  return inline(cell, ctx).replace(/\n+/g, " ").replace(/\|/g, "\\|").trim();
}

function table(node, ctx) {
  const rows = [...node.querySelectorAll("tr")].map((row) => [...row.children].map((cell) => cellText(cell, ctx)));
  if (!rows.length) return "";
  const width = Math.max(...rows.map((row) => row.length));
  const pad = (row) => [...row, ...Array(width - row.length).fill("")];
  const line = (row) => `| ${pad(row).join(" | ")} |`;
  return [line(rows[0]), line(Array(width).fill("---")), ...rows.slice(1).map(line)].join("\n");
}

function list(node, ctx) {
  const ordered = node.tagName === "OL";
  let index = Number(node.getAttribute("start")) || 1;
  const indent = "   ".repeat(ctx.depth);
  const items = [];
  for (const item of node.children) {
    if (item.tagName !== "LI") {
      // not an item (Gemini puts a canvas chip straight in the list): its text is kept, under the items
      const text = convert(item, { ...ctx, depth: ctx.depth + 1 }).trim().replace(/\n{2,}/g, "\n");
      if (text) items.push(text.split("\n").map((line) => `${indent}   ${line}`).join("\n"));
      continue;
    }
    const marker = ordered ? `${index++}.` : "-";
    const body = convert(item, { ...ctx, depth: ctx.depth + 1 }).trim().replace(/\n{2,}/g, "\n");
    const [first, ...rest] = body.split("\n");
    items.push(`${indent}${marker} ${first}${rest.length ? "\n" + rest.map((l) => (l.startsWith(indent + "   ") ? l : `${indent}   ${l}`)).join("\n") : ""}`);
  }
  return items.join("\n");
}

function inline(node, ctx) {
  return convert(node, ctx).replace(/\s*\n\s*/g, " ");
}

function element(node, ctx) {
  if (node.matches(SKIP) || node.getAttribute("aria-hidden") === "true") return "";
  // Gemini keeps each formula's TeX on its wrapper (its KaTeX carries no annotation)
  if (node.matches(".math-inline[data-math], .math-block[data-math]")) {
    const source = node.getAttribute("data-math").trim();
    return node.matches(".math-block") ? `\n\n$$${source}$$\n\n` : `$${source}$`;
  }
  if (node.matches(".katex, .katex-display")) return node.matches(".katex-display") ? tex(node.querySelector(".katex") || node) : tex(node);
  if (node.tagName === "MATH") return tex(node);
  if (OPAQUE.has(node.tagName)) return opaque(node, ctx);
  const tag = node.tagName;
  if (node.classList.contains("whitespace-pre-wrap")) {
    // user messages keep their own line breaks: protect them from whitespace folding
    const token = `\u0000${ctx.blocks.length}\u0000`;
    ctx.blocks.push(node.textContent.trim());
    return `\n\n${token}\n\n`;
  }
  if (node.matches("code-block, .md-code-block") && node.querySelector("pre")) {
    // Gemini and DeepSeek name the language in the block's header, outside its <pre>
    const pre = node.querySelector("pre");
    const label = [...node.querySelectorAll(".code-block-decoration > span, .md-code-block-banner span")]
      .find((span) => !span.closest("button, pre") && LANGUAGE.test(span.textContent.trim()));
    const token = `\u0000${ctx.blocks.length}\u0000`;
    ctx.blocks.push(fence(codeText(pre), languageOf(pre) || (label ? label.textContent.trim().toLowerCase() : "")));
    return `\n\n${token}\n\n`;
  }
  switch (tag) {
    case "PRE": {
      const token = `\u0000${ctx.blocks.length}\u0000`;
      ctx.blocks.push(fence(codeText(node), languageOf(node)));
      return `\n\n${token}\n\n`;
    }
    case "CODE":
      return "`" + node.textContent + "`";
    case "BR":
      return "\n";
    case "HR":
      return "\n\n---\n\n";
    case "H1": case "H2": case "H3": case "H4": case "H5": case "H6":
      return `\n\n${"#".repeat(Number(tag[1]))} ${inline(node, ctx).trim()}\n\n`;
    case "STRONG": case "B": {
      const text = convert(node, ctx).trim();
      return text ? `**${text}**` : "";
    }
    case "EM": case "I": {
      const text = convert(node, ctx).trim();
      return text ? `*${text}*` : "";
    }
    case "SUB": case "SUP": {
      // kept as inline HTML (GFM shows it): H<sub>2</sub>O and E=mc<sup>2</sup> must not become H2O and mc2
      const text = convert(node, ctx).trim();
      return text ? `<${tag.toLowerCase()}>${text}</${tag.toLowerCase()}>` : "";
    }
    case "DEL": case "S":
      return `~~${convert(node, ctx)}~~`;
    case "A": {
      const text = convert(node, ctx).replace(/\s+/g, " ").trim();
      const href = safeUrl(node.getAttribute("href") || "");
      return href && text && text !== href ? `[${text}](${href})` : text || href || "";
    }
    case "IMG": {
      const alt = (node.getAttribute("alt") || "").trim();
      const src = safeUrl(node.getAttribute("src") || "");
      return src && ctx.images ? `![${alt}](${src})` : alt;
    }
    case "UL": case "OL":
      return `\n\n${list(node, ctx)}\n\n`;
    case "BLOCKQUOTE": {
      const body = convert(node, ctx).trim().replace(/\n{3,}/g, "\n\n");
      return `\n\n${body.split("\n").map((line) => (line ? `> ${line}` : ">")).join("\n")}\n\n`;
    }
    case "TABLE":
      return `\n\n${table(node, ctx)}\n\n`;
    case "P":
      return `\n\n${convert(node, ctx).trim()}\n\n`;
    default: {
      const text = convert(node, ctx);
      if (BLOCK.has(tag) || tag === "LI") return `\n${text.trim()}\n`;
      // a flex or grid box lays its children out as separate boxes: "Uptime Institute" "+2" in a citation
      // pill must not run together as "Institute+2"
      return LAID_OUT.test(node.getAttribute("class") || "") ? ` ${text} ` : text;
    }
  }
}

function convert(node, ctx) {
  let out = "";
  for (const child of node.childNodes) {
    if (child.nodeType === TEXT_NODE) out += child.textContent.replace(/\s+/g, " ");
    else if (child.nodeType === ELEMENT_NODE) out += element(child, ctx);
  }
  return out;
}

/**
 * Markdown for one message body. `images`: keep inline images as ![alt](url). `warnings`: an array that
 * receives one [code, message] per element kept as a note because it has no readable text.
 */
export function toMarkdown(root, { images = false, warnings = [] } = {}) {
  const ctx = { blocks: [], depth: 0, images, warnings };
  // a user message body is often the pre-wrap element itself: its line breaks are the user's own
  if (root.classList?.contains("whitespace-pre-wrap")) return wellFormed(root.textContent.trim());
  const text = convert(root, ctx)
    .split("\n").map((line) => line.replace(/[ \t]+$/, "")).join("\n")
    .replace(/\n[ \t]+\n/g, "\n\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
  // eslint-disable-next-line no-control-regex -- NUL delimits our own placeholders (set in element())
  return wellFormed(text.replace(/\u0000(\d+)\u0000/g, (_, i) => ctx.blocks[Number(i)]));
}
