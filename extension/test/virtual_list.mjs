// A virtualised list for the sweep tests, modelled on what was measured on the sites: only the rows in view
// are mounted, a column-reverse scroller counts scrollTop from 0 at the bottom down to -(scrollHeight -
// clientHeight), and older rows can arrive some time after the top is reached (lazy loading). jsdom does no
// layout, so the scroller's geometry is defined here.

/**
 * root: the scroller element; mount: the element whose children are the mounted rows; rows: every row, oldest
 * first. loaded: how many of the newest rows exist at first (the rest load at the top, `batch` at a time,
 * `loadDelay` ms after the top is reached, and never while `paused()`). start: the initial distance from the top.
 */
export function virtualList({ root, mount, rows, rowHeight = 100, view = 300, reversed = false, loaded = rows.length,
  batch = 4, loadDelay = 20, start = null, paused = () => false, placeholder = null }) {
  let top = 0; // distance from the top
  let pending = null;
  const state = { loaded, loads: 0 };
  const height = () => state.loaded * rowHeight;
  const range = () => Math.max(0, height() - view);
  const render = () => {
    const first = rows.length - state.loaded;
    const mounted = [];
    for (let i = 0; i < state.loaded; i += 1) {
      if ((i + 1) * rowHeight > top && i * rowHeight < top + view) {
        const row = rows[first + i];
        mounted.push(placeholder && placeholder(first + i) ? placeholder(first + i) : row);
      }
    }
    mount.replaceChildren(...mounted);
    if (top <= 0 && state.loaded < rows.length && !pending) {
      pending = setTimeout(function load() {
        if (paused()) {
          pending = setTimeout(load, loadDelay);
          return;
        }
        pending = null;
        state.loaded = Math.min(rows.length, state.loaded + batch);
        state.loads += 1;
        top += batch * rowHeight; // the view keeps its place: the new rows sit above it
        render();
      }, loadDelay);
    }
  };
  Object.defineProperty(root, "scrollHeight", { configurable: true, get: height });
  Object.defineProperty(root, "clientHeight", { configurable: true, get: () => view });
  Object.defineProperty(root, "scrollTop", {
    configurable: true,
    get: () => (reversed ? top - range() : top),
    set: (value) => {
      const distance = reversed ? value + range() : value;
      top = Math.min(range(), Math.max(0, distance));
      render();
    },
  });
  top = start ?? range();
  render();
  return { state, stop: () => clearTimeout(pending) };
}
