// Selector health: which reading paths work on this page right now (API, each DOM selector of
// the cascade, scroll root, button anchor, composer). Shown by the options page.
import { t } from "../shared/api.js";

function count(selector) {
  try {
    return document.querySelectorAll(selector).length;
  } catch {
    return 0;
  }
}

export async function health(site) {
  const checks = [];
  const id = site.conversationId();
  checks.push({ name: "conversation-id", status: id ? "ok" : "warn", detail: id ?? t("healthNoId") });
  try {
    const ok = await site.probes.api();
    checks.push({ name: "api", status: ok ? "ok" : "fail", detail: ok ? t("healthApiOk") : t("healthApiFail") });
  } catch (error) {
    checks.push({ name: "api", status: "fail", detail: String(error.message ?? error) });
  }
  if (id) {
    try {
      await site.fetchApi(id);
      checks.push({ name: "api.conversation", status: "ok", detail: t("healthApiOk") });
    } catch (error) {
      checks.push({ name: "api.conversation", status: "fail", detail: String(error.message ?? error) });
    }
  }
  for (const selector of site.probes.turnSelectors) {
    const n = count(selector);
    checks.push({ name: `dom ${selector}`, status: n ? "ok" : "warn", detail: String(n) });
  }
  const turns = site.dom.turns().length;
  checks.push({ name: "dom.turns", status: turns ? "ok" : "fail", detail: String(turns) });
  const anchor = site.anchor();
  checks.push({ name: "anchor", status: anchor ? "ok" : "warn", detail: anchor ? anchor.node.tagName.toLowerCase() : t("healthFloating") });
  for (const selector of site.composer) {
    checks.push({ name: `composer ${selector}`, status: count(selector) ? "ok" : "warn", detail: String(count(selector)) });
  }
  return { site: site.name, url: `${location.origin}${location.pathname}`, checks };
}
