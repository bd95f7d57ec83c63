/**
 * One GraphQL request to `POST {base}/graphql` with the retry policy applied. The only place that
 * touches the network. Server text is redacted of the API key before it reaches an error message.
 * Redirects are not followed (the key goes to the configured host only, and data comes only from
 * it), and a response body is read up to `maxResponseBytes`, never further.
 */
import type { WandbConnection } from "./connection";
import { decideRetry, rateLimitPauseMs, rateLimitWaitMs, type AttemptFailure } from "./retry-policy";
import { USER_AGENT } from "./version";
import { WandbError } from "./wandb-error";
import { BodyTooLarge, readBodyCapped } from "./read-body-capped";

/** A GraphQL operation of the reader. */
export interface GraphqlOperation {
  operationName: string;
  query: string;
  variables: Record<string, unknown>;
  /** `entity/project/runId` for error messages, or null. */
  runPath: string | null;
  /** What of the run is asked for, e.g. "steps [0, 1000)", for error messages. */
  where?: string;
}

/** Replaces the API key (and its Basic-auth encoding) in text that came from outside. */
export function redactKey(text: string, apiKey: string): string {
  if (!apiKey) return text;
  const basic = Buffer.from(`api:${apiKey}`).toString("base64");
  return text.split(apiKey).join("<redacted>").split(basic).join("<redacted>");
}

function snippet(text: string, apiKey: string, max = 300): string {
  const oneLine = redactKey(text, apiKey).replace(/\s+/g, " ").trim();
  return oneLine.length > max ? `${oneLine.slice(0, max)}...` : oneLine;
}

function describeFailure(f: AttemptFailure, detail: string): string {
  switch (f.kind) {
    case "status":
      return detail ? `server answered: ${detail}` : "server answered with an empty body";
    case "network":
      return `connection failed: ${detail}`;
    case "timeout":
      return `no complete answer within the attempt time limit (${detail})`;
    case "truncated":
      return `response body is not complete JSON: ${detail}`;
    default:
      return detail;
  }
}

/** Internal marker: a 200 whose body is not complete JSON. */
class TruncatedBody extends Error {}

function graphqlMessages(errors: unknown[]): string {
  return errors.map((x) => (x && typeof (x as { message?: unknown }).message === "string" ? (x as { message: string }).message : JSON.stringify(x))).join("; ");
}

function errorText(e: unknown): string {
  if (e instanceof Error) {
    const cause = (e as { cause?: unknown }).cause;
    const causeText = cause instanceof Error ? `: ${cause.message}` : "";
    return `${e.message}${causeText}`;
  }
  return String(e);
}

/**
 * Sends one GraphQL operation and returns its `data`, retrying as the connection's policy says.
 * Throws `WandbError` on GraphQL errors (not retried), non-retried statuses, exhausted retries and
 * caller aborts.
 */
export async function graphqlRequest<T>(conn: WandbConnection, op: GraphqlOperation, signal?: AbortSignal): Promise<T> {
  const url = `${conn.baseUrl}/graphql`;
  const endpoint = `POST ${url}`;
  const maxAttempts = conn.policy.retries + 1;
  const body = JSON.stringify({ query: op.query, variables: op.variables, operationName: op.operationName });
  const headers = {
    "Content-Type": "application/json",
    Accept: "application/json",
    Authorization: `Basic ${Buffer.from(`api:${conn.apiKey}`).toString("base64")}`,
    "User-Agent": USER_AGENT,
  };
  const where = op.where ? `${op.where}: ` : "";
  const fail = (attempt: number, status: number | null, detail: string, cause?: unknown) =>
    new WandbError({
      operation: op.operationName,
      runPath: op.runPath,
      status,
      attempt,
      maxAttempts,
      endpoint,
      detail: redactKey(where + detail, conn.apiKey),
      cause,
    });

  for (let attempt = 1; ; attempt++) {
    if (signal?.aborted) throw fail(attempt - 1, null, "aborted by the caller", signal.reason);
    const timeout = AbortSignal.timeout(conn.policy.timeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
    let failure: AttemptFailure;
    let detail: string;
    let status: number | null = null;
    let cause: unknown;
    try {
      // "manual": a redirect is refused, not followed. Following re-sends the request (with the key
      // when same-origin) to a server nobody configured, and its answer would pass for the base URL's.
      const res = await conn.fetch(url, { method: "POST", headers, body, signal: combined, redirect: "manual" });
      status = res.status;
      if (status >= 300 && status < 400) {
        await res.body?.cancel().catch(() => undefined);
        const location = res.headers.get("location");
        throw fail(
          attempt,
          status,
          `server answered with a redirect to ${location === null ? "(no Location header)" : snippet(location, conn.apiKey)}; redirects are not followed, so the API key is sent only to ${new URL(url).host}: set WANDB_BASE_URL (baseUrl) to the server itself if it is the one you mean`,
        );
      }
      let text: string;
      try {
        const body = await readBodyCapped(res, conn.limits.maxResponseBytes);
        text = Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString("utf8"); // a view, no copy
      } catch (e) {
        if (!(e instanceof BodyTooLarge)) throw e;
        throw fail(
          attempt,
          status,
          `response body is over the limit of ${conn.limits.maxResponseBytes} bytes (maxResponseBytes; ${e.message}); not retried: a smaller pageSize gives smaller history pages`,
        );
      }
      if (res.ok) {
        let parsed: { data?: T | null; errors?: unknown[] };
        try {
          parsed = JSON.parse(text);
        } catch (e) {
          // A 200 whose body does not parse: the connection broke mid-body. Retried.
          throw new TruncatedBody(`${(e as Error).message} after ${text.length} characters`, { cause: e });
        }
        if (Array.isArray(parsed.errors) && parsed.errors.length > 0) {
          throw fail(attempt, status, `GraphQL error: ${snippet(graphqlMessages(parsed.errors), conn.apiKey)} (GraphQL errors are not retried)`);
        }
        if (parsed.data === undefined || parsed.data === null) throw fail(attempt, status, "response has neither data nor errors");
        // Quota used up (RateLimit-Remaining: 0): wait for its reset before the caller's next request.
        const pause = rateLimitPauseMs(conn.policy, res.headers);
        if (pause > 0) {
          conn.reporter.info?.(
            `W&B ${op.operationName}: rate limit reached (RateLimit-Remaining: 0); waiting ${(pause / 1000).toFixed(1)} s (RateLimit-Reset)`,
          );
          try {
            await conn.policy.sleep(pause, signal);
          } catch (e) {
            throw fail(attempt, status, "aborted by the caller while waiting for the rate limit to reset", e);
          }
        }
        return parsed.data;
      }
      failure = { kind: "status", status: res.status, retryAfterMs: rateLimitWaitMs(res.headers, conn.policy.now()) };
      detail = snippet(text, conn.apiKey);
    } catch (e) {
      if (e instanceof WandbError) throw e;
      if (signal?.aborted) {
        failure = { kind: "aborted" };
        detail = "aborted by the caller";
        cause = signal.reason;
      } else if (e instanceof TruncatedBody) {
        failure = { kind: "truncated" };
        detail = e.message;
        cause = e.cause;
      } else if (timeout.aborted) {
        failure = { kind: "timeout" };
        detail = `${conn.policy.timeoutMs} ms`;
        cause = e;
      } else {
        failure = { kind: "network" };
        detail = errorText(e);
        cause = e;
      }
    }
    const decision = decideRetry(conn.policy, failure, attempt);
    const what = describeFailure(failure, detail);
    if (decision.retry === false) throw fail(attempt, failure.kind === "status" ? status : null, `${what} (${decision.reason})`, cause);
    const of = op.runPath ? ` of ${op.runPath}` : "";
    const statusText = failure.kind === "status" ? `HTTP ${failure.status}, ` : "";
    conn.reporter.info?.(
      `W&B ${op.operationName}${of}: ${where}${statusText}${redactKey(what, conn.apiKey)}; retry ${attempt} of ${conn.policy.retries} in ${(decision.waitMs / 1000).toFixed(1)} s`,
    );
    try {
      await conn.policy.sleep(decision.waitMs, signal);
    } catch (e) {
      throw fail(attempt, status, "aborted by the caller while waiting to retry", e);
    }
  }
}
