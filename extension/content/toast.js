// Progress, success and error messages in the overlay, top right under the site's header (clear of the
// composer). One toast at a time; errors stay until closed, success fades after a while unless the pointer or
// the keyboard is on it. A toast may carry actions (buttons) and always has a close button.
import { t } from "../shared/api.js";
import { el } from "../shared/element.js";
import { icon } from "../shared/icons.js";
import { describeError } from "../shared/messages.js";
import { hostMissing, setupNotice } from "../shared/setup.js";
import { onTrusted, overlay } from "./shadow_ui.js";

const FADE_MS = 10_000;
let timer = null;

/**
 * Show a toast: `state` is progress | success | error; `body` a string or a node; `actions` a list of
 * {label, icon?, name, run, primary?} shown as buttons (a click runs it and closes the toast).
 */
export function toast(state, body, { actions = [], sticky = state === "error" } = {}) {
  const { layer } = overlay();
  layer.querySelector(".toast")?.remove();
  clearTimeout(timer);
  const close = onTrusted(el("button", { type: "button", className: "close", "aria-label": t("actionClose"),
    dataset: { mnemosyne: "toast-close" } }, [icon("x", 16)]), "click", () => box.remove());
  const buttons = actions.map((action) => onTrusted(el("button", { type: "button", className: action.primary ? "primary" : "",
    dataset: { mnemosyne: `toast-${action.name}` } }, [action.icon ? icon(action.icon, 16) : null, action.label]), "click", () => {
    box.remove();
    action.run();
  }));
  const box = el("div", { className: "toast", role: state === "error" ? "alert" : "status",
    dataset: { mnemosyne: "toast", state } }, [
    el("div", { className: "toast-body" }, [body, buttons.length ? el("div", { className: "toast-actions" }, buttons) : null]),
    close,
  ]);
  layer.append(box);
  if (!sticky && state !== "progress") {
    const fade = () => { timer = setTimeout(() => box.remove(), FADE_MS); };
    // kept while the user reads or reaches for an action
    box.addEventListener("pointerenter", () => clearTimeout(timer));
    box.addEventListener("focusin", () => clearTimeout(timer));
    box.addEventListener("pointerleave", fade);
    fade();
  }
  return box;
}

/** An error toast; for a missing host, the set-up notice every surface shows (shared/setup.js). */
export function toastError(error) {
  const box = hostMissing(error)
    ? toast("error", setupNotice({ onReady: () => toast("success", t("setupReadyPage")) }))
    : toast("error", describeError(error));
  box.dataset.code = error?.code ?? "INTERNAL";
  return box;
}
