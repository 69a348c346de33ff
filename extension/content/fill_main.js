// Content-script entry on the sites we only fill (gemini.google.com; bundled into bundle/fill.js).
import { adapterForHost } from "../sites/index.js";
import { claimAndFill } from "./fill.js";

const site = adapterForHost(location.hostname);
if (site) claimAndFill(site);
