// Options: export and continue-in defaults, redaction, and a health check that shows which
// reading paths work on the current ChatGPT/Claude tab plus the host's `doctor` result.
import { t } from "../shared/api.js";
import { el, localize } from "../shared/dom.js";
import { describeError, request } from "../shared/messages.js";
import { DEFAULT_SETTINGS, loadSettings, saveSettings } from "../shared/settings.js";
import { fillTargetSelect } from "../shared/target_options.js";

const form = /** @type {HTMLFormElement} */ (document.getElementById("form"));
const saved = document.getElementById("saved");

function readForm() {
  const values = {};
  for (const [key, fallback] of Object.entries(DEFAULT_SETTINGS)) {
    const field = /** @type {HTMLInputElement | null} */ (form.elements.namedItem(key));
    if (!field) continue;
    if (typeof fallback === "boolean") values[key] = field.checked;
    else if (typeof fallback === "number") values[key] = Math.max(0, Math.floor(Number(field.value) || 0));
    else values[key] = field.value;
  }
  return values;
}

function writeForm(settings) {
  for (const [key, value] of Object.entries(settings)) {
    const field = /** @type {HTMLInputElement | null} */ (form.elements.namedItem(key));
    if (!field) continue;
    if (typeof value === "boolean") field.checked = value;
    else field.value = String(value);
  }
}

function statusRow(name, state, detail, fix) {
  return el("li", { className: `check ${state}`, dataset: { check: name, status: state } }, [
    el("strong", { text: `${name}: ${state}` }),
    detail ? el("span", { text: ` ${detail}` }) : null,
    fix ? el("div", { className: "fix", text: fix }) : null,
  ]);
}

async function runHealth() {
  const pageBox = document.getElementById("health-page");
  const hostBox = document.getElementById("health-host");
  pageBox.replaceChildren(el("p", { text: t("loading") }));
  hostBox.replaceChildren();
  try {
    const { tab, report } = await request("health");
    pageBox.replaceChildren(
      el("h3", { text: t("healthPage", [tab.title || tab.url]) }),
      el("ul", {}, report.checks.map((check) => statusRow(check.name, check.status, check.detail))),
    );
  } catch (error) {
    pageBox.replaceChildren(el("p", { className: "status error", text: describeError(error) }));
  }
  try {
    const doctor = await request("doctor");
    hostBox.replaceChildren(
      el("h3", { text: t("healthHost") }),
      el("ul", {}, doctor.checks.map((check) => statusRow(check.name, check.status, check.detail, check.fix))),
    );
  } catch (error) {
    hostBox.replaceChildren(el("p", { className: "status error", text: describeError(error) }));
  }
}

async function init() {
  localize();
  const settings = await loadSettings();
  const targets = fillTargetSelect(document.getElementById("target"), settings.defaultTarget); // the host answers later
  writeForm(settings);
  form.addEventListener("change", async () => {
    writeForm(await saveSettings(readForm()));
    saved.textContent = t("optionsSaved");
  });
  document.getElementById("health").addEventListener("click", runHealth);
  await targets;
}

init();
