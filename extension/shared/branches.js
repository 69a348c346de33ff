// The archived tree in the view: one branch shown at a time, with "‹ 2 of 3 ›" at each message whose
// siblings (edits, regenerations) lead to other branches. Switching shows that sibling's branch down to
// its newest leaf; `leaf()` names the branch on screen so copy / download ask the host for that branch.
import { t } from "./api.js";
import { el } from "./element.js";
import { icon } from "./icons.js";
import { holdPlace } from "./keep_place.js";
import { activePath, renderMessage } from "./transcript.js";

const SLICE_MS = 40; // formatting runs in slices this long; input and scrolling are handled between them

function yieldToPage() {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

function childrenOf(conversation) {
  const children = new Map();
  for (const message of conversation.messages) {
    const key = message.parent ?? null;
    if (!children.has(key)) children.set(key, []);
    children.get(key).push(message);
  }
  return children;
}

/**
 * From `node` down: at each step the child last shown (so switching back restores that branch as it was),
 * else the newest (last archived) child; a path shown before ends where it ended.
 */
function descend(node, children, memory) {
  const path = [node];
  const seen = new Set([node.id]);
  for (;;) {
    const here = path.at(-1);
    const kids = (children.get(here.id) ?? []).filter((kid) => !seen.has(kid.id));
    const known = kids.filter((kid) => memory.shown.has(kid.id));
    if (!kids.length || (!known.length && memory.leaves.has(here.id))) break;
    const next = known.length ? known.reduce((a, b) => (memory.shown.get(a.id) > memory.shown.get(b.id) ? a : b)) : kids.at(-1);
    seen.add(next.id);
    path.push(next);
  }
  return path;
}

function switcher(siblings, index, choose) {
  const step = (delta) => (event) => choose(siblings[(index + delta + siblings.length) % siblings.length],
    event.currentTarget.closest("article"));
  return el("nav", { className: "branch-switch", dataset: { mnemosyne: "branch-switch" }, "aria-label": t("branchLabel") }, [
    el("button", { type: "button", className: "branch-prev", "aria-label": t("branchPrevious"), on: { click: step(-1) } },
      [icon("chevron-left", 16)]),
    el("span", { className: "branch-position", text: t("branchPosition", [String(index + 1), String(siblings.length)]) }),
    el("button", { type: "button", className: "branch-next", "aria-label": t("branchNext"), on: { click: step(1) } },
      [icon("chevron-right", 16)]),
  ]);
}

/**
 * Render `conversation` into `container`, starting on its active branch; returns {leaf(), count}.
 * @param {(visible: object[]) => void} [onChange] called with the messages shown
 */
export function showBranches(container, conversation, onChange = () => {}) {
  const children = childrenOf(conversation);
  const byId = new Map(conversation.messages.map((message) => [message.id, message]));
  let path = activePath(conversation);
  const memory = { shown: new Map(), leaves: new Set(), turn: 0 }; // message id -> when last on screen

  let rendering = 0; // a newer render (a branch switch) stops an older one still formatting
  let watcher = null; // the IntersectionObserver of the render on screen
  const plain = new Map(); // article still shown as plain text -> its message, in page order (across renders)
  let held = null; // the place kept after the last branch switch, until the reader moves

  function article(message, plain = false) {
    const node = renderMessage(message, { plain, site: conversation.source?.site });
    const siblings = children.get(message.parent ?? null) ?? [message];
    if (siblings.length > 1) node.querySelector("header")?.append(switcher(siblings, siblings.indexOf(message), choose));
    return node;
  }

  /**
   * Three steps, so a long conversation shows at once and the page stays responsive:
   * 1. the messages of the first screen, formatted;
   * 2. every other message as its plain text (cheap: no Markdown, no sanitizing), so the whole branch is on
   *    the page and find-in-page finds its words: data-state="shown";
   * 3. those formatted in slices between which the page handles input, in order, the ones scrolled into
   *    view first: data-state="ready".
   * Formatting (markdown-it, highlight.js, KaTeX, then DOMPurify) is what costs: about 15 ms a long message.
   * (requestIdleCallback was tried for step 3: it was no faster on the loaded bench machine, and when no idle
   * period comes its timeout leaves the formatting a fraction of the time; slices keep it predictable.)
   */
  async function render(from = 0) {
    const mine = ++rendering;
    watcher?.disconnect();
    memory.turn += 1;
    for (const message of path) memory.shown.set(message.id, memory.turn);
    if (path.length) memory.leaves.add(path.at(-1).id);
    const visible = path.filter((message) => !message.hidden);
    container.dataset.state = "rendering";
    // a branch switch keeps the articles above the switched message as they are (the same messages), so the
    // reader's place on the page does not move; only what follows is rendered again
    for (const node of [...container.children].slice(from)) {
      plain.delete(node);
      node.remove();
    }
    onChange(visible);
    let index = from;
    // (measured at the last article, not the transcript: a branch switch may hold the transcript's height)
    const filled = () => (container.lastElementChild ?? container).getBoundingClientRect()[container.lastElementChild ? "bottom" : "top"];
    for (; index < visible.length && filled() < innerHeight; index += 1) {
      container.append(article(visible[index]));
    }
    for (const message of visible.slice(index)) {
      const node = article(message, true);
      plain.set(node, message);
      container.append(node);
    }
    container.dataset.state = "shown";
    const seen = new Set(); // plain articles near the screen: formatted first
    // (an entry can arrive for a node already formatted and replaced: queued before its unobserve, as Firefox
    // delivers them on a slow machine; formatting it again threw and left the view at "shown")
    watcher = new IntersectionObserver((entries) => {
      for (const entry of entries) if (entry.isIntersecting && plain.has(entry.target)) seen.add(entry.target);
    }, { rootMargin: "800px 0px" });
    for (const node of plain.keys()) watcher.observe(node);
    const format = (node) => {
      watcher.unobserve(node);
      seen.delete(node);
      node.replaceWith(article(plain.get(node)));
      plain.delete(node);
    };
    while (plain.size) {
      await yieldToPage();
      if (mine !== rendering) return;
      const until = performance.now() + SLICE_MS;
      do format(seen.values().next().value ?? plain.keys().next().value);
      while (plain.size && performance.now() < until);
    }
    watcher.disconnect();
    container.dataset.state = "ready";
  }

  /**
   * Show `sibling`'s branch. The messages above it stay on the page, the switched message is drawn where its
   * sibling was (the scroll is corrected by any difference), and the keyboard focus goes to the same arrow.
   */
  function choose(sibling, before) {
    const above = [];
    for (let node = byId.get(sibling.parent); node && !above.includes(node); node = byId.get(node.parent)) above.unshift(node);
    const from = [...container.children].indexOf(before); // the switched message's article: what follows is redrawn
    const top = before.getBoundingClientRect().top;
    const arrow = before.contains(document.activeElement) ? document.activeElement.className : null;
    path = [...above, ...descend(sibling, children, memory)];
    // the switched message stays where its sibling was while the page settles (shared/keep_place.js)
    held?.release();
    held = holdPlace(container, from, top);
    render(from);
    const after = container.children[from];
    if (!after) return;
    held.keep();
    if (arrow) after.querySelector(`.branch-switch .${arrow.split(" ")[0]}`)?.focus({ preventScroll: true });
  }

  render();
  return {
    leaf: () => path.at(-1)?.id ?? null,
    isActive: () => path.at(-1)?.id === activePath(conversation).at(-1)?.id,
    stop: () => { rendering += 1; watcher?.disconnect(); held?.release(); }, // nothing more is formatted (e.g. after a delete)
  };
}
