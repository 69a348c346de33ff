// The archived tree in the view: one branch shown at a time, with "‹ 2 of 3 ›" at each message whose
// siblings (edits, regenerations) lead to other branches. Switching shows that sibling's branch down to
// its newest leaf; `leaf()` names the branch on screen so copy / download ask the host for that branch.
import { t } from "./api.js";
import { el } from "./element.js";
import { activePath, renderMessage } from "./transcript.js";

const SLICE_MS = 50;

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
  const step = (delta) => () => choose(siblings[(index + delta + siblings.length) % siblings.length]);
  return el("nav", { className: "branch-switch", dataset: { mnemosyne: "branch-switch" }, "aria-label": t("branchLabel") }, [
    el("button", { type: "button", className: "branch-prev", "aria-label": t("branchPrevious"), text: "‹", on: { click: step(-1) } }),
    el("span", { className: "branch-position", text: t("branchPosition", [String(index + 1), String(siblings.length)]) }),
    el("button", { type: "button", className: "branch-next", "aria-label": t("branchNext"), text: "›", on: { click: step(1) } }),
  ]);
}

/** Render `conversation` into `container`, starting on its active branch; returns {leaf(), count}. */
export function showBranches(container, conversation, onChange = () => {}) {
  const children = childrenOf(conversation);
  const byId = new Map(conversation.messages.map((message) => [message.id, message]));
  let path = activePath(conversation);
  const memory = { shown: new Map(), leaves: new Set(), turn: 0 }; // message id -> when last on screen

  let rendering = 0; // a newer render (a branch switch) stops an older one still slicing

  function article(message) {
    const node = renderMessage(message);
    const siblings = children.get(message.parent ?? null) ?? [message];
    if (siblings.length > 1) node.querySelector("header")?.append(switcher(siblings, siblings.indexOf(message), choose));
    return node;
  }

  /**
   * Messages go on screen in slices of about SLICE_MS, yielding between them, so the first screen of a
   * long conversation shows at once and the page stays responsive; `data-state` is "ready" at the end.
   */
  async function render() {
    const mine = ++rendering;
    memory.turn += 1;
    for (const message of path) memory.shown.set(message.id, memory.turn);
    if (path.length) memory.leaves.add(path.at(-1).id);
    const visible = path.filter((message) => !message.hidden);
    container.dataset.state = "rendering";
    container.replaceChildren();
    onChange(visible);
    let sliceStart = performance.now();
    for (const message of visible) {
      if (performance.now() - sliceStart > SLICE_MS) {
        await new Promise((resolve) => setTimeout(resolve, 0));
        if (mine !== rendering) return;
        sliceStart = performance.now();
      }
      container.append(article(message));
    }
    container.dataset.state = "ready";
  }

  function choose(sibling) {
    const above = [];
    for (let node = byId.get(sibling.parent); node && !above.includes(node); node = byId.get(node.parent)) above.unshift(node);
    path = [...above, ...descend(sibling, children, memory)];
    render();
  }

  render();
  return {
    leaf: () => path.at(-1)?.id ?? null,
    isActive: () => path.at(-1)?.id === activePath(conversation).at(-1)?.id,
    stop: () => { rendering += 1; }, // a slice still to come adds nothing (e.g. after a delete)
  };
}
