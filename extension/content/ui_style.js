// Styles of the injected UI. Applied as a constructed stylesheet inside our shadow roots, so
// the site's CSS cannot reach our elements and ours cannot leak into the site.
export const UI_CSS = `
:host { all: initial; }
* { box-sizing: border-box; font: 13px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; }
.bar { display: inline-flex; gap: 6px; align-items: center; }
.bar.floating { position: fixed; right: 16px; bottom: 88px; z-index: 2147483646; padding: 6px; border-radius: 10px;
  background: #fff; box-shadow: 0 2px 10px rgba(0,0,0,.18); pointer-events: auto; }
button { cursor: pointer; border: 1px solid #c9c3e6; border-radius: 8px; padding: 4px 10px; background: #f6f4ff; color: #2d1f66; }
button:hover { background: #ebe6ff; }
button:disabled { opacity: .6; cursor: progress; }
.overlay { position: fixed; inset: 0; pointer-events: none; z-index: 2147483647; }
.toast { position: fixed; right: 16px; bottom: 16px; max-width: 420px; padding: 10px 14px; border-radius: 10px;
  background: #222; color: #fff; box-shadow: 0 4px 16px rgba(0,0,0,.3); pointer-events: auto; white-space: pre-wrap; }
.toast[data-state="success"] { background: #1b6b36; }
.toast[data-state="error"] { background: #9b1c2c; }
.toast code { font-family: ui-monospace, monospace; background: rgba(255,255,255,.15); padding: 0 4px; border-radius: 4px; }
.menu { position: fixed; min-width: 260px; background: #fff; color: #222; border: 1px solid #ddd; border-radius: 10px;
  box-shadow: 0 6px 24px rgba(0,0,0,.2); padding: 4px; pointer-events: auto; }
.menu button { display: block; width: 100%; text-align: start; border: 0; background: transparent; color: #222; padding: 7px 10px; }
.menu button:hover, .menu button:focus { background: #f1effa; }
.menu hr { border: 0; border-top: 1px solid #eee; margin: 4px 6px; }
.panel { position: fixed; right: 16px; top: 72px; width: min(520px, calc(100vw - 32px)); max-height: calc(100vh - 120px);
  overflow: auto; background: #fff; color: #222; border: 1px solid #ddd; border-radius: 12px; padding: 12px;
  box-shadow: 0 8px 28px rgba(0,0,0,.25); pointer-events: auto; }
.panel h2 { font-size: 15px; font-weight: 600; margin: 0 0 6px; }
.panel p { margin: 4px 0; }
.panel ul { margin: 4px 0; padding-inline-start: 18px; color: #555; }
.panel pre { white-space: pre-wrap; max-height: 220px; overflow: auto; background: #f5f5f7; padding: 8px; border-radius: 8px;
  font: 12px/1.4 ui-monospace, monospace; }
.panel .row { display: flex; gap: 8px; justify-content: flex-end; margin-top: 8px; }
`;
