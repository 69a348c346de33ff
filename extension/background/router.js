// Every runtime message lands here; MESSAGES.md documents each type (a test compares it with HANDLERS).
// A message is served only if it comes from this extension (sender.id), and each type says who may send
// it: extension pages, content scripts on the sites we read (top frame only), or on the sites we fill.
import { api } from "../shared/api.js";
import { MnemoError } from "../shared/errors.js";
import { fillSiteOf, sourceSiteOf } from "../sites/index.js";
import { hostCall } from "./host.js";
import { callAllPages } from "./paging.js";
import { grant, isGranted } from "./grants.js";
import { buildContext, claimFill, contextText, describeTargets, openAndFill } from "./continue.js";
import { healthOfTab } from "./health.js";

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
      const data = await hostCall("save", { payload: msg.payload, kind: msg.kind, source_url: msg.source_url }, { timeoutMs: 120_000 });
      await grant(sender.tab.id, data.conversation_id);
      return data;
    },
  },
  get: {
    from: [PAGE, SOURCE_TAB],
    async run(msg, sender, kinds) {
      const id = text(msg.conversation_id, "conversation_id");
      await requireGrant(kinds, sender, id);
      const params = { conversation_id: id, format: text(msg.format, "format") };
      if (msg.branch) params.branch = String(msg.branch);
      return callAllPages("get", params, { timeoutMs: 120_000 });
    },
  },
  context: {
    from: [PAGE, SOURCE_TAB],
    async run(msg, sender, kinds) {
      const id = text(msg.conversation_id, "conversation_id");
      await requireGrant(kinds, sender, id);
      return buildContext({ conversation_id: id, target: msg.target, budget: msg.budget, redact: msg.redact, branch: msg.branch }, ownerOf(kinds, sender));
    },
  },
  list: {
    from: [PAGE],
    run: (msg) => hostCall("list", pick(msg, ["limit", "cursor", "source", "order", "since", "until"])),
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
  "context-text": { from: [PAGE, SOURCE_TAB], run: (msg, sender, kinds) => contextText(msg, ownerOf(kinds, sender)) },
  "fill-open": { from: [PAGE, SOURCE_TAB], run: (msg, sender, kinds) => openAndFill(msg, ownerOf(kinds, sender)) },
  "fill-claim": { from: [FILL_TAB], run: (msg, sender) => claimFill(sender) },
};

/** Who owns a context this sender builds or uses: its tab, or "page" for the extension pages. */
function ownerOf(kinds, sender) {
  return kinds.has(PAGE) ? "page" : sender.tab.id;
}

/**
 * A save must describe the tab it came from: the reader kind, the payload's site and the source URL all
 * name the sending tab's site (else a chatgpt.com tab could save under the Claude format and be granted
 * the resulting id). Returns that site.
 */
function checkSaveAgreesWithTab(msg, sender) {
  const site = sourceSiteOf(sender.url);
  const kindSite = { chatgpt_api: "chatgpt", claude_api: "claude" }[msg.kind];
  const payloadSite = msg.kind === "capture" ? msg.payload?.site : kindSite;
  if (!kindSite && msg.kind !== "capture") throw new MnemoError("BAD_REQUEST", "kind must be chatgpt_api, claude_api or capture");
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

export function installRouter() {
  api.runtime.onMessage.addListener((msg, sender, sendResponse) => {
    dispatch(msg, sender).then(
      (data) => sendResponse({ ok: true, data }),
      (error) => sendResponse({ ok: false, error: { code: error.code ?? "INTERNAL", message: String(error.message ?? error) } }),
    );
    return true; // reply asynchronously
  });
}
