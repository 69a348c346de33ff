// Progress, success and error messages in the overlay. One toast at a time; errors stay until
// dismissed, success fades after a while.
(() => {
  const M = globalThis.Mnemo;
  let timer = null;

  M.toast = (state, text, { hint = null, sticky = state === "error" } = {}) => {
    const { layer } = M.overlay();
    layer.querySelector(".toast")?.remove();
    clearTimeout(timer);
    const box = M.el("div", { className: "toast", role: state === "error" ? "alert" : "status",
      dataset: { mnemosyne: "toast", state } }, [text]);
    if (hint) box.append("\n", M.el("code", { text: hint }));
    box.addEventListener("click", () => box.remove());
    layer.append(box);
    if (!sticky && state !== "progress") timer = setTimeout(() => box.remove(), 8000);
    return box;
  };

  /** An error toast; for a missing host it names the install command. */
  M.toastError = (error) => {
    const missing = error?.code === "HOST_NOT_FOUND";
    return M.toast("error", M.describeError(error), { hint: missing ? "pip install mnemosyne && mnemo install" : null });
  };
})();
