// <option>s for a "Continue in" target <select>, from the host's menu (the `continue-targets` message).
// When the host cannot be reached, the saved choice stays selectable so a setting is never lost.
import { el } from "./element.js";
import { request } from "./messages.js";

export async function fillTargetSelect(select, selected) {
  let targets = [];
  try {
    ({ targets } = await request("continue-targets"));
  } catch {
    // no host: keep the saved value only
  }
  const options = targets.map((entry) => el("option", { value: entry.target, text: entry.label }));
  if (selected && !targets.some((entry) => entry.target === selected)) options.unshift(el("option", { value: selected, text: selected }));
  select.replaceChildren(...options);
  if (selected) select.value = selected;
}
