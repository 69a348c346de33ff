// <option>s for a "Continue in" target <select>, from the host's menu (the `continue-targets` message).
// The saved choice is selectable at once and stays so when the host cannot be reached, so a setting is
// never lost or blanked while the host answers.
import { el } from "./element.js";
import { request } from "./messages.js";

export async function fillTargetSelect(select, selected) {
  if (selected) {
    select.replaceChildren(el("option", { value: selected, text: selected }));
    select.value = selected;
  }
  let targets = [];
  try {
    ({ targets } = await request("continue-targets"));
  } catch {
    return; // no host: keep the saved value only
  }
  const current = select.value || selected;
  const options = targets.map((entry) => el("option", { value: entry.target, text: entry.label }));
  if (current && !targets.some((entry) => entry.target === current)) options.unshift(el("option", { value: current, text: current }));
  select.replaceChildren(...options);
  if (current) select.value = current;
}
