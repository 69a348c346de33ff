// Prints the page capture the content script would send for a saved page, for the host-side tests
// (tests/test_dom_capture_count.py): node capture_page.mjs <chatgpt|claude|gemini|deepseek> <fixture path> <url>
import { readFileSync } from "node:fs";
import { loadPage, withoutScripts } from "./dom_env.mjs";
import { capturePayload } from "../content/capture.js";
import { sweep } from "../content/sweep.js";
import { chatgpt } from "../sites/chatgpt.js";
import { claude } from "../sites/claude.js";
import { gemini } from "../sites/gemini.js";
import { deepseek } from "../sites/deepseek.js";

const [siteName, path, url] = process.argv.slice(2);
const site = { chatgpt, claude, gemini, deepseek }[siteName];
loadPage(withoutScripts(readFileSync(path, "utf8")), url);
const payload = capturePayload(site, await sweep(site.dom, { topSettleMs: 100 }));
process.stdout.write(JSON.stringify(payload));
