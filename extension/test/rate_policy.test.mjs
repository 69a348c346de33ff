// The backup's request schedule (background/rate_policy.js): spacing, burst and refill, Retry-After, backoff.
import { test } from "node:test";
import assert from "node:assert/strict";
import { delayMs, initialRate, observed, policyFor, retryAfterMs, started } from "../background/rate_policy.js";

const policy = { spacingMs: 1000, burst: 3, refillPerMinute: 6, baseBackoffMs: 2000, maxBackoffMs: 60_000, maxAttempts: 4 };

test("requests are spaced, a burst is spent, then the refill rate paces them", () => {
  let rate = initialRate(policy, 0);
  assert.equal(delayMs(rate, policy, 0), 0);
  rate = started(rate, policy, 0);
  assert.equal(delayMs(rate, policy, 0), 1000, "spacing");
  rate = started(rate, policy, 1000);
  rate = started(rate, policy, 2000);
  // 3 tokens spent in 2 s, 0.2 refilled: the next token needs (1 - 0.2) / (6/min)
  const wait = delayMs(rate, policy, 2000);
  assert.ok(wait > 7000 && wait <= 8000, `refill wait ${wait}`);
  assert.equal(delayMs(rate, policy, 2000 + wait), 0);
});

test("a 429 with Retry-After waits exactly that long, empties the bucket, and a success resets the backoff", () => {
  let rate = started(initialRate(policy, 0), policy, 0);
  rate = observed(rate, policy, { status: 429, retryAfter: "30" }, 100, () => 1);
  assert.equal(rate.tokens, 0);
  assert.ok(delayMs(rate, policy, 100) >= 30_000);
  rate = observed(rate, policy, { status: 200 }, 40_000);
  assert.equal(rate.failures, 0);
});

test("Retry-After as an HTTP date, and unreadable values", () => {
  const now = Date.parse("2026-12-01T10:00:00Z");
  assert.equal(retryAfterMs("Tue, 01 Dec 2026 10:01:00 GMT", now), 60_000);
  assert.equal(retryAfterMs("1.5", now), 1500);
  assert.equal(retryAfterMs("soon", now), null);
  assert.equal(retryAfterMs(null, now), null);
});

test("5xx and network errors back off exponentially with jitter, capped, then give up", () => {
  let rate = initialRate(policy, 0);
  const waits = [];
  for (let i = 0; i < 4; i += 1) {
    rate = observed(rate, policy, { status: i % 2 ? 503 : 0 }, 0, () => 1);
    waits.push(rate.notBefore);
  }
  assert.deepEqual(waits, [2000, 4000, 8000, 16000]);
  assert.equal(rate.giveUp, true);
  const low = observed(initialRate(policy, 0), policy, { status: 500 }, 0, () => 0);
  assert.equal(low.notBefore, 1000, "jitter goes down to half the backoff");
  let capped = { ...initialRate(policy, 0), failures: 20 };
  capped = observed(capped, policy, { status: 502 }, 0, () => 1);
  assert.equal(capped.notBefore, 60_000);
});

test("a 404 is not retried and does not slow the schedule", () => {
  const rate = observed(initialRate(policy, 0), policy, { status: 404 }, 0);
  assert.equal(rate.giveUp, false);
  assert.equal(rate.notBefore, 0);
});

test("test overrides replace numbers only", () => {
  const merged = policyFor("chatgpt", { spacingMs: 5, burst: "x", maxAttempts: -1 });
  assert.equal(merged.spacingMs, 5);
  assert.equal(merged.burst, policyFor("chatgpt").burst);
  assert.equal(merged.maxAttempts, policyFor("chatgpt").maxAttempts);
});
