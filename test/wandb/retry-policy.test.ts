import assert from "node:assert/strict";
import { test } from "node:test";

import {
  abortableSleep,
  backoffMs,
  decideRetry,
  DEFAULT_RETRY_POLICY,
  parseRateLimitReset,
  parseRetryAfter,
  rateLimitPauseMs,
  rateLimitWaitMs,
  resolveRetryPolicy,
  type AttemptFailure,
} from "../../lib/wandb/retry-policy";

const fixed = (r: number) => resolveRetryPolicy({ random: () => r });

test("the default policy is the official client's", () => {
  assert.equal(DEFAULT_RETRY_POLICY.retries, 20);
  assert.equal(DEFAULT_RETRY_POLICY.timeoutMs, 30_000);
  assert.deepEqual(
    [...DEFAULT_RETRY_POLICY.noRetryStatus].sort((a, b) => a - b),
    [400, 401, 403, 404, 409, 410, 413, 422, 501],
  );
});

test("back-off is min(60, 2 * 2^i * (1 + 0.25 r)) seconds", () => {
  assert.equal(backoffMs(fixed(0), 0), 2000);
  assert.equal(backoffMs(fixed(0), 1), 4000);
  assert.equal(backoffMs(fixed(1), 2), 10000, "8 s * 1.25");
  assert.equal(backoffMs(fixed(0.5), 3), 18000, "16 s * 1.125");
  assert.equal(backoffMs(fixed(0), 5), 60000, "64 s capped at 60");
  assert.equal(backoffMs(fixed(0.99), 19), 60000);
});

test("Retry-After: delay seconds and HTTP dates", () => {
  const now = Date.UTC(2025, 0, 1, 12, 0, 0);
  assert.equal(parseRetryAfter("7", now), 7000);
  assert.equal(parseRetryAfter(" 0 ", now), 0);
  assert.equal(parseRetryAfter("Wed, 01 Jan 2025 12:00:30 GMT", now), 30000);
  assert.equal(parseRetryAfter("Wed, 01 Jan 2025 11:00:00 GMT", now), 0, "a past date means now");
  for (const bad of [null, undefined, "", "1.5", "-3", "soon", "Wed, 01 Jan", "99 bottles"]) {
    assert.equal(parseRetryAfter(bad, now), null, String(bad));
  }
});

test("statuses: the never-retried list fails at once, everything else retries", () => {
  const p = fixed(0);
  for (const status of [400, 401, 403, 404, 409, 410, 413, 422, 501]) {
    const d = decideRetry(p, { kind: "status", status, retryAfterMs: null }, 1);
    assert.equal(d.retry, false, String(status));
  }
  for (const status of [408, 418, 429, 500, 502, 503, 504]) {
    assert.deepEqual(decideRetry(p, { kind: "status", status, retryAfterMs: null }, 1), { retry: true, waitMs: 2000 }, String(status));
  }
});

test("Retry-After is used as given, even above the 60 s cap", () => {
  assert.deepEqual(decideRetry(fixed(0.7), { kind: "status", status: 429, retryAfterMs: 90_000 }, 3), { retry: true, waitMs: 90_000 });
  assert.deepEqual(decideRetry(fixed(0), { kind: "status", status: 503, retryAfterMs: 0 }, 1), { retry: true, waitMs: 0 });
});

test("connection errors, timeouts and truncated bodies retry; GraphQL errors and aborts do not", () => {
  const p = fixed(0);
  for (const kind of ["network", "timeout", "truncated"] as const) {
    assert.deepEqual(decideRetry(p, { kind }, 2), { retry: true, waitMs: 4000 }, kind);
  }
  for (const f of [{ kind: "graphql" }, { kind: "aborted" }] as AttemptFailure[]) assert.equal(decideRetry(p, f, 1).retry, false, f.kind);
});

test("after `retries` retries the next failure gives up", () => {
  const p = resolveRetryPolicy({ retries: 2, random: () => 0 });
  assert.equal(decideRetry(p, { kind: "network" }, 2).retry, true, "second failure: retry 2 of 2");
  const d = decideRetry(p, { kind: "network" }, 3);
  assert.deepEqual(d, { retry: false, reason: "gave up after 2 retries" });
});

test("invalid policy values are refused", () => {
  assert.throws(() => resolveRetryPolicy({ retries: -1 }), /^Error: invalid retries: -1$/);
  assert.throws(() => resolveRetryPolicy({ timeoutMs: NaN }), /^Error: invalid timeoutMs: NaN$/);
});

test("abortableSleep rejects with the caller's reason", async () => {
  const c = new AbortController();
  const p = abortableSleep(60_000, c.signal);
  c.abort(new Error("stop"));
  await assert.rejects(p, /stop/);
});

const headers = (h: Record<string, string>) => new Headers(h);

test("RateLimit-Reset (W&B's limits doc) is read as seconds; nonsense is ignored", () => {
  assert.equal(parseRateLimitReset("7"), 7000);
  assert.equal(parseRateLimitReset(" 1.5 "), 1500);
  assert.equal(parseRateLimitReset(null), null);
  assert.equal(parseRateLimitReset("-3"), null);
  assert.equal(parseRateLimitReset("soon"), null);
});

test("a failed response's wait: Retry-After first, else RateLimit-Reset, else none (computed back-off)", () => {
  assert.equal(rateLimitWaitMs(headers({ "Retry-After": "2", "RateLimit-Reset": "9" }), 0), 2000);
  assert.equal(rateLimitWaitMs(headers({ "RateLimit-Remaining": "0", "RateLimit-Reset": "9" }), 0), 9000);
  assert.equal(rateLimitWaitMs(headers({ "Retry-After": "later", "RateLimit-Reset": "4" }), 0), 4000);
  assert.equal(rateLimitWaitMs(headers({}), 0), null);
  const policy = fixed(0);
  const waitMs = rateLimitWaitMs(headers({ "RateLimit-Reset": "9" }), 0);
  assert.deepEqual(decideRetry(policy, { kind: "status", status: 429, retryAfterMs: waitMs }, 1), { retry: true, waitMs: 9000 });
});

test("after a success with RateLimit-Remaining 0 the next request waits RateLimit-Reset (capped at maxWaitMs); not otherwise", () => {
  const policy = fixed(0);
  assert.equal(rateLimitPauseMs(policy, headers({ "RateLimit-Remaining": "0", "RateLimit-Reset": "3" })), 3000);
  assert.equal(rateLimitPauseMs(policy, headers({ "RateLimit-Remaining": "0", "RateLimit-Reset": "600" })), 60_000);
  assert.equal(rateLimitPauseMs(policy, headers({ "RateLimit-Remaining": "5", "RateLimit-Reset": "3" })), 0);
  assert.equal(rateLimitPauseMs(policy, headers({ "RateLimit-Remaining": "0" })), 0);
  assert.equal(rateLimitPauseMs(policy, headers({})), 0);
});
