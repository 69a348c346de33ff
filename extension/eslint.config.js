// eslint for the extension's own code (the bundles are generated; node_modules is not ours).
import js from "@eslint/js";
import globals from "globals";

const ONLY_THE_RENDERER_USES_THE_BUNDLE = {
  group: ["**/bundle/render_libs.js"],
  message: "only shared/render.js uses the renderer's third-party libraries (it sanitizes)",
};
const SHARED_STAYS_BELOW = {
  group: ["../background/*", "../library/*", "../popup/*", "../view/*", "../options/*", "../preview/*", "../offscreen/*", "../content/*"],
  message: "shared/ is imported by the features, never the other way round",
};

export default [
  { ignores: ["bundle/**", "node_modules/**"] },
  js.configs.recommended,
  {
    files: ["**/*.js"],
    languageOptions: {
      ecmaVersion: 2024,
      sourceType: "module",
      globals: { ...globals.browser, ...globals.webextensions, content: "readonly" },
    },
    rules: {
      "no-unused-vars": ["error", { args: "none", ignoreRestSiblings: true }],
      eqeqeq: ["error", "always"],
      "no-implied-eval": "error",
      "no-new-func": "error",
      "no-eval": "error",
      // Transcript text is hostile: no HTML-parsing sinks. Text goes in with textContent; the one renderer
      // (shared/render.js) hands every string to DOMPurify through the third-party bundle.
      "no-restricted-properties": [
        "error",
        { property: "innerHTML", message: "parses HTML: use textContent or shared/render.js" },
        { property: "outerHTML", message: "parses HTML: use textContent or shared/render.js" },
        { property: "insertAdjacentHTML", message: "parses HTML: use DOM methods" },
        { property: "createContextualFragment", message: "parses HTML: use DOM methods" },
        { object: "document", property: "write", message: "parses HTML" },
        { object: "document", property: "writeln", message: "parses HTML" },
      ],
      "no-restricted-globals": ["error", { name: "DOMParser", message: "parses HTML: use shared/render.js" }],
      "no-restricted-imports": ["error", { patterns: [ONLY_THE_RENDERER_USES_THE_BUNDLE] }],
    },
  },
  {
    // shared/ is below the features: it never imports from background/, library/ or the pages
    files: ["shared/**/*.js"],
    rules: { "no-restricted-imports": ["error", { patterns: [ONLY_THE_RENDERER_USES_THE_BUNDLE, SHARED_STAYS_BELOW] }] },
  },
  {
    // the renderer, the one module that may use the third-party bundle: after the shared/ block, so it wins there
    files: ["shared/render.js"],
    rules: { "no-restricted-imports": ["error", { patterns: [SHARED_STAYS_BELOW] }] },
  },
  {
    files: ["build.mjs", "eslint.config.js", "test/**/*.mjs"],
    languageOptions: { ecmaVersion: 2024, sourceType: "module", globals: { ...globals.node } },
  },
];
