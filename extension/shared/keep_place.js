// Keeps one message of the transcript drawn at the same height on screen while the page around it settles,
// so a branch switch does not move the reader's place. The messages above it may change size for several
// frames after the switch: `content-visibility: auto` (shared/markdown.css) lays out a message near the screen
// at its real size instead of its 240 px placeholder only in the next rendering step, and Firefox does it one
// frame at a time (a step message above shrinking from 248 px to 28 px pulls the next one into range, which
// shrinks in the next frame, and so on); formatting may also replace a plain message above. A ResizeObserver
// runs after layout and before paint, so each correction is made before the moved page is drawn.

const READER_INPUT = ["wheel", "touchstart", "keydown", "mousedown"];

/**
 * Hold the top of `container.children[index]` at `top` px from the top of the screen until the reader scrolls,
 * touches or types (or `release()`). The transcript keeps at least the height that reaches the bottom of the
 * screen below the held message (blank below a short branch, as the sites do), so the scroll is never clamped.
 * @param {HTMLElement} container
 * @param {number} index
 * @param {number} top
 */
export function holdPlace(container, index, top) {
  let expected = scrollY; // where this hold last left the page: any other scroll is the reader's
  const keep = () => {
    const held = container.children[index]; // (looked up each time: formatting replaces a plain article)
    if (!held) return;
    const above = held.getBoundingClientRect().top - container.getBoundingClientRect().top;
    container.style.minHeight = `${Math.max(0, Math.ceil(above + innerHeight - top))}px`;
    const shift = held.getBoundingClientRect().top - top;
    if (Math.abs(shift) >= 1) scrollBy(0, shift);
    expected = scrollY;
  };
  const sizes = new ResizeObserver(keep);
  for (const node of [...container.children].slice(0, index + 1)) sizes.observe(node);
  const added = new MutationObserver((records) => {
    for (const record of records) for (const node of record.addedNodes) if (node instanceof Element) sizes.observe(node);
  });
  added.observe(container, { childList: true });
  const onScroll = () => {
    if (Math.abs(scrollY - expected) >= 1) release();
  };
  function release() {
    sizes.disconnect();
    added.disconnect();
    removeEventListener("scroll", onScroll);
    for (const type of READER_INPUT) removeEventListener(type, release, true);
  }
  addEventListener("scroll", onScroll, { passive: true });
  for (const type of READER_INPUT) addEventListener(type, release, { capture: true, passive: true });
  keep();
  return { keep, release };
}
