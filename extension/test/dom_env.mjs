// A page for the unit tests: jsdom with the globals the content modules read (document, location, ...).
import { JSDOM } from "jsdom";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "tests", "fixtures");

const GLOBALS = ["document", "location", "Element", "Node", "MutationObserver", "getComputedStyle", "requestAnimationFrame"];

/** Make `html` the current page at `url`; returns the jsdom window. */
export function loadPage(html, url = "https://chatgpt.com/c/68b0f1c2-0000-0000-0000-000000000000") {
  const { window } = new JSDOM(html, { url, pretendToBeVisual: true });
  for (const name of GLOBALS) {
    const value = window[name];
    globalThis[name] = typeof value === "function" && /^[a-z]/.test(name) ? value.bind(window) : value;
  }
  return window;
}

export function fixture(...parts) {
  return readFileSync(join(FIXTURES, ...parts), "utf8");
}

/** Saved pages carry the site's scripts; the tests only need the markup. */
export function withoutScripts(html) {
  return html.replace(/<script\b[\s\S]*?<\/script>/gi, "");
}
