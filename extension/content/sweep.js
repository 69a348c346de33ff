// The DOM sweep: scroll the (virtualised) thread from top to bottom, collect every turn by its
// stable key as it renders, then restore the scroll position. The capture is marked complete
// only when the sweep can prove it saw every turn: the scroll covered the whole thread, no
// virtualised shell stayed empty, and numbered turns (conversation-turn-N / data-index) have no gaps.
import { wellFormed } from "../shared/text.js";
import { toMarkdown } from "./markdown.js";
const MAX_STEPS = 400;

const frame = () => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 120)));

function attachmentsOf(element, selectors) {
  const found = [];
  for (const node of element.querySelectorAll(selectors.files)) {
    const name = (node.getAttribute("title") || node.getAttribute("aria-label") || node.textContent || "").trim().split("\n")[0];
    if (name) found.push({ name: wellFormed(name.slice(0, 300)), kind: "file", url: null });
  }
  for (const image of element.querySelectorAll(selectors.images)) {
    const src = image.getAttribute("src") || "";
    const url = /^https:\/\//.test(src) ? src : null;
    const name = (image.getAttribute("alt") || (url ? url.split("/").pop().split("?")[0] : "") || "image").trim();
    found.push({ name: wellFormed(name.slice(0, 300)), kind: "image", url });
  }
  return found;
}

/**
 * site: {turns(): Element[], keyOf(el), indexOf(el) -> number|null, roleOf(el), bodyOf(el),
 *        modelOf(el), isUnrendered(el), scrollRoot(), attachments: {files, images}}
 */
export async function sweep(site) {
  const seen = new Map();
  let sequence = 0;
  let unrenderedLeft = 0;
  let unkeyed = false;
  let unkeyedCount = 0;
  const positions = new WeakMap();
  const unkeyedElements = [];

  function collect() {
    unrenderedLeft = 0;
    for (const element of site.turns()) {
      if (site.isUnrendered(element)) {
        unrenderedLeft += 1;
        continue;
      }
      const role = site.roleOf(element);
      const bodies = [].concat(site.bodyOf(element) ?? []).filter(Boolean);
      if (!role || !bodies.length) continue;
      let key = site.keyOf(element);
      if (!key) {
        // no stable key: remember the element itself; after scrolling this cannot prove dedup
        unkeyed = true;
        if (!positions.has(element)) {
          positions.set(element, `pos-${unkeyedCount++}`);
          unkeyedElements.push(element);
        }
        key = positions.get(element);
      }
      const markdown = bodies.map((body) => toMarkdown(body)).filter(Boolean).join("\n\n");
      const previous = seen.get(key);
      if (previous && previous.markdown.length >= markdown.length) continue;
      seen.set(key, {
        key: wellFormed(key),
        index: site.indexOf(element),
        firstSeen: previous ? previous.firstSeen : sequence++,
        role,
        model: site.modelOf(element),
        markdown,
        attachments: attachmentsOf(element, site.attachments),
      });
    }
  }

  collect();
  const root = site.scrollRoot();
  let coveredAll = true;
  const scrollable = Boolean(root && root.scrollHeight > root.clientHeight + 4);
  if (scrollable) {
    const start = root.scrollTop;
    root.scrollTop = 0;
    await frame();
    collect();
    let steps = 0;
    while (root.scrollTop + root.clientHeight < root.scrollHeight - 2 && steps < MAX_STEPS) {
      const before = root.scrollTop;
      root.scrollTop = before + Math.max(200, root.clientHeight * 0.8);
      await frame();
      collect();
      steps += 1;
      if (root.scrollTop === before) break; // cannot scroll further: the rest never rendered
    }
    coveredAll = root.scrollTop + root.clientHeight >= root.scrollHeight - 2;
    root.scrollTop = start;
  }

  const turns = [...seen.values()];
  const numbered = turns.every((turn) => Number.isInteger(turn.index));
  turns.sort((a, b) => (numbered ? a.index - b.index : a.firstSeen - b.firstSeen));
  let gapless = true;
  if (numbered && turns.length) {
    gapless = turns[0].index <= site.firstIndex && turns.every((turn, i) => i === 0 || turn.index === turns[i - 1].index + 1);
  }
  // Unkeyed turns are deduplicated by element identity: that holds only if the page never
  // recycled an element while we scrolled (a virtualised list would have dropped some).
  const recycled = unkeyedElements.some((element) => !element.isConnected);
  const complete = turns.length > 0 && coveredAll && unrenderedLeft === 0 && gapless && !(unkeyed && scrollable && recycled);
  return {
    complete,
    turns: turns.map((turn, order) => ({ key: turn.key, order, role: turn.role, model: turn.model,
      markdown: turn.markdown, attachments: turn.attachments })),
    diagnostics: { coveredAll, unrenderedLeft, gapless, numbered, unkeyed, scrollable, recycled },
  };
}
