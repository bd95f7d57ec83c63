/**
 * The retry policy of the W&B reader, written as data in one place (ofetch style). It copies the
 * current official Python client: up to 20 retries, 30 s per attempt, exponential back-off with
 * jitter capped at 60 s, a valid Retry-After header used as given, else W&B's `RateLimit-Reset` (and a
 * pause before the next request when `RateLimit-Remaining` is 0). Analysis code never retries.
 */

/** HTTP statuses that are never retried: repeating the same request cannot succeed. */
export const NO_RETRY_STATUS: ReadonlyMap<number, string> = new Map([
  [400, "bad request: the query or its variables are wrong"],
  [401, "unauthorized: the API key is wrong or missing"],
  [403, "forbidden: the key has no access to this entity/project"],
  [404, "not found: wrong base URL, entity, project or run"],
  [409, "conflict: the server refuses this request as stated"],
  [410, "gone: the resource was deleted"],
  [413, "payload too large: a smaller page size is needed"],
  [422, "unprocessable: the server rejects the request content"],
  [501, "not implemented: this server does not offer the operation"],
]);
// Everything else is retried: 429 (rate limit, W&B issue #7778), 408 and other 4xx the list above
// does not name, every 5xx but 501 (#8291: huge pages gave 500), connection errors, per-attempt
// timeouts, and truncated bodies (a 200 whose JSON does not parse: the connection broke mid-body).

/** Why one attempt failed, as the retry decision sees it. */
export type AttemptFailure =
  | { kind: "status"; status: number; retryAfterMs: number | null }
  | { kind: "graphql" }
  | { kind: "network" }
  | { kind: "timeout" }
  | { kind: "truncated" }
  | { kind: "aborted" };

/** Retry policy; every field can be overridden (tests use tiny waits and a recording `sleep`). */
export interface RetryPolicy {
  /** Retries after the first attempt (official client: 20). */
  retries: number;
  /** Time limit of one attempt, headers and body, in ms (official: 30 s). */
  timeoutMs: number;
  /** First back-off in ms before jitter (official: 2 s, doubled per retry). */
  baseWaitMs: number;
  /** Upper bound of a computed back-off in ms (official: 60 s); Retry-After is not capped. */
  maxWaitMs: number;
  /** Jitter factor: wait *= 1 + jitter * random() (official: 0.25). */
  jitter: number;
  /** Statuses never retried. */
  noRetryStatus: ReadonlySet<number>;
  /** Uniform [0, 1) source for jitter. */
  random: () => number;
  /** Wall clock in ms, to turn a Retry-After date into a wait. */
  now: () => number;
  /** Waits `ms`; rejects when `signal` aborts. */
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** Sleep that rejects with the signal's reason when the caller aborts. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** The official client's policy. */
export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = Object.freeze({
  retries: 20,
  timeoutMs: 30_000,
  baseWaitMs: 2_000,
  maxWaitMs: 60_000,
  jitter: 0.25,
  noRetryStatus: new Set(NO_RETRY_STATUS.keys()),
  random: Math.random,
  now: Date.now,
  sleep: abortableSleep,
});

/** Full policy from partial overrides; throws `invalid retry policy <field>: <value>` on nonsense. */
export function resolveRetryPolicy(overrides: Partial<RetryPolicy> = {}): RetryPolicy {
  const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, ...overrides };
  if (!Number.isInteger(policy.retries) || policy.retries < 0) throw new Error(`invalid retries: ${policy.retries}`);
  for (const field of ["timeoutMs", "baseWaitMs", "maxWaitMs", "jitter"] as const) {
    const v = policy[field];
    if (!(typeof v === "number" && v >= 0 && Number.isFinite(v))) throw new Error(`invalid ${field}: ${v}`);
  }
  return policy;
}

/** Computed back-off before retry number `retryIndex` (0 = first retry): min(max, base * 2^i * (1 + jitter * rand)). */
export function backoffMs(policy: RetryPolicy, retryIndex: number): number {
  return Math.min(policy.maxWaitMs, policy.baseWaitMs * 2 ** retryIndex * (1 + policy.jitter * policy.random()));
}

const DELAY_SECONDS = /^\s*(\d+)\s*$/;

/**
 * Wait in ms asked for by a Retry-After header (RFC 9110: delay seconds or an HTTP date), or null
 * when absent or invalid. A date in the past means "now" (0).
 */
export function parseRetryAfter(header: string | null | undefined, nowMs: number): number | null {
  if (header === null || header === undefined) return null;
  const seconds = DELAY_SECONDS.exec(header);
  if (seconds) return Number(seconds[1]) * 1000;
  // An HTTP date always has a weekday or month name; Date.parse alone would accept "1.5".
  if (!/[A-Za-z]{3}/.test(header) || !/\d{1,2}:\d{2}:\d{2}/.test(header)) return null;
  const at = Date.parse(header);
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - nowMs);
}

/** Headers a wait can be read from (a fetch `Headers` object fits). */
export interface HeaderSource {
  get(name: string): string | null;
}

/**
 * Seconds of a `RateLimit-Reset` header (W&B's limits doc: wait this long on 429 or when
 * `RateLimit-Remaining` is 0) as ms, or null when absent or not a non-negative number.
 */
export function parseRateLimitReset(header: string | null | undefined): number | null {
  if (header === null || header === undefined) return null;
  const m = /^\s*(\d+(?:\.\d+)?)\s*$/.exec(header);
  return m ? Math.ceil(Number(m[1]) * 1000) : null;
}

/**
 * Wait in ms a failed response asks for: a valid Retry-After as given, else `RateLimit-Reset`
 * (W&B sends it with 429 and with `RateLimit-Remaining: 0`), else null (computed back-off).
 */
export function rateLimitWaitMs(headers: HeaderSource, nowMs: number): number | null {
  const retryAfter = parseRetryAfter(headers.get("retry-after"), nowMs);
  if (retryAfter !== null) return retryAfter;
  return parseRateLimitReset(headers.get("ratelimit-reset"));
}

/**
 * Pause in ms before the NEXT request after a successful response that says the quota is used up
 * (`RateLimit-Remaining: 0` with a `RateLimit-Reset`), capped at the policy's `maxWaitMs`; 0 otherwise.
 */
export function rateLimitPauseMs(policy: RetryPolicy, headers: HeaderSource): number {
  const remaining = headers.get("ratelimit-remaining");
  if (remaining === null || Number(remaining.trim()) !== 0) return 0;
  const reset = parseRateLimitReset(headers.get("ratelimit-reset"));
  return reset === null ? 0 : Math.min(reset, policy.maxWaitMs);
}

/** Retry decision for a failed attempt: wait `waitMs` and retry, or give up now. */
export type RetryDecision = { retry: true; waitMs: number } | { retry: false; reason: string };

/**
 * Decides whether the attempt after `failedAttempt` failures (1 = the first attempt failed) is
 * made. A caller's abort and GraphQL errors are never retried; neither are NO_RETRY statuses.
 */
export function decideRetry(policy: RetryPolicy, failure: AttemptFailure, failedAttempt: number): RetryDecision {
  if (failure.kind === "aborted") return { retry: false, reason: "aborted by the caller" };
  if (failure.kind === "graphql") return { retry: false, reason: "GraphQL errors are not retried" };
  if (failure.kind === "status" && policy.noRetryStatus.has(failure.status)) {
    return { retry: false, reason: NO_RETRY_STATUS.get(failure.status) ?? `HTTP ${failure.status} is not retried` };
  }
  if (failedAttempt > policy.retries) return { retry: false, reason: `gave up after ${policy.retries} retries` };
  if (failure.kind === "status" && failure.retryAfterMs !== null) return { retry: true, waitMs: failure.retryAfterMs };
  return { retry: true, waitMs: backoffMs(policy, failedAttempt - 1) };
}
