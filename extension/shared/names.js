// Names people know for the raw values the sites store: a model's slug ("claude-sonnet-4-5-20250929",
// "gpt-4o-mini") becomes its display name ("Claude Sonnet 4.5", "GPT-4o mini"), and a project known only by
// its id ("g-p-69119d14…") becomes "Project 69119d". The raw value stays the filter's value and the title.

const DATE_SUFFIX = /-(\d{8}|\d{4}-\d{2}-\d{2})$/;
const capital = (word) => (word ? word[0].toUpperCase() + word.slice(1) : word);

/** A model slug as its display name; a slug of no known family is returned as it is. */
export function modelName(slug) {
  const raw = String(slug ?? "");
  let name = raw.includes(".") ? raw.slice(raw.lastIndexOf(".") + 1) : raw; // "claude_4_5_with_thinking.claude-…"
  const thinking = /-think(ing)?$/.test(name) || /thinking/.test(raw);
  name = name.replace(/-think(ing)?$/, "").replace(DATE_SUFFIX, "");
  const words = name.split("-").filter(Boolean);
  if (words[0] === "claude") {
    const numbers = words.filter((w) => /^\d+$/.test(w));
    const family = words.slice(1).filter((w) => !/^\d+$/.test(w)).map(capital).join(" ");
    const parts = /^\d+$/.test(words[1] ?? "") ? [numbers.join("."), family] : [family, numbers.join(".")]; // "3-5-sonnet", "sonnet-4-5"
    return ["Claude", ...parts.filter(Boolean)].join(" ") + (thinking ? " (thinking)" : "");
  }
  if (words[0] === "gpt") {
    const [version, ...rest] = words.slice(1);
    return `GPT-${version ?? ""}${rest.length ? ` ${rest.join(" ")}` : ""}${thinking ? " Thinking" : ""}`;
  }
  if (words[0] === "gemini") return ["Gemini", ...words.slice(1).map(capital)].join(" ");
  return raw;
}

/** A project's name as shown: an id-looking value (a ChatGPT "g-p-…" id, a UUID) becomes "Project 69119d". */
export function projectName(value, projectLabel) {
  const raw = String(value ?? "");
  const id = raw.match(/^(?:g-p-|g-)?([0-9a-f]{6})[0-9a-f]{10,}/i) ?? raw.match(/^([0-9a-f]{6})[0-9a-f]{2}-[0-9a-f]{4}-/i);
  return id ? projectLabel(id[1]) : raw;
}

const SITES = { chatgpt: "ChatGPT", claude: "Claude", gemini: "Gemini", grok: "Grok", perplexity: "Perplexity", deepseek: "DeepSeek" };

/** A site's name as its makers write it ("chatgpt" -> "ChatGPT"). */
export function siteName(site) {
  return SITES[site] ?? String(site ?? "");
}
