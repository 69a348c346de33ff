// Every runtime message lands here; MESSAGES.md documents each type (a test compares it with HANDLERS).
// A message is served only if it comes from this extension (sender.id), and each type says who may send
// it: extension pages, content scripts on the sites we read (top frame only), or on the sites we fill.
import { api, t } from "../shared/api.js";
import { MnemoError } from "../shared/errors.js";
import { fillSiteOf, sourceSiteOf } from "../sites/index.js";
import { hostCall } from "./host.js";
import { callAllPages } from "./paging.js";
import { grant, isGranted } from "./grants.js";
import { buildContext, buildInPreview, cancelPreviewAhead, claimFill, contextPreview, copyFailedFill, contextText, describeTargets, openAndFill,
  openPreviewAhead, rebuildContext } from "./continue.js";
import { copyToClipboard } from "./clipboard.js";
import { saveExportFile } from "./download.js";
import { deliverExport, exportAsked, hostExport } from "./export_click.js";
import { healthOfTab } from "./health.js";
import { backupStatus, cancelBackup, pauseBackup, resumeBackup, retryBackupFailures, startBackup } from "./backup.js";
import { backupAccount } from "./backup_account.js";

const PAGE = "page"; // an extension page (popup, view, options)
const SOURCE_TAB = "source"; // a content script on chatgpt.com / claude.ai
const FILL_TAB = "fill"; // a content script on a site we fill

function callerKinds(sender) {
  const kinds = new Set();
  if (sender.id !== api.runtime.id) return kinds;
  const ownPrefix = api.runtime.getURL("");
  if (typeof sender.url === "string" && sender.url.startsWith(ownPrefix)) kinds.add(PAGE);
  const isTopFrameScript = sender.tab && sender.frameId === 0 && !kinds.has(PAGE);
  if (isTopFrameScript && sourceSiteOf(sender.url) && sourceSiteOf(sender.tab.url ?? sender.url)) kinds.add(SOURCE_TAB);
  if (isTopFrameScript && fillSiteOf(sender.url)) kinds.add(FILL_TAB);
  return kinds;
}

async function requireGrant(kinds, sender, conversationId) {
  if (kinds.has(PAGE)) return;
  if (!(await isGranted(sender.tab.id, conversationId))) {
    throw new MnemoError("FORBIDDEN", "this tab did not save that conversation");
  }
}

function text(value, name) {
  if (typeof value !== "string" || !value) throw new MnemoError("BAD_REQUEST", `${name} is required`);
  return value;
}

const HANDLERS = {
  hello: { from: [PAGE, SOURCE_TAB], run: () => hostCall("hello") },
  save: {
    from: [SOURCE_TAB],
    async run(msg, sender) {
      checkSaveAgreesWithTab(msg, sender);
      const origin = msg.origin === "keep-current" ? "keep-current" : "export"; // "backup" is the worker's own
      const asked = exportAsked(msg.export); // an Export click that copies or downloads: one host round trip
      const params = { payload: msg.payload, kind: msg.kind, source_url: msg.source_url, origin };
      const data = await hostCall("save", asked ? { ...params, export: hostExport(asked) } : params, { timeoutMs: 120_000 });
      await grant(sender.tab.id, data.conversation_id);
      const { export: _text, ...saved } = data; // the text never goes to the tab
      return asked ? { ...saved, delivered: await deliverExport(asked, data) } : saved;
    },
  },
  get: {
    from: [PAGE, SOURCE_TAB],
    async run(msg, sender, kinds) {
      const id = text(msg.conversation_id, "conversation_id");
      await requireGrant(kinds, sender, id);
      return fetchExport(msg);
    },
  },
  "attachment-get": {
    from: [PAGE],
    run(msg) {
      const sha256 = text(msg.sha256, "sha256");
      if (!/^[0-9a-f]{64}$/.test(sha256)) throw new MnemoError("BAD_REQUEST", "sha256 must be 64 hexadecimal digits");
      return callAllPages("get-attachment", { sha256 }, { timeoutMs: 120_000 });
    },
  },
  download: {
    from: [PAGE, SOURCE_TAB],
    async run(msg, sender, kinds) {
      await requireGrant(kinds, sender, text(msg.conversation_id, "conversation_id"));
      const data = await fetchExport(msg);
      return { ...(await saveExportFile(data, msg.conversation_id)), redactions: data.redactions ?? null };
    },
  },
  context: {
    from: [PAGE, SOURCE_TAB],
    async run(msg, sender, kinds) {
      const id = text(msg.conversation_id, "conversation_id");
      await requireGrant(kinds, sender, id);
      const request = { conversation_id: id, target: msg.target, budget: msg.budget, redact: msg.redact, branch: msg.branch };
      // a page gets the context; a tab gets a status while the preview window (opened at once) shows it
      return kinds.has(PAGE) ? buildContext(request) : buildInPreview(request, sender.tab.id);
    },
  },
  // a tab's pick: its preview window opens while the tab still saves; a failed save says why in that window
  "continue-open": { from: [SOURCE_TAB], run: (msg, sender) => openPreviewAhead(sender.tab.id) },
  "continue-cancel": { from: [SOURCE_TAB], run: (msg, sender) => cancelPreviewAhead(sender.tab.id, msg) },
  "open-page": {
    // the saved toast's Open / Show in library: a content script cannot open extension pages itself
    from: [SOURCE_TAB],
    async run(msg, sender, kinds) {
      const id = text(msg.conversation_id, "conversation_id");
      await requireGrant(kinds, sender, id);
      const page = msg.page === "library" ? "library/library.html" : "view/view.html";
      const tab = await api.tabs.create({ url: api.runtime.getURL(`${page}?id=${encodeURIComponent(id)}`), index: sender.tab.index + 1 });
      return { tabId: tab.id };
    },
  },
  "context-preview": { from: [PAGE], run: (msg) => contextPreview(msg) },
  "context-rebuild": { from: [PAGE], run: (msg) => rebuildContext(msg) },
  list: {
    from: [PAGE],
    run: (msg) => hostCall("list", pick(msg, ["limit", "cursor", "source", "order", "since", "until", "project", "model", "has_code", "has_attachments", "facets"])),
  },
  search: {
    from: [PAGE],
    run: (msg) => hostCall("search", { query: text(msg.query, "query"), ...pick(msg, ["limit", "source"]) }),
  },
  delete: {
    from: [PAGE],
    run: (msg) => hostCall("delete", { conversation_id: text(msg.conversation_id, "conversation_id") }),
  },
  doctor: { from: [PAGE], run: () => hostCall("doctor", {}, { timeoutMs: 60_000 }) },
  health: { from: [PAGE], run: () => healthOfTab() },
  "continue-targets": { from: [PAGE, SOURCE_TAB], run: () => describeTargets() },
  "context-text": { from: [PAGE], run: (msg) => contextText(msg) },
  "fill-open": { from: [PAGE], run: (msg) => openAndFill(msg) },
  "fill-claim": { from: [FILL_TAB], run: (msg, sender) => claimFill(sender) },
  "fill-copy": { from: [FILL_TAB], run: (msg, sender) => copyFailedFill(sender, copyToClipboard) },
  "backup-start": { from: [PAGE], run: () => startBackup() },
  "backup-status": { from: [PAGE], run: () => backupStatus() },
  "backup-account": { from: [PAGE], run: () => backupAccount() },
  "backup-pause": { from: [PAGE], run: () => pauseBackup() },
  "backup-resume": { from: [PAGE], run: () => resumeBackup() },
  "backup-cancel": { from: [PAGE], run: () => cancelBackup() },
  "backup-retry": { from: [PAGE], run: (msg) => retryBackupFailures(msg.ids ?? null) },
};

/** A conversation as the host writes it (`get`, all pages joined), redacted when the caller asks. */
function fetchExport(msg) {
  const params = { conversation_id: text(msg.conversation_id, "conversation_id"), format: text(msg.format, "format"),
    redact: msg.redact === true };
  if (msg.branch) params.branch = String(msg.branch);
  return callAllPages("get", params, { timeoutMs: 120_000 });
}

/**
 * A save must describe the tab it came from: the reader kind, the payload's site and the source URL all
 * name the sending tab's site (else a chatgpt.com tab could save under the Claude format and be granted
 * the resulting id). Returns that site.
 */
function checkSaveAgreesWithTab(msg, sender) {
  const site = sourceSiteOf(sender.url);
  const kindSite = {
    chatgpt_api: "chatgpt",
    claude_api: "claude",
    grok_api: "grok",
    perplexity_api: "perplexity",
    gemini_api: "gemini",
    deepseek_api: "deepseek",
  }[msg.kind];
  const payloadSite = msg.kind === "capture" ? msg.payload?.site : kindSite;
  if (!kindSite && msg.kind !== "capture") throw new MnemoError("BAD_REQUEST", "kind must be a site's API kind or capture");
  if (payloadSite !== site) throw new MnemoError("FORBIDDEN", `a ${site} tab cannot save a ${payloadSite ?? "site-less"} capture`);
  if (sourceSiteOf(msg.source_url) !== site) throw new MnemoError("FORBIDDEN", "source_url is not the sending tab's site");
  if (msg.kind === "capture" && sourceSiteOf(msg.payload?.url) !== site) {
    throw new MnemoError("FORBIDDEN", "the capture's url is not the sending tab's site");
  }
  return site;
}

function pick(source, keys) {
  const out = {};
  for (const key of keys) if (source[key] !== undefined && source[key] !== null && source[key] !== "") out[key] = source[key];
  return out;
}

async function dispatch(msg, sender) {
  const handler = msg && typeof msg.type === "string" ? HANDLERS[msg.type] : undefined;
  if (!handler || !Object.hasOwn(HANDLERS, msg.type)) throw new MnemoError("UNKNOWN_MESSAGE", "unknown message type");
  const kinds = callerKinds(sender);
  if (!handler.from.some((kind) => kinds.has(kind))) throw new MnemoError("FORBIDDEN", `${msg.type} is not allowed from here`);
  return handler.run(msg, sender, kinds);
}

/** The message types and who may send each: MESSAGES.md documents exactly these. */
export const MESSAGE_TYPES = Object.fromEntries(Object.entries(HANDLERS).map(([type, handler]) => [type, handler.from]));

/**
 * The error as the sender sees it. A web page's tab gets the code and a generic sentence only: the page can
 * read what its content script shows, and a message may name local files; the extension pages (options,
 * view) get the whole message, and the console keeps it.
 */
function errorFor(error, sender) {
  const code = error.code ?? "INTERNAL";
  const message = String(error.message ?? error);
  if (callerKinds(sender).has(PAGE)) return { code, message };
  console.warn(`mnemosyne: ${code}: ${message}`);
  return { code, message: t("errorSeeOptions", [code]) };
}

export function installRouter() {
  api.runtime.onMessage.addListener((msg, sender, sendResponse) => {
    dispatch(msg, sender).then(
      (data) => sendResponse({ ok: true, data }),
      (error) => sendResponse({ ok: false, error: errorFor(error, sender) }),
    );
    return true; // reply asynchronously
  });
}
