// `get` and `context` answer in pages under the 1 MiB host->browser cap: follow next_cursor and
// join the chunks. A cap on the page count stops a host that never ends the cursor chain.
import { MnemoError } from "../shared/errors.js";
import { hostCall } from "./host.js";

const MAX_PAGES = 2000;

export async function callAllPages(action, params, options) {
  let cursor;
  let first = null;
  const chunks = [];
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const data = await hostCall(action, cursor ? { ...params, cursor } : params, options);
    first ??= data;
    chunks.push(typeof data.chunk === "string" ? data.chunk : "");
    if (!data.next_cursor) {
      const { chunk, next_cursor, ...meta } = first;
      return { ...meta, text: chunks.join("") };
    }
    cursor = data.next_cursor;
  }
  throw new MnemoError("TOO_MANY_PAGES", `${action} did not finish after ${MAX_PAGES} pages`);
}
