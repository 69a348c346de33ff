// Options: export and continue-in defaults, redaction, and a health check that shows which
// reading paths work on the current ChatGPT/Claude tab plus the host's `doctor` result.
import { t } from "../shared/api.js";
import { el, localize } from "../shared/dom.js";
import { icon } from "../shared/icons.js";
import { describeError, request } from "../shared/messages.js";
import { hostMissing, setupNotice } from "../shared/setup.js";
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

const sentence = (text) => {
  const trimmed = String(text ?? "").trim().replace(/[.;:]$/, "");
  return trimmed ? `${trimmed[0].toUpperCase()}${trimmed.slice(1)}.` : "";
};

/** The page's problems: only when no path reads the conversation (the site's data failing while the page reads
 *  is the normal fallback, not a problem). */
function pageProblems(report) {
  const status = Object.fromEntries(report.checks.map((check) => [check.name, check.status]));
  const readable = status["api.conversation"] === "ok" || status["dom.turns"] === "ok";
  return readable ? [] : [t("healthCannotRead")];
}

/** The host's problems: one sentence each, what is wrong and what to do (its failed checks; warnings are details). */
function hostProblems(doctor) {
  return doctor.checks.filter((check) => check.status === "fail").map((check) => `${sentence(check.detail)} ${sentence(check.fix)}`.trim());
}

/** "All good", or one sentence per problem; the checks themselves folded under it. */
function healthSection(box, title, problems, rows) {
  const ok = problems.length === 0;
  box.replaceChildren(
    el("p", { className: `health-summary ${ok ? "ok" : "problem"}`, dataset: { mnemosyne: "health-summary", state: ok ? "ok" : "problem" } }, [
      icon(ok ? "check" : "circle-alert", 18), ok ? t("healthAllGood", [title]) : title,
    ]),
    ok ? null : el("ul", { className: "problems", dataset: { mnemosyne: "health-problems" } }, problems.map((text) => el("li", { text }))),
    el("details", { className: "health-details" }, [el("summary", { text: t("healthDetails") }), el("ul", {}, rows)]),
  );
}

async function runHealth() {
  const pageBox = document.getElementById("health-page");
  const hostBox = document.getElementById("health-host");
  pageBox.replaceChildren(el("p", { text: t("loading") }));
  hostBox.replaceChildren();
  try {
    const { tab, report } = await request("health");
    healthSection(pageBox, t("healthPage", [tab.title || tab.url]), pageProblems(report),
      report.checks.map((check) => statusRow(check.name, check.status, check.detail)));
  } catch (error) {
    pageBox.replaceChildren(el("p", { className: "status", text: describeError(error) }));
  }
  try {
    const doctor = await request("doctor");
    healthSection(hostBox, t("healthHost"), hostProblems(doctor),
      doctor.checks.map((check) => statusRow(check.name, check.status, check.detail, check.fix)));
  } catch (error) {
    hostBox.replaceChildren(hostMissing(error) ? setupNotice({ onReady: runHealth })
      : el("p", { className: "status error", text: describeError(error) }));
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
