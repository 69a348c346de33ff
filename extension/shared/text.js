// Page text may hold lone surrogates; the host rejects them (pydantic), so they become U+FFFD here.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

export function wellFormed(text) {
  const value = String(text ?? "");
  return typeof value.toWellFormed === "function" ? value.toWellFormed() : value.replace(LONE_SURROGATE, "\uFFFD");
}

/** Normalise every string (keys too) of a JSON value, iteratively so deep trees cannot overflow. */
export function wellFormedDeep(value) {
  const root = { v: value };
  /** @type {Array<[Object<string, unknown> | unknown[], string | number]>} a holder and the key of a value to normalise */
  const stack = [[root, "v"]];
  while (stack.length) {
    const [holder, key] = stack.pop();
    const current = holder[key];
    if (typeof current === "string") holder[key] = wellFormed(current);
    else if (Array.isArray(current)) current.forEach((_, i) => stack.push([current, i]));
    else if (current && typeof current === "object") {
      /** @type {Object<string, unknown>} */
      const copy = {};
      for (const [k, v] of Object.entries(current)) copy[wellFormed(k)] = v;
      holder[key] = copy;
      for (const k of Object.keys(copy)) stack.push([copy, k]);
    }
  }
  return root.v;
}
