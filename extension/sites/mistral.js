// chat.mistral.ai (Le Chat) adapter: a fill-only site (the interface is in sites/README.md). "Continue in…"
// fills its composer, a ProseMirror editor in the chat input card.
export const mistral = {
  name: "mistral",
  hosts: ["chat.mistral.ai"],
  source: false,
  composer: [".chat-input-card .ProseMirror[contenteditable='true']", ".ProseMirror[contenteditable='true']",
    "textarea[name='message.text']", "[contenteditable='true']"],
};
