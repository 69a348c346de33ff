// www.perplexity.ai adapter: a fill-only site (the interface is in sites/README.md); "Continue in…" fills its composer.
export const perplexity = {
  name: "perplexity",
  hosts: ["www.perplexity.ai"],
  source: false,
  composer: ["#ask-input[contenteditable='true']", "[data-ask-input-container] [contenteditable='true']",
    "textarea[placeholder*='Ask']", "textarea"],
};
