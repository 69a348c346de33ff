// The "Continue in…" entries. `names` are the host target names tried in order (the host's
// `targets` action is the authority); `kind` picks a host target when no name matches.
export const CONTINUE_TARGETS = [
  { id: "chatgpt", labelKey: "targetChatgpt", names: ["chatgpt"], kind: "web", fillUrl: "https://chatgpt.com/" },
  { id: "claude", labelKey: "targetClaude", names: ["claude"], kind: "web", fillUrl: "https://claude.ai/new" },
  { id: "gemini", labelKey: "targetGemini", names: ["gemini"], kind: "web", fillUrl: "https://gemini.google.com/app" },
  { id: "agent", labelKey: "targetAgent", names: ["agents_md", "agents-md", "claude_code", "claude-code", "agent"], kind: "agent", fillUrl: null },
  { id: "local", labelKey: "targetLocal", names: ["ollama", "open_webui", "openwebui", "local"], kind: "local", fillUrl: null },
];

export function continueTarget(id) {
  return CONTINUE_TARGETS.find((entry) => entry.id === id) ?? null;
}

/** The host target name for a menu entry, given the host's `targets` list. */
export function resolveHostTarget(entry, hostTargets) {
  const names = new Set((hostTargets ?? []).map((target) => target.name));
  const byName = entry.names.find((name) => names.has(name));
  if (byName) return byName;
  const byKind = (hostTargets ?? []).find((target) => target.kind === entry.kind);
  return byKind ? byKind.name : entry.names[0];
}
