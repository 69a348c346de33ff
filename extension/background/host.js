// The one choke point for talking to the native host. A long-lived connectNative port carries
// requests tagged with ids; replies are matched by id, each request has a timeout, a dropped port
// is reopened once, and if the port cannot be used the request goes through sendNativeMessage.
import { api } from "../shared/api.js";
import { MnemoError } from "../shared/errors.js";

export const HOST_NAME = "org.mnemosyne.host";
const DEFAULT_TIMEOUT_MS = 30_000;


let port = null;
let nextId = 1;
const pending = new Map(); // id -> {resolve, reject, timer}

/** Map the browser's wording for "cannot start the host" to our codes. */
function launchError(message) {
  const text = String(message ?? "");
  if (/not found|No such native application/i.test(text)) return new MnemoError("HOST_NOT_FOUND", text);
  if (/forbidden/i.test(text)) return new MnemoError("HOST_FORBIDDEN", text);
  return new MnemoError("HOST_DISCONNECTED", text || "native host exited");
}

function unwrap(reply) {
  if (!reply || typeof reply !== "object") throw new MnemoError("BAD_REPLY", "empty reply from host");
  if (reply.ok) return reply.data ?? {};
  throw new MnemoError(reply.error?.code ?? "INTERNAL", reply.error?.message ?? "host error");
}

function openPort() {
  const opened = api.runtime.connectNative(HOST_NAME);
  opened.onMessage.addListener((reply) => {
    const entry = pending.get(reply?.id);
    if (!entry) return; // late reply after a timeout
    pending.delete(reply.id);
    clearTimeout(entry.timer);
    try {
      entry.resolve(unwrap(reply));
    } catch (error) {
      entry.reject(error);
    }
  });
  opened.onDisconnect.addListener((p) => {
    // Firefox says why on the port (`error`), Chrome in runtime.lastError
    const error = launchError(/** @type {chrome.runtime.Port & {error?: Error}} */ (p)?.error?.message || api.runtime.lastError?.message);
    if (port === opened) port = null;
    for (const [id, entry] of pending) {
      if (entry.port !== opened) continue;
      pending.delete(id);
      clearTimeout(entry.timer);
      entry.reject(error);
    }
  });
  return opened;
}

function viaPort(message, timeoutMs) {
  if (!port) port = openPort();
  const current = port;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      pending.delete(message.id);
      reject(new MnemoError("HOST_TIMEOUT", `no reply to ${message.action} within ${timeoutMs} ms`));
    }, timeoutMs);
    pending.set(message.id, { resolve, reject, timer, port: current });
    try {
      current.postMessage(message);
    } catch (error) {
      pending.delete(message.id);
      clearTimeout(timer);
      if (port === current) port = null;
      reject(launchError(error?.message));
    }
  });
}

async function viaOneShot(message, timeoutMs) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new MnemoError("HOST_TIMEOUT", `no reply to ${message.action}`)), timeoutMs);
  });
  try {
    const reply = await Promise.race([api.runtime.sendNativeMessage(HOST_NAME, message), timeout]);
    return unwrap(reply);
  } catch (error) {
    throw error instanceof MnemoError ? error : launchError(error?.message);
  } finally {
    clearTimeout(timer);
  }
}

/** Call one host action. Resolves with the reply's `data`, rejects with a MnemoError. */
export async function hostCall(action, params = {}, { timeoutMs = DEFAULT_TIMEOUT_MS } = {}) {
  const message = () => ({ ...params, id: nextId++, action });
  try {
    return await viaPort(message(), timeoutMs);
  } catch (error) {
    if (error.code !== "HOST_DISCONNECTED") throw error;
  }
  try {
    return await viaPort(message(), timeoutMs); // the port died under us: one fresh port
  } catch (error) {
    if (error.code !== "HOST_DISCONNECTED") throw error;
  }
  return viaOneShot(message(), timeoutMs);
}
