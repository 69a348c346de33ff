// Content-script entry on the sites we only fill (grok.com, www.perplexity.ai, chat.mistral.ai, chat.qwen.ai;
// bundled into bundle/fill.js).
import { adapterForHost } from "../sites/index.js";
import { claimAndFill } from "./fill.js";

const site = adapterForHost(location.hostname);
if (site) claimAndFill(site);
