// The one error type of the extension: a stable `code` (documented in MESSAGES.md) and a message.
// The service worker, the pages and the content scripts all throw and read this.
export class MnemoError extends Error {
  /**
   * @param {string} code
   * @param {string} [message]
   */
  constructor(code, message) {
    super(message || code);
    this.code = code;
  }
}

/**
 * An error a site's HTTP reply caused: the backup's rate policy reads its status and Retry-After.
 * @typedef {MnemoError & {status?: number, retryAfter?: string | null}} HttpError
 */
