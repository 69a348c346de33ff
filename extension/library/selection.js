// Multi-select in the library: a checkbox per row (Space toggles the focused row), then export the chosen
// conversations as one zip of the host's Markdown (the files `mnemo export --to markdown` writes), or delete
// them with an undo window: the rows go at once, the host deletes only when the window closes. Closing the
// page inside the window deletes nothing (nothing is lost by a tab closed too early).
import { t } from "../shared/api.js";
import { el } from "../shared/dom.js";
import { describeError, request } from "../shared/messages.js";
import { loadSettings } from "../shared/settings.js";
import { saveFile } from "../shared/save_file.js";
import { zipSync, strToU8 } from "../bundle/zip_libs.js";

export const UNDO_MS = 6000;
const selected = new Set();
const $ = (id) => document.getElementById(id);

function update() {
  $("selection").hidden = selected.size === 0;
  $("selection-count").textContent = t("selectedCount", [String(selected.size)]);
}

/** The row's checkbox; `row` is the list item it goes in. */
export function selectBox(id) {
  return el("input", {
    type: "checkbox",
    className: "select",
    dataset: { mnemosyne: "select" },
    "aria-label": t("selectRow"),
    on: {
      click: (event) => event.stopPropagation(),
      change: (event) => {
        if (event.target.checked) selected.add(id);
        else selected.delete(id);
        update();
      },
    },
  });
}

export function toggle(row) {
  const box = /** @type {HTMLInputElement} */ (row.querySelector("[data-mnemosyne='select']"));
  box.checked = !box.checked;
  box.dispatchEvent(new Event("change"));
}

export function clearSelection() {
  selected.clear();
  /** @type {HTMLInputElement} */ ($("select-all")).checked = false;
  update();
}

/** Select (or clear) every row on screen: the list as far as it has been paged in. */
export function selectAllShown(checked) {
  const boxes = /** @type {NodeListOf<HTMLInputElement>} */ (
    document.querySelectorAll("[data-mnemosyne='conversation']:not([hidden]) [data-mnemosyne='select']"));
  for (const box of boxes) {
    if (box.checked === checked) continue;
    box.checked = checked;
    box.dispatchEvent(new Event("change"));
  }
}

async function exportZip(say) {
  const ids = [...selected];
  say(t("zipBuilding", [String(ids.length)]));
  const files = {};
  const { redact } = await loadSettings(); // redacted like every other export when the setting is on
  for (const id of ids) {
    const data = await request("get", { conversation_id: id, format: "markdown", redact });
    files[data.filename || `${id}.md`] = strToU8(data.text);
  }
  const stamp = new Date().toISOString().slice(0, 10);
  saveFile(zipSync(files, { level: 6 }), `mnemosyne-${stamp}-${ids.length}.zip`, "application/zip");
  say(t("zipDone", [String(ids.length)]), "ok");
}

function deleteWithUndo(say) {
  const ids = [...selected];
  const rows = ids.map((id) => /** @type {HTMLElement | null} */ (
    document.querySelector(`[data-mnemosyne='conversation'][data-conversation-id='${CSS.escape(id)}']`)));
  for (const row of rows) if (row) row.hidden = true;
  clearSelection();
  const undo = el("button", { type: "button", dataset: { mnemosyne: "undo" }, text: t("undo") });
  const timer = setTimeout(async () => {
    undo.remove();
    try {
      for (const id of ids) await request("delete", { conversation_id: id });
      for (const row of rows) row?.remove();
      say(t("deletedCount", [String(ids.length)]), "ok");
    } catch (error) {
      for (const row of rows) if (row) row.hidden = false;
      say(describeError(error), "error");
    }
  }, UNDO_MS);
  undo.addEventListener("click", () => {
    clearTimeout(timer);
    for (const row of rows) {
      if (!row) continue;
      row.hidden = false;
      /** @type {HTMLInputElement} */ (row.querySelector("[data-mnemosyne='select']")).checked = false;
    }
    say(t("deleteUndone"));
  });
  say(t("deletePending", [String(ids.length)]));
  $("status").append(" ", undo);
}

/** Wire the selection toolbar; `say(text, kind)` writes the page's status line. */
export function initSelection(say) {
  const guard = (action) => () => action(say).catch((error) => say(describeError(error), "error"));
  $("export-zip").addEventListener("click", guard(exportZip));
  $("delete-selected").addEventListener("click", () => deleteWithUndo(say));
  $("clear-selection").addEventListener("click", () => {
    for (const box of /** @type {NodeListOf<HTMLInputElement>} */ (document.querySelectorAll("[data-mnemosyne='select']"))) box.checked = false;
    clearSelection();
  });
  update();
}
