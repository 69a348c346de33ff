// chat.qwen.ai adapter: a fill-only site (the interface is in sites/README.md). "Continue in…" fills its
// composer, a textarea (the page's other textareas belong to code editors).
export const qwen = {
  name: "qwen",
  hosts: ["chat.qwen.ai"],
  source: false,
  composer: ["textarea.message-input-textarea", "textarea#chat-input", "textarea[placeholder]:not(.inputarea)"],
};
