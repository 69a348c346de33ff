// The DOM sweep: read a (virtualised) thread by pinning its newest end and scrolling towards the oldest,
// collecting every turn by its stable key as it mounts, then restore the scroll position. Newest to oldest
// because sites load older turns only when the top is reached (ChatGPT's column-reverse timeline, Claude's
// partial mounting) and because a page opened scrolled-up has not mounted its newest turns.
// The capture is complete only when the sweep can prove it saw every turn: it started at the bottom, reached
// the top and stayed there while nothing more loaded, every window it read overlapped what it had already
// seen, no placeholder stayed empty, numbered turns (conversation-turn-N / data-index) have no gaps, and as many
// turns were read as the page announces (claude.ai's aria-setsize), when it announces a number.
import { wellFormed } from "../shared/text.js";
import { toMarkdown } from "./markdown.js";
import { scrollAxis } from "./scroll_axis.js";

const MAX_STEPS = 2000;
const IDLE_MS = 10_000; // no movement, no new turn and no growth for this long: give up (partial)
const TOP_SETTLE_MS = 1000; // how long the top must stay quiet before "nothing older loads" is believed

// the next rendered frame, then a moment for the page to mount rows; a hidden tab renders no frames, so a timer
// ends the wait there (the idle deadline then ends the sweep as partial instead of hanging)
const frame = () => new Promise((resolve) => {
  const fallback = setTimeout(resolve, 250);
  requestAnimationFrame(() => {
    clearTimeout(fallback);
    setTimeout(resolve, 50);
  });
});

function attachmentsOf(element, site) {
  const scope = site.scopeOf ? site.scopeOf(element) : element;
  const mine = (node) => (site.owns ? site.owns(element, node) : true);
  const found = [];
  for (const node of scope.querySelectorAll(site.attachments.files)) {
    if (!mine(node)) continue;
    const name = (node.getAttribute("title") || node.getAttribute("aria-label") || node.textContent || "").trim().split("\n")[0];
    if (name) found.push({ name: wellFormed(name.slice(0, 300)), kind: "file", url: null });
  }
  for (const image of scope.querySelectorAll(site.attachments.images)) {
    if (!mine(image)) continue;
    const src = image.getAttribute("src") || "";
    const url = /^https:\/\//.test(src) ? src : null;
    const name = (image.getAttribute("alt") || (url ? url.split("/").pop().split("?")[0] : "") || "image").trim();
    found.push({ name: wellFormed(name.slice(0, 300)), kind: "image", url });
  }
  return found;
}

/** Page order from overlapping windows: each window is in document order and shares keys with the last. */
function orderedMerge(order, windowKeys) {
  const at = windowKeys.findIndex((key) => order.includes(key));
  if (at < 0) {
    order.unshift(...windowKeys); // disjoint (already flagged): the sweep moves towards older turns
    return;
  }
  let cursor = order.indexOf(windowKeys[at]);
  order.splice(cursor, 0, ...windowKeys.slice(0, at).filter((key) => !order.includes(key)));
  cursor = order.indexOf(windowKeys[at]);
  for (const key of windowKeys.slice(at + 1)) {
    const known = order.indexOf(key);
    if (known >= 0) cursor = known;
    else order.splice(++cursor, 0, key);
  }
}

function countWarning(warnings, code, message) {
  const found = warnings.find((w) => w.code === code);
  if (found) found.count += 1;
  else warnings.push({ code, message, count: 1 });
}

/**
 * site: {turns(): Element[] (document order), keyOf(el), indexOf(el) -> number|null, roleOf(el), bodyOf(el),
 *        modelOf(el), isUnrendered(el), scrollRoot(), attachments: {files, images}, firstIndex,
 *        topSettleMs?, scopeOf?(el), owns?(el, node), announcedTotal?() -> number|null}
 * options: {idleMs, topSettleMs} override the timings (tests).
 */
export async function sweep(site, options = {}) {
  const idleMs = options.idleMs ?? IDLE_MS;
  const topSettleMs = options.topSettleMs ?? site.topSettleMs ?? TOP_SETTLE_MS;
  const seen = new Map();
  const order = [];
  const placeholders = new Set(); // keys of placeholders seen empty; cleared when the turn renders
  const warningsByKey = new Map();
  let unkeyed = false;
  let unkeyedCount = 0;
  let disjoint = false;
  let unrenderedLeft = 0;
  let announced = null; // the message count the page announces (aria-setsize), when it does
  const positions = new WeakMap();
  const unkeyedElements = [];

  function keyFor(element) {
    const key = site.keyOf(element);
    if (key) return key;
    // no stable key: remember the element itself; after scrolling this cannot prove dedup
    unkeyed = true;
    if (!positions.has(element)) {
      positions.set(element, `pos-${unkeyedCount++}`);
      unkeyedElements.push(element);
    }
    return positions.get(element);
  }

  function collect() {
    const windowKeys = [];
    unrenderedLeft = 0;
    const total = site.announcedTotal?.();
    if (Number.isInteger(total)) announced = Math.max(announced ?? 0, total);
    for (const element of site.turns()) {
      const key = keyFor(element);
      if (site.isUnrendered(element)) {
        unrenderedLeft += 1;
        if (!seen.has(key)) placeholders.add(key);
        continue;
      }
      const role = site.roleOf(element);
      if (!role) {
        // a turn we cannot place as user or assistant: counted, never silently dropped
        warningsByKey.set(key, ["UNKNOWN_ROLE", "a turn on the page had no recognisable role and was not saved"]);
        continue;
      }
      placeholders.delete(key);
      warningsByKey.delete(key);
      if (!windowKeys.includes(key)) windowKeys.push(key); // two elements of one message (a shell and its turn)
      const bodies = [].concat(site.bodyOf(element) ?? []).filter(Boolean);
      const bodyWarnings = [];
      const markdown = bodies.map((body) => toMarkdown(body, { warnings: bodyWarnings })).filter(Boolean).join("\n\n");
      const attachments = attachmentsOf(element, site);
      const previous = seen.get(key);
      if (previous && previous.markdown.length >= markdown.length && previous.attachments.length >= attachments.length) continue;
      const warnings = bodyWarnings.slice();
      if (!markdown && !attachments.length) warnings.push(["EMPTY_TURN", "a turn showed no text the sweep could read"]);
      seen.set(key, { key: wellFormed(key), index: site.indexOf(element), role, model: site.modelOf(element), markdown,
        attachments, warnings });
    }
    if (windowKeys.length) {
      const overlaps = windowKeys.some((key) => order.includes(key));
      if (order.length && !overlaps) disjoint = true; // a window with nothing in common: turns may lie between
      orderedMerge(order, windowKeys);
    }
    return windowKeys;
  }

  const firstWindow = collect();
  const root = site.scrollRoot();
  const scrollable = Boolean(root && root.scrollHeight > root.clientHeight + 4);
  let startedAtBottom = true;
  let reachedTop = true;
  let timedOut = false;
  let steps = 0;
  if (scrollable) {
    const axis = scrollAxis(root);
    const start = root.scrollTop;
    // the walk starts again at the bottom: the first window is placed by what the walk sees
    order.length = 0;
    axis.toBottom();
    await frame();
    collect();
    startedAtBottom = axis.atBottom();
    reachedTop = false;
    let lastProgress = Date.now();
    let topSince = null;
    while (steps < MAX_STEPS) {
      const before = { distance: axis.fromTop(), height: root.scrollHeight, turns: seen.size };
      if (before.distance <= 1) {
        // at the top: older turns may still load (only while the tab is visible); wait until they do or
        // the top has stayed quiet for topSettleMs
        const visible = document.visibilityState !== "hidden";
        if (visible && topSince === null) topSince = Date.now();
        if (visible && Date.now() - topSince >= topSettleMs) {
          reachedTop = true;
          break;
        }
        await frame();
        collect();
      } else {
        topSince = null;
        axis.scrollUp(Math.max(200, root.clientHeight * 0.8));
        await frame();
        collect();
        steps += 1;
      }
      if (root.scrollHeight !== before.height) topSince = null; // older turns arrived: the quiet wait restarts
      const moved = axis.fromTop() !== before.distance || root.scrollHeight !== before.height || seen.size !== before.turns;
      if (moved) lastProgress = Date.now();
      else if (before.distance > 1 && Date.now() - lastProgress > idleMs) {
        timedOut = true; // stuck below the top: the rest never rendered
        break;
      }
      if (before.distance <= 1 && !moved && Date.now() - lastProgress > Math.max(idleMs, topSettleMs)) {
        timedOut = true; // a hidden tab never loads older turns
        break;
      }
    }
    if (steps >= MAX_STEPS) timedOut = true;
    root.scrollTop = start;
    const missed = firstWindow.filter((key) => !order.includes(key));
    if (missed.length) {
      disjoint = true; // shown before the sweep but never met on the walk: kept, and the capture is partial
      orderedMerge(order, firstWindow);
    }
  }

  const turns = order.map((key) => seen.get(key)).filter(Boolean);
  const numbered = turns.length > 0 && turns.every((turn) => Number.isInteger(turn.index));
  if (numbered) turns.sort((a, b) => a.index - b.index);
  let gapless = true;
  if (numbered) {
    gapless = turns[0].index <= site.firstIndex && turns.every((turn, i) => i === 0 || turn.index === turns[i - 1].index + 1);
  }
  // Unkeyed turns are deduplicated by element identity: that holds only if the page never
  // recycled an element while we scrolled (a virtualised list would have dropped some).
  const recycled = unkeyedElements.some((element) => !element.isConnected);
  const neverRendered = placeholders.size;
  const warnings = [];
  for (const turn of turns) for (const [code, message] of turn.warnings) countWarning(warnings, code, message);
  for (const [code, message] of warningsByKey.values()) countWarning(warnings, code, message);
  const countMatches = announced === null || turns.length === announced;
  const complete = turns.length > 0 && startedAtBottom && reachedTop && !timedOut && !disjoint && neverRendered === 0
    && gapless && countMatches && !(unkeyed && scrollable && recycled);
  return {
    complete,
    turns: turns.map((turn, position) => ({ key: turn.key, order: position, role: turn.role, model: turn.model,
      markdown: turn.markdown, attachments: turn.attachments })),
    warnings,
    diagnostics: { scrollable, startedAtBottom, reachedTop, timedOut, steps, disjoint, unrenderedLeft, neverRendered,
      gapless, numbered, announced, countMatches, unkeyed, recycled },
  };
}
