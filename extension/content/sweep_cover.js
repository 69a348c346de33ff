// While the DOM sweep scrolls the thread through every turn (the site's JSON could not be read), a panel of
// ours covers the thread's visible area, in the site's theme, saying what is happening: the reader sees one
// steady "Reading the conversation…" instead of 2 s of scrolling, and the sweep puts the scroll back at its end.
// The panel is in our closed overlay (shadow_ui.js); the page's DOM and styles are not touched, so the site's
// virtualised list mounts its turns exactly as it would without it.
import { t } from "../shared/api.js";
import { el } from "../shared/element.js";
import { overlay } from "./shadow_ui.js";

/** Cover `element`'s part of the viewport; returns the function that removes the cover. */
export function coverWhileReading(element) {
  const rect = element?.getBoundingClientRect?.();
  if (!rect) return () => {};
  const top = Math.max(0, rect.top);
  const left = Math.max(0, rect.left);
  const cover = el("div", { className: "sweep-cover", role: "status", dataset: { mnemosyne: "sweep-cover" } },
    [el("span", { text: t("toastReading") })]);
  // a box sized to the thread: CSSOM properties (no style attribute is parsed)
  Object.assign(cover.style, {
    top: `${top}px`, left: `${left}px`,
    width: `${Math.max(0, Math.min(rect.right, innerWidth) - left)}px`,
    height: `${Math.max(0, Math.min(rect.bottom, innerHeight) - top)}px`,
  });
  overlay().layer.prepend(cover); // under the progress toast
  return () => cover.remove();
}
