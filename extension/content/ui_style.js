// Styles of the injected UI. Applied as a constructed stylesheet inside our shadow roots, so the site's CSS
// cannot reach our elements and ours cannot leak into the site. The tokens are the extension pages' own
// (shared/page.css, documented in extension/README.md); the theme follows the site's (shadow_ui.js sets
// data-theme on each host from the page's light/dark setting), and the buttons take the sites' pill shape.
export const UI_CSS = `
:host { all: initial; color-scheme: light;
  --font: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", sans-serif;
  --mono: ui-monospace, "SF Mono", Menlo, Consolas, monospace;
  --bg: #ffffff; --surface: #f4f4f5; --text: #0d0d0d; --muted: #5d5d66; --line: rgba(0, 0, 0, 0.14);
  --hover: rgba(0, 0, 0, 0.06); --accent: #5636b8; --accent-hover: #472c9c; --on-accent: #ffffff;
  --ok: #1b7a3a; --error: #b3261e; --shadow: 0 2px 6px rgba(0, 0, 0, 0.08), 0 8px 24px rgba(0, 0, 0, 0.12); }
:host([data-theme="dark"]) { color-scheme: dark;
  --bg: #2f2f2f; --surface: #242424; --text: #ececec; --muted: #b4b4bc; --line: rgba(255, 255, 255, 0.16);
  --hover: rgba(255, 255, 255, 0.08); --accent: #a996ff; --accent-hover: #bcaeff; --on-accent: #17122b;
  --ok: #74d48f; --error: #ff8a80; --shadow: 0 2px 6px rgba(0, 0, 0, 0.4), 0 8px 24px rgba(0, 0, 0, 0.5); }
* { box-sizing: border-box; font: 14px/1.45 var(--font); }
[hidden] { display: none !important; }
.icon { flex: none; }
.bar { display: inline-flex; gap: 6px; align-items: center; }
.bar.floating { position: fixed; right: 16px; bottom: 120px; z-index: 2147483646; padding: 6px; border-radius: 999px;
  background: var(--bg); border: 1px solid var(--line); box-shadow: var(--shadow); pointer-events: auto; }
button { display: inline-flex; align-items: center; gap: 6px; cursor: pointer; min-height: 32px; padding: 5px 12px;
  border: 1px solid var(--line); border-radius: 999px; background: var(--bg); color: var(--text); font-weight: 500; }
button:hover { background: var(--hover); }
button:focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }
button:disabled { opacity: .6; cursor: progress; }
button.primary { background: var(--accent); border-color: var(--accent); color: var(--on-accent); }
button.primary:hover { background: var(--accent-hover); }
.overlay { position: fixed; inset: 0; pointer-events: none; z-index: 2147483647; }
/* top right, under the site's header: clear of the composer and its send button at the bottom */
.toast { position: fixed; right: 16px; top: 64px; width: min(400px, calc(100vw - 32px)); display: flex; gap: 10px;
  align-items: flex-start; padding: 12px 12px 12px 14px; border-radius: 12px; background: var(--bg); color: var(--text);
  border: 1px solid var(--line); border-left: 4px solid var(--muted); box-shadow: var(--shadow); pointer-events: auto; }
.toast[data-state="success"] { border-left-color: var(--ok); }
.toast[data-state="error"] { border-left-color: var(--error); }
.toast[data-state="progress"] { border-left-color: var(--accent); }
.toast-body { flex: 1; min-width: 0; white-space: pre-wrap; overflow-wrap: anywhere; }
.toast-actions { display: flex; gap: 8px; flex-wrap: wrap; margin-top: 8px; white-space: normal; }
.toast .close { border: 0; min-height: 24px; padding: 2px; background: transparent; color: var(--muted); }
.toast code { font-family: var(--mono); background: var(--hover); padding: 0 4px; border-radius: 4px; }
.setup h2 { display: flex; gap: 8px; align-items: center; font-size: 15px; font-weight: 600; margin: 0 0 4px; }
.setup p { margin: 6px 0; }
.setup pre { margin: 6px 0; padding: 8px 10px; background: var(--surface); border: 1px solid var(--line); border-radius: 8px;
  white-space: pre-wrap; }
.setup pre code { font: 13px/1.5 var(--mono); background: none; padding: 0; }
.setup .setup-actions { display: flex; gap: 8px; flex-wrap: wrap; }
.setup .setup-result:empty { display: none; }
.sweep-cover { position: fixed; display: flex; align-items: center; justify-content: center; background: var(--bg);
  color: var(--muted); pointer-events: auto; }
.menu { position: fixed; min-width: 280px; max-width: min(360px, calc(100vw - 16px)); background: var(--bg); color: var(--text);
  border: 1px solid var(--line); border-radius: 14px; box-shadow: var(--shadow); padding: 6px; pointer-events: auto; }
.menu button { display: flex; flex-direction: column; align-items: flex-start; gap: 0; width: 100%; text-align: start;
  border: 0; border-radius: 8px; background: transparent; color: var(--text); padding: 8px 10px; }
.menu button:hover, .menu button:focus { background: var(--hover); outline: none; }
.menu button:focus-visible { box-shadow: inset 0 0 0 2px var(--accent); }
.menu hr { border: 0; border-top: 1px solid var(--line); margin: 4px 6px; }
`;
