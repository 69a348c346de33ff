// gemini.google.com adapter: a fill-only site (the interface is in sites/README.md). The extension does not
// save from Gemini; "Continue in…" opens it and fills its composer.
export const gemini = {
  name: "gemini",
  hosts: ["gemini.google.com"],
  source: false,
  composer: ["rich-textarea .ql-editor", "rich-textarea [contenteditable='true']", ".ql-editor[contenteditable='true']", "[contenteditable='true']"],
};
