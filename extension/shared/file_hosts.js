// ChatGPT's file hosts, where a file download's signed URL points. The worker fetches only these; the backup
// panel asks for their optional host permission inside the backup-all click (background/file_download.js).
const FILE_HOST = /^([a-z0-9-]+\.)*oaiusercontent\.com$/;

/** The manifest's `optional_host_permissions` entry for the file hosts, for `permissions.request` / `contains`. */
export const FILE_HOST_PERMISSION = Object.freeze({ origins: ["https://*.oaiusercontent.com/*"] });

/** Whether the worker may fetch `url` as a file download: https on a file host of the site. */
export function isFileHostUrl(url) {
  try {
    const parsed = new URL(url);
    return parsed.protocol === "https:" && FILE_HOST.test(parsed.hostname) && !parsed.username && !parsed.password;
  } catch {
    return false;
  }
}
