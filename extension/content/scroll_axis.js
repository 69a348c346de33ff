// Scroll position measured as distance from the top (0 = the oldest content), whichever way the scroller runs.
// A `flex-direction: column-reverse` scroller (ChatGPT's timeline since Sept 2026) has its scroll origin at the
// bottom: scrollTop is 0 at the newest turn and negative upwards, down to -(scrollHeight - clientHeight).
// It is recognised by its computed style, or by a negative scrollTop once seen (the style may sit on a wrapper).

function styledReverse(root) {
  try {
    return root instanceof Element && getComputedStyle(root).flexDirection === "column-reverse";
  } catch {
    return false;
  }
}

export function scrollAxis(root) {
  let reversed = styledReverse(root);
  const range = () => Math.max(0, root.scrollHeight - root.clientHeight);
  const notice = () => {
    if (root.scrollTop < 0) reversed = true;
  };
  const fromTop = () => {
    notice();
    return reversed ? root.scrollTop + range() : root.scrollTop;
  };
  const setFromTop = (distance) => {
    const clamped = Math.min(range(), Math.max(0, distance));
    root.scrollTop = reversed ? clamped - range() : clamped;
  };
  return {
    get reversed() {
      notice();
      return reversed;
    },
    fromTop,
    toBottom: () => setFromTop(range()),
    atBottom: () => fromTop() >= range() - 2,
    scrollUp: (by) => setFromTop(fromTop() - by),
  };
}
