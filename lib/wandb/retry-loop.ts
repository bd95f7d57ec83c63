/**
 * The retry loop both W&B requests run (GraphQL, parquet download): one attempt at a time with the
 * policy's time limit, the decision from retry-policy.ts, one note per retry, and the caller's abort
 * honoured before each attempt and while waiting. What an attempt is and how its failure reads stay
 * with each request.
 */
import type { WandbConnection } from "./connection";
import { decideRetry, rateLimitWaitMs, type AttemptFailure } from "./retry-policy";
import type { WandbError } from "./wandb-error";

/** Why one attempt failed, as the final error and the retry note word it. */
export interface AttemptFailed {
  ok: false;
  failure: AttemptFailure;
  /** What failed. */
  what: string;
  /** HTTP status when one came back. */
  status: number | null;
  cause?: unknown;
}

/** One attempt's outcome: its value, or why it failed (a thrown WandbError is final, never retried). */
export type AttemptOutcome<T> = { ok: true; value: T } | AttemptFailed;

/** How a request words its errors and retry notes. */
export interface RetryWording {
  /** The request's error: attempt, status, detail and cause. */
  fail(attempt: number, status: number | null, detail: string, cause?: unknown): WandbError;
  /** The note before a retry (the loop adds "; retry i of n in s s"). */
  note(failed: AttemptFailed): string;
}

/**
 * Runs `attempt` until it succeeds, fails in a way the policy does not retry, or the caller aborts.
 * Each attempt gets a signal that fires on the caller's abort or its time limit, and that time limit
 * alone (to tell a timeout from an abort).
 */
export async function withRetries<T>(
  conn: WandbConnection,
  wording: RetryWording,
  attempt: (n: number, signal: AbortSignal, timeout: AbortSignal) => Promise<AttemptOutcome<T>>,
  signal?: AbortSignal,
): Promise<T> {
  for (let n = 1; ; n++) {
    if (signal?.aborted) throw wording.fail(n - 1, null, "aborted by the caller", signal.reason);
    const timeout = AbortSignal.timeout(conn.policy.timeoutMs);
    const out = await attempt(n, signal ? AbortSignal.any([signal, timeout]) : timeout, timeout);
    if (out.ok === true) return out.value;
    const failed = out as AttemptFailed;
    const decision = decideRetry(conn.policy, failed.failure, n);
    if (decision.retry === false)
      throw wording.fail(n, failed.failure.kind === "status" ? failed.status : null, `${failed.what} (${decision.reason})`, failed.cause);
    conn.reporter.info?.(`${wording.note(failed)}; retry ${n} of ${conn.policy.retries} in ${(decision.waitMs / 1000).toFixed(1)} s`);
    try {
      await conn.policy.sleep(decision.waitMs, signal);
    } catch (e) {
      throw wording.fail(n, failed.status, "aborted by the caller while waiting to retry", e);
    }
  }
}

/** A non-2xx answer as a failure, with the wait its rate-limit headers ask for. */
export function statusFailure(res: Response, conn: WandbConnection): AttemptFailure {
  return { kind: "status", status: res.status, retryAfterMs: rateLimitWaitMs(res.headers, conn.policy.now()) };
}

/**
 * The kind of failure of an attempt that threw, in one order for every request: the caller's abort
 * first, then a body cut short (`truncated`: the request's own test of the error), then the attempt's
 * time limit, else the network.
 */
export function thrownFailureKind(truncated: boolean, signal: AbortSignal | undefined, timeout: AbortSignal): "aborted" | "truncated" | "timeout" | "network" {
  return signal?.aborted ? "aborted" : truncated ? "truncated" : timeout.aborted ? "timeout" : "network";
}
