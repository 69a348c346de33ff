// eslint for the extension's own code (the bundles are generated; node_modules is not ours).
import js from "@eslint/js";
import globals from "globals";

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
    },
  },
  {
    files: ["build.mjs", "eslint.config.js", "test/**/*.mjs"],
    languageOptions: { ecmaVersion: 2024, sourceType: "module", globals: { ...globals.node } },
  },
];
