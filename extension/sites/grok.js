// grok.com adapter: a fill-only site (the interface is in sites/README.md); "Continue in…" fills its composer.
export const grok = {
  name: "grok",
  hosts: ["grok.com"],
  source: false,
  composer: ["div.tiptap.ProseMirror[contenteditable='true']", "textarea[aria-label='Ask Grok anything']",
    "[contenteditable='true'][role='textbox']", "textarea"],
};
