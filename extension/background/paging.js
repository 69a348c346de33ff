// `get` and `context` answer in pages under the 1 MiB host->browser cap: follow next_cursor and
// join the chunks. A cap on the page count stops a host that never ends the cursor chain.
import { MnemoError } from "../shared/errors.js";
import { hostCall } from "./host.js";

const MAX_PAGES = 2000;

/**
 * All pages of `action` joined: `{...the first page's fields, text}`. `first`: a first page the caller already
 * has (a save's `export` is the first page of a `get`), so only the pages after it are asked for.
 */
export async function callAllPages(action, params, options, first = null) {
  let data = first ?? (await hostCall(action, params, options));
  const head = data;
  const chunks = [];
  for (let page = 1; ; page += 1) {
    chunks.push(typeof data.chunk === "string" ? data.chunk : "");
    if (!data.next_cursor) {
      const { chunk, next_cursor, ...meta } = head;
      return { ...meta, text: chunks.join("") };
    }
    if (page >= MAX_PAGES) throw new MnemoError("TOO_MANY_PAGES", `${action} did not finish after ${MAX_PAGES} pages`);
    data = await hostCall(action, { ...params, cursor: data.next_cursor }, options);
  }
}
