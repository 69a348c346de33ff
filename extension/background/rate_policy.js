// The backup's request schedule: a pure function of what the site answered, so it can be tested without a
// browser and resumed from storage.local after the worker stops (the whole state is plain JSON).
//
// Policy, per site (numbers in SITE_POLICIES):
//   - spacing:  at least `spacingMs` between the starts of two requests, always.
//   - burst:    a token bucket of `burst` tokens, one per request, refilled at `refillPerMinute`. ChatGPT's
//               read limit behaves like a bucket of ~200-250 requests refilled ~1/min (pionxzh/chatgpt-exporter
//               #368); we keep below it so the site never has to refuse us.
//   - 429:      the site said we are out: the bucket is emptied, and the next request waits for `Retry-After`
//               (seconds or an HTTP date) when the reply has one, else for the backoff below.
//   - 429/5xx/network: exponential backoff `baseBackoffMs * 2^(failures-1)` with full jitter in [50%, 100%],
//               capped at `maxBackoffMs`; a success resets it. A `Retry-After` replaces the backoff and is
//               honoured as given, even when longer than the cap (the site knows its own window).
//   - attempts: a request that failed `maxAttempts` times in a row is given up (the item is reported as failed,
//               the run goes on).
// The caller waits `delayMs(state, policy, now)` before each request: with setTimeout when short and the worker
// is alive, with chrome.alarms when the wait could outlive the worker. Never a fixed sleep.

//   - tab:      a request the site tab has not answered in `tabTimeoutMs` is given up (the tab stops it too).
export const SITE_POLICIES = Object.freeze({
  chatgpt: Object.freeze({ spacingMs: 1500, burst: 180, refillPerMinute: 1, baseBackoffMs: 5_000, maxBackoffMs: 15 * 60_000, maxAttempts: 6,
    tabTimeoutMs: 120_000 }),
  claude: Object.freeze({ spacingMs: 1000, burst: 60, refillPerMinute: 20, baseBackoffMs: 5_000, maxBackoffMs: 15 * 60_000, maxAttempts: 6,
    tabTimeoutMs: 120_000 }),
  // no published limits: a conversation is two requests (response-node, load-responses), so twice Claude's spacing
  grok: Object.freeze({ spacingMs: 2000, burst: 30, refillPerMinute: 20, baseBackoffMs: 5_000, maxBackoffMs: 15 * 60_000, maxAttempts: 6,
    tabTimeoutMs: 120_000 }),
  perplexity: Object.freeze({ spacingMs: 1500, burst: 40, refillPerMinute: 20, baseBackoffMs: 5_000, maxBackoffMs: 15 * 60_000, maxAttempts: 6,
    tabTimeoutMs: 120_000 }),
  // Gemini's batchexecute limits are not published; other exporters saw reads fail silently when fast: 30 at
  // 2 s, then 20 a minute (a 10-turn page of a long chat is one more request)
  gemini: Object.freeze({ spacingMs: 2000, burst: 30, refillPerMinute: 20, baseBackoffMs: 10_000, maxBackoffMs: 15 * 60_000, maxAttempts: 6,
    tabTimeoutMs: 120_000 }),
  // DeepSeek suspends accounts whose request pattern looks automated (other exporters' reports): slower still
  deepseek: Object.freeze({ spacingMs: 3000, burst: 20, refillPerMinute: 12, baseBackoffMs: 10_000, maxBackoffMs: 15 * 60_000, maxAttempts: 6,
    tabTimeoutMs: 120_000 }),
});

/** The policy for a site, with test-only overrides (storage.local `backupTestPolicy`) merged in. */
export function policyFor(site, overrides = null) {
  const base = SITE_POLICIES[site] ?? SITE_POLICIES.chatgpt;
  if (!overrides || typeof overrides !== "object") return base;
  const merged = { ...base };
  for (const key of Object.keys(base)) if (Number.isFinite(overrides[key]) && overrides[key] >= 0) merged[key] = overrides[key];
  return merged;
}

/** A fresh schedule: a full bucket, nothing to wait for. */
export function initialRate(policy, now) {
  return { tokens: policy.burst, refilledAt: now, lastStartAt: null, notBefore: 0, failures: 0, lastStatus: null };
}

function refill(rate, policy, now) {
  const perMs = policy.refillPerMinute / 60_000;
  const tokens = Math.min(policy.burst, rate.tokens + Math.max(0, now - rate.refilledAt) * perMs);
  return { ...rate, tokens, refilledAt: now };
}

/** Milliseconds to wait before the next request may start (0: now). */
export function delayMs(rate, policy, now) {
  const current = refill(rate, policy, now);
  const waits = [current.notBefore - now];
  if (current.lastStartAt !== null) waits.push(current.lastStartAt + policy.spacingMs - now);
  if (current.tokens < 1) {
    const perMs = policy.refillPerMinute / 60_000;
    waits.push(perMs > 0 ? Math.ceil((1 - current.tokens) / perMs) : policy.maxBackoffMs);
  }
  return Math.max(0, Math.ceil(Math.max(...waits)));
}

/** The schedule after a request started now (it took one token). */
export function started(rate, policy, now) {
  const current = refill(rate, policy, now);
  return { ...current, tokens: current.tokens - 1, lastStartAt: now };
}

/** `Retry-After` as milliseconds from `now`: delta-seconds or an HTTP date; null when absent or unreadable. */
export function retryAfterMs(value, now) {
  if (value === null || value === undefined || value === "") return null;
  const text = String(value).trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  const date = Date.parse(text);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/** Whether a reply status is worth retrying: rate limited, a server error, or no reply at all (0). */
export function isRetryable(status) {
  return status === 0 || status === 429 || status === 408 || (status >= 500 && status <= 599);
}

/**
 * The schedule after a reply: `{status, retryAfter}` (status 0 for a network error). `random` is injectable
 * for tests. Returns the new state; `giveUp` on it says the caller should stop retrying this request.
 */
export function observed(rate, policy, { status, retryAfter = null }, now, random = Math.random) {
  if (!isRetryable(status)) return { ...rate, failures: 0, notBefore: 0, lastStatus: status, giveUp: false };
  const failures = rate.failures + 1;
  const backoff = Math.min(policy.maxBackoffMs, policy.baseBackoffMs * 2 ** (failures - 1));
  const jittered = Math.round(backoff * (0.5 + 0.5 * random()));
  const asked = retryAfterMs(retryAfter, now);
  const wait = asked !== null ? asked : jittered;
  const next = { ...rate, failures, notBefore: now + wait, lastStatus: status, giveUp: failures >= policy.maxAttempts };
  if (status === 429) next.tokens = 0; // the site's bucket is empty: ours is too, and refills from here
  next.refilledAt = now;
  return next;
}
