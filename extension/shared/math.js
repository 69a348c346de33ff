// Math in rendered Markdown (shared/render.js). markdown-it-texmath finds the TeX; instead of KaTeX's HTML
// string (parsed and sanitized again, a third of a maths-heavy answer's nodes), the TeX goes through the
// sanitizer as the text of a placeholder, and KaTeX's own DOM builder then draws it as MathML: elements and
// text nodes it creates, no HTML parsed. With `trust` off KaTeX makes no links or HTML; any style, link or
// handler attribute is removed all the same. A formula drawn once is cloned when it comes again.
import { katex } from "../bundle/render_libs.js";

const OPTIONS = { output: "mathml", throwOnError: false, trust: false, strict: "ignore" };
const CACHE_SIZE = 2000;
const drawn = new Map(); // `${display}\n${tex}` -> the rendered node (least recently used first)

/** The `engine` texmath is given: a placeholder holding the TeX as (escaped) text. */
export const MATH_PLACEHOLDER = {
  renderToString(tex, { displayMode } = {}) {
    const text = String(tex).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
    return `<span class="math-tex${displayMode ? " display" : ""}">${text}</span>`;
  },
};

const UNSAFE_ATTRIBUTE = /^(on|style$|href$|src$|xlink:|action$|formaction$)/i;

function render(tex, display) {
  const key = `${display}\n${tex}`;
  let node = drawn.get(key);
  if (node) drawn.delete(key); // re-inserted below: most recently used
  else {
    const box = document.createElement("span");
    katex.render(tex, box, { ...OPTIONS, displayMode: display });
    for (const element of box.querySelectorAll("*")) {
      for (const { name } of [...element.attributes]) if (UNSAFE_ATTRIBUTE.test(name)) element.removeAttribute(name);
    }
    node = box.firstElementChild ?? document.createTextNode(tex);
    if (drawn.size >= CACHE_SIZE) drawn.delete(drawn.keys().next().value);
  }
  drawn.set(key, node);
  return node.cloneNode(true);
}

/** Every math placeholder in `root` (sanitized) replaced by its MathML. */
export function drawMath(root) {
  for (const holder of root.querySelectorAll("span.math-tex")) {
    holder.replaceWith(render(holder.textContent, holder.classList.contains("display")));
  }
}
