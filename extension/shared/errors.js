// The one error type of the extension: a stable `code` (documented in MESSAGES.md) and a message.
// The service worker, the pages and the content scripts all throw and read this.
export class MnemoError extends Error {
  constructor(code, message) {
    super(message || code);
    this.code = code;
  }
}
