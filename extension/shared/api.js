// The WebExtension namespace: Firefox exposes `browser`, Chromium `chrome`; both return promises in MV3.
export const api = globalThis.browser ?? globalThis.chrome;

export function t(key, substitutions) {
  return api.i18n.getMessage(key, substitutions) || key;
}
