// The one owner of what a user is told when Mnemosyne's helper app (the native host) is not set up: the popup,
// the library, the view, Options, the preview and the toast on a chat page all show this notice, so the set-up
// path is written once and is the README's ("Set up": `pip install .`, then `mnemo install --browser all`).
// "Check again" asks the worker for the host's `hello`; the caller decides what a success reloads.
import { t } from "./api.js";
import { el } from "./element.js";
import { icon } from "./icons.js";
import { request } from "./messages.js";

/** The set-up commands, one a line, as a user copies them into a terminal in a clone of the repository. */
export const SETUP_COMMANDS = "pip install .\nmnemo install --browser all";

/** The host is not installed (or not registered for this browser): the notice, not an error line, applies. */
export function hostMissing(error) {
  return error?.code === "HOST_NOT_FOUND";
}

/**
 * The set-up notice: what is missing in plain words, the commands with a Copy button, and "Check again".
 * `onReady` runs once the host answers (a page reloads its data; default: reload the page). Built with
 * createElement + textContent only, so it also works inside the injected UI's closed shadow roots. A page shows
 * one notice: building one removes the page's earlier one.
 */
export function setupNotice({ onReady = () => location.reload() } = {}) {
  document.querySelector("[data-mnemosyne='setup']")?.remove(); // one notice a page: the newest
  const result = el("p", { className: "setup-result", role: "status", dataset: { mnemosyne: "setup-result" } });
  const copy = el("button", { type: "button", dataset: { mnemosyne: "setup-copy" } }, [icon("copy"), t("setupCopy")]);
  const check = el("button", { type: "button", className: "primary", dataset: { mnemosyne: "setup-check" } },
    [icon("refresh-cw"), t("setupCheckAgain")]);
  copy.addEventListener("click", async (event) => {
    if (!event.isTrusted) return;
    try {
      await navigator.clipboard.writeText(SETUP_COMMANDS);
      result.textContent = t("setupCopied");
    } catch {
      result.textContent = t("setupCopyByHand");
    }
  });
  check.addEventListener("click", async (event) => {
    if (!event.isTrusted) return;
    check.disabled = true;
    result.textContent = t("setupChecking");
    try {
      await request("hello");
      result.textContent = t("setupReady");
      onReady();
    } catch (error) {
      result.textContent = hostMissing(error) ? t("setupStillMissing") : t("setupOtherProblem");
    } finally {
      check.disabled = false;
    }
  });
  return el("section", { className: "setup", role: "region", "aria-label": t("setupTitle"), dataset: { mnemosyne: "setup" } }, [
    el("h2", {}, [icon("terminal", 18), t("setupTitle")]),
    el("p", { text: t("setupWhy") }),
    el("pre", { dataset: { mnemosyne: "setup-commands" } }, [el("code", { text: SETUP_COMMANDS })]),
    el("p", { text: t("setupThen") }),
    el("div", { className: "setup-actions" }, [check, copy]),
    result,
  ]);
}
