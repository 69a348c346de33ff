// Progress, success and error messages in the overlay. One toast at a time; errors stay until
// dismissed, success fades after a while.
import { el } from "../shared/element.js";
import { describeError } from "../shared/messages.js";
import { onTrusted, overlay } from "./shadow_ui.js";

let timer = null;

export function toast(state, text, { hint = null, sticky = state === "error" } = {}) {
  const { layer } = overlay();
  layer.querySelector(".toast")?.remove();
  clearTimeout(timer);
  const box = el("div", { className: "toast", role: state === "error" ? "alert" : "status",
    dataset: { mnemosyne: "toast", state } }, [text]);
  if (hint) box.append("\n", el("code", { text: hint }));
  onTrusted(box, "click", () => box.remove());
  layer.append(box);
  if (!sticky && state !== "progress") timer = setTimeout(() => box.remove(), 8000);
  return box;
}

/** An error toast; for a missing host it names the install command. */
export function toastError(error) {
  const missing = error?.code === "HOST_NOT_FOUND";
  const box = toast("error", describeError(error), { hint: missing ? "pip install mnemosyne && mnemo install" : null });
  box.dataset.code = error?.code ?? "INTERNAL";
  return box;
}
