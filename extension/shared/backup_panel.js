// "Back up everything" controls and progress, for the popup and the library: start, pause, resume, cancel,
// counts (done / skipped / failed / left), the current conversation, an ETA from the observed rate, and the
// failures with their reasons and a retry. The run is the worker's (background/backup.js); this panel reads it
// from storage.local and follows storage.onChanged, so it updates as the worker commits each step.
import { api, t } from "./api.js";
import { el } from "./element.js";
import { describeError, reasonText, request } from "./messages.js";
import { hostMissing, setupNotice } from "./setup.js";
import { DEFAULT_SETTINGS, loadSettings } from "./settings.js";
import { RUN_KEY, etaSeconds, left as leftOf } from "./backup_run.js";
import { siteOfOpenTab } from "./backup_site.js";
import { FILE_HOST_PERMISSION } from "./file_hosts.js";
import { siteName } from "./names.js";

const FAILURES_SHOWN = 20;

function duration(seconds) {
  if (seconds === null || seconds === undefined) return t("backupEtaUnknown");
  if (seconds < 90) return t("backupSeconds", [String(Math.max(1, seconds))]);
  if (seconds < 90 * 60) return t("backupMinutes", [String(Math.round(seconds / 60))]);
  return t("backupHours", [(seconds / 3600).toFixed(1)]);
}

/** The progress sentence: the four counts as numbers, then state, current item and ETA. */
export function progressText(run) {
  const left = leftOf(run);
  const parts = [t("backupCounts", [String(run.counts.done), String(run.counts.skipped), String(run.counts.failed), String(left)])];
  const notSaved = (run.files?.failed ?? 0) + (run.files?.skipped ?? 0);
  if (run.files?.saved || notSaved) parts.push(t("backupFiles", [String(run.files.saved ?? 0), String(notSaved)]));
  if (run.state === "running" && run.listing?.phase !== "end") parts.push(t("backupListing", [String(run.listed ?? 0)]));
  if (run.listing?.textsCut) parts.push(t("backupTextsCut", [String(run.listing.textsCut)])); // never cut unsaid
  if (run.listing?.capped) parts.push(t("backupListCapped"));
  if (run.state === "running" && run.current) parts.push(t("backupCurrent", [run.current.title || run.current.id]));
  if (run.state === "running" && run.listing?.phase === "end" && left) parts.push(t("backupEta", [duration(etaSeconds(run))]));
  const waitUntil = Math.max(run.rate?.notBefore ?? 0, run.waitUntil ?? 0);
  if (run.state === "running" && waitUntil > Date.now()) {
    parts.push(t("backupWaiting", [new Date(waitUntil).toLocaleTimeString(api.i18n.getUILanguage())]));
  }
  if (run.state === "paused") parts.push(run.pausedReason && run.pausedReason !== "user" ? t("backupPausedBecause", [reasonText(run.pausedReason)]) : t("backupPaused"));
  if (run.state === "done") parts.push(t("backupDone"));
  if (run.state === "cancelled") parts.push(t("backupCancelled"));
  return parts.join(" · ");
}

/** Why a file was not saved, for its line in the panel. */
function fileReason(warning) {
  if (warning.reason === "NO_PERMISSION") return t("backupFileNoPermission", [warning.host || "oaiusercontent.com"]);
  if (warning.reason !== "TOO_LARGE") return reasonText(warning.reason);
  return warning.bytes ? t("backupFileTooLargeBytes", [(warning.bytes / 1_000_000).toFixed(1)]) : t("backupFileTooLarge");
}

/** The page already shows the set-up notice (its list could not load): the panel does not add a second. */
const pageHasNotice = () => Boolean(document.querySelector("[data-mnemosyne='setup']"));

/** A link that opens a chat site in a new tab (the popup closes; the tab is where a backup reads). */
function siteLink(url, name) {
  return el("a", { href: url, target: "_blank", rel: "noopener noreferrer", text: name });
}

/** Build the panel into `container`; returns nothing, keeps itself current. */
export function mountBackupPanel(container) {
  const button = (name, label, action, before) => el("button", { type: "button", dataset: { mnemosyne: name }, text: label,
    on: { click: () => act(action, before?.()) } });
  // the size cap and the site a backup would use, kept current here: whether to ask for the file hosts must be
  // known inside the click, with no await before the request
  let capMb = DEFAULT_SETTINGS.attachmentCapMb;
  let site = null;
  loadSettings().then((settings) => { capMb = settings.attachmentCapMb; }, () => {});
  // which account a backup would read, or the step to take first when no tab of a site we back up is open
  const guide = el("p", { className: "guide", dataset: { mnemosyne: "backup-guide" } });
  const followSite = () => siteOfOpenTab().then((open) => {
    site = open.site;
    guide.dataset.site = site;
    if (guide.dataset.account === undefined || guide.dataset.accountSite !== site) {
      guide.textContent = t("backupAccountOfSite", [siteName(site)]);
    }
    // then the account's own name, as the site tab reads it from the site's session data
    request("backup-account").then(({ site: read, account }) => {
      if (read !== site) return;
      Object.assign(guide.dataset, { account: account ?? "", accountSite: read });
      guide.textContent = account ? t("backupAccountNamed", [siteName(read), account]) : t("backupAccountOfSite", [siteName(read)]);
    }, () => {});
  }, () => {
    site = null;
    guide.dataset.site = "";
    delete guide.dataset.account;
    guide.replaceChildren(t("backupNoTab"), " ", siteLink("https://chatgpt.com/", "ChatGPT"), " · ",
      siteLink("https://claude.ai/", "Claude"));
  });
  followSite();
  document.addEventListener("visibilitychange", () => { if (document.visibilityState === "visible") followSite(); });
  /**
   * Ask for ChatGPT's file hosts (an optional host permission) when a ChatGPT backup will download files: called
   * synchronously in the click, since the browser grants a request only during the user's gesture. The backup
   * starts once it is answered (a refusal or an error is not granted; the worker then lists those files).
   */
  function askForFileHosts() {
    if (site !== "chatgpt" || !(Number(capMb) > 0)) return Promise.resolve(false);
    try {
      return api.permissions.request(FILE_HOST_PERMISSION).catch(() => false);
    } catch {
      return Promise.resolve(false);
    }
  }
  const start = button("backup-all", t("backupAll"), "backup-start", askForFileHosts);
  const pause = button("backup-pause", t("backupPause"), "backup-pause");
  const resume = button("backup-resume", t("backupResume"), "backup-resume");
  const cancel = button("backup-cancel", t("backupCancel"), "backup-cancel");
  const retry = button("backup-retry", t("backupRetry"), "backup-retry");
  const progress = el("p", { className: "status", role: "status", dataset: { mnemosyne: "backup-progress" } });
  const failures = el("ul", { className: "backup-failures", dataset: { mnemosyne: "backup-failures" } });
  const kept = el("ul", { className: "backup-failures", dataset: { mnemosyne: "backup-kept" } });
  const fileWarnings = el("ul", { className: "backup-failures", dataset: { mnemosyne: "backup-file-warnings" } });
  const notice = el("div");
  container.replaceChildren(el("div", { className: "backup-actions" }, [start, pause, resume, cancel, retry]), guide, progress, failures,
    kept, fileWarnings, notice);

  async function act(type, before) {
    progress.classList.remove("error");
    try {
      await before; // the permission prompt's answer, if one was asked for
      await request(type);
      await refresh();
    } catch (error) {
      if (hostMissing(error) && !pageHasNotice()) notice.replaceChildren(setupNotice());
      else if (error?.code === "NO_SOURCE_TAB") followSite();
      progress.textContent = describeError(error);
      progress.classList.add("error");
    }
  }

  function show(run) {
    const active = run && (run.state === "running" || run.state === "paused");
    start.hidden = Boolean(active);
    pause.hidden = run?.state !== "running";
    resume.hidden = run?.state !== "paused";
    cancel.hidden = !active;
    retry.hidden = !run?.failures?.length;
    guide.hidden = Boolean(active);
    if (run?.state === "paused" && /^HOST_NOT_FOUND$/.test(run.pausedReason ?? "")) {
      if (!pageHasNotice()) notice.replaceChildren(setupNotice());
    } else notice.replaceChildren();
    if (!run) {
      progress.textContent = "";
      failures.replaceChildren();
      kept.replaceChildren();
      fileWarnings.replaceChildren();
      return;
    }
    const left = leftOf(run);
    Object.assign(progress.dataset, { state: run.state, done: run.counts.done, skipped: run.counts.skipped, failed: run.counts.failed, left,
      reason: run.pausedReason ?? "" });
    progress.classList.toggle("error", run.state === "paused" && Boolean(run.pausedReason) && run.pausedReason !== "user");
    progress.textContent = progressText(run);
    failures.replaceChildren(...run.failures.slice(-FAILURES_SHOWN).map((f) => el("li", { dataset: { id: f.id, reason: f.reason ?? "" } }, [
      el("span", { text: t("backupFailure", [f.title || f.id, reasonText(f.reason)]) }),
      el("button", { type: "button", className: "link", text: t("backupRetryOne"), dataset: { mnemosyne: "backup-retry-one" },
        on: { click: () => request("backup-retry", { ids: [f.id] }).then(refresh, (error) => { progress.textContent = describeError(error); }) } }),
    ])));
    kept.replaceChildren(...(run.kept ?? []).slice(-FAILURES_SHOWN).map((k) => el("li", { dataset: { id: k.id },
      text: t("backupKept", [k.title || k.id, k.reason || ""]) })));
    fileWarnings.replaceChildren(...(run.files?.warnings ?? []).slice(-FAILURES_SHOWN).map((w) => el("li", {
      dataset: { id: w.id, reason: w.reason }, text: t("backupFileWarning", [w.name, w.title || w.id, fileReason(w)]) })));
  }

  async function refresh() {
    show((await api.storage.local.get(RUN_KEY))[RUN_KEY] ?? null);
  }

  api.storage.onChanged.addListener((changes, area) => {
    if (area === "sync" && changes.attachmentCapMb) capMb = Number(changes.attachmentCapMb.newValue ?? DEFAULT_SETTINGS.attachmentCapMb);
    if (area === "local" && changes[RUN_KEY]) show(changes[RUN_KEY].newValue ?? null);
  });
  refresh();
}
