/**
 * One GraphQL request to `POST {base}/graphql` with the retry policy applied. The only place that
 * touches the network. Server text is redacted of the API key before it reaches an error message.
 * Redirects are not followed (the key goes to the configured host only, and data comes only from
 * it), and a response body is read up to `maxResponseBytes`, never further.
 */
import type { WandbConnection } from "./connection";
import { rateLimitPauseMs, type AttemptFailure } from "./retry-policy";
import { type AttemptFailed, type AttemptOutcome, type RetryWording, statusFailure, thrownFailureKind, withRetries } from "./retry-loop";
import { USER_AGENT } from "./version";
import { WandbError } from "./wandb-error";
import { type AttemptFail, readBodyOrFail, refuseRedirect } from "./http-answer";

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
  const call = new GraphqlCall<T>(conn, op, signal);
  return withRetries(conn, call.wording(), (attempt, combined, timeout) => call.attempt(attempt, combined, timeout), signal);
}

/** One operation's request, the same for every attempt, and how its failures are worded. */
class GraphqlCall<T> {
  private readonly url: string;
  private readonly endpoint: string;
  private readonly maxAttempts: number;
  private readonly body: string;
  private readonly headers: Record<string, string>;
  /** What of the run is asked for, as a message prefix ("" when not said). */
  private readonly where: string;

  constructor(
    private readonly conn: WandbConnection,
    private readonly op: GraphqlOperation,
    private readonly signal: AbortSignal | undefined,
  ) {
    this.url = `${conn.baseUrl}/graphql`;
    this.endpoint = `POST ${this.url}`;
    this.maxAttempts = conn.policy.retries + 1;
    this.body = JSON.stringify({ query: op.query, variables: op.variables, operationName: op.operationName });
    this.headers = {
      "Content-Type": "application/json",
      Accept: "application/json",
      Authorization: `Basic ${Buffer.from(`api:${conn.apiKey}`).toString("base64")}`,
      "User-Agent": USER_AGENT,
    };
    this.where = op.where ? `${op.where}: ` : "";
  }

  /** A final error of attempt `attempt`, the key redacted from its detail. */
  fail(attempt: number, status: number | null, detail: string, cause?: unknown): WandbError {
    const { op, conn } = this;
    return new WandbError({
      operation: op.operationName,
      runPath: op.runPath,
      status,
      attempt,
      maxAttempts: this.maxAttempts,
      endpoint: this.endpoint,
      detail: redactKey(this.where + detail, conn.apiKey),
      cause,
    });
  }

  /** How the retry loop words this operation's failures and retry notes. */
  wording(): RetryWording {
    const { op, conn } = this;
    const of = op.runPath ? ` of ${op.runPath}` : "";
    return {
      fail: (attempt, status, detail, cause) => this.fail(attempt, status, detail, cause),
      note: (f: AttemptFailed) =>
        `W&B ${op.operationName}${of}: ${this.where}${f.failure.kind === "status" ? `HTTP ${f.failure.status}, ` : ""}${redactKey(f.what, conn.apiKey)}`,
    };
  }

  /** One attempt: the answer's data, or what failed (retried or not as the loop decides). */
  async attempt(attempt: number, combined: AbortSignal, timeout: AbortSignal): Promise<AttemptOutcome<T>> {
    const { conn } = this;
    let status: number | null = null;
    try {
      // "manual": a redirect is refused, not followed. Following re-sends the request (with the key
      // when same-origin) to a server nobody configured, and its answer would pass for the base URL's.
      const res = await conn.fetch(this.url, { method: "POST", headers: this.headers, body: this.body, signal: combined, redirect: "manual" });
      status = res.status;
      const text = await this.answerText(res, attempt);
      if (!res.ok) {
        const failure = statusFailure(res, conn);
        return { ok: false, failure, status, what: describeFailure(failure, snippet(text, conn.apiKey)) };
      }
      const data = this.dataOf(text, attempt, status);
      await this.pauseForRateLimit(res, attempt, status);
      return { ok: true, value: data };
    } catch (e) {
      if (e instanceof WandbError) throw e;
      const kind = thrownFailureKind(e instanceof TruncatedBody, this.signal, timeout);
      const [detail, cause]: [string, unknown] =
        kind === "aborted"
          ? ["aborted by the caller", this.signal?.reason]
          : kind === "truncated"
            ? [(e as TruncatedBody).message, (e as TruncatedBody).cause]
            : kind === "timeout"
              ? [`${conn.policy.timeoutMs} ms`, e]
              : [errorText(e), e];
      const failure: AttemptFailure = { kind };
      return { ok: false, failure, status, what: describeFailure(failure, detail), cause };
    }
  }

  /** The body as text: refused with a redirect, or over maxResponseBytes (neither retried). */
  private async answerText(res: Response, attempt: number): Promise<string> {
    const { conn } = this;
    const fail: AttemptFail = (...a) => this.fail(...a);
    await refuseRedirect(
      res,
      attempt,
      fail,
      (location) => snippet(location, conn.apiKey),
      `redirects are not followed, so the API key is sent only to ${new URL(this.url).host}: set WANDB_BASE_URL (baseUrl) to the server itself if it is the one you mean`,
    );
    const limit = conn.limits.maxResponseBytes;
    const bytes = await readBodyOrFail(
      res,
      limit,
      attempt,
      fail,
      (m) => `response body is over the limit of ${limit} bytes (maxResponseBytes; ${m}); not retried: a smaller pageSize gives smaller history pages`,
    );
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8"); // a view, no copy
  }

  /** `data` of a 200 answer; GraphQL errors and an answer without data are final, a cut body is retried. */
  private dataOf(text: string, attempt: number, status: number): T {
    let parsed: { data?: T | null; errors?: unknown[] };
    try {
      parsed = JSON.parse(text);
    } catch (e) {
      // A 200 whose body does not parse: the connection broke mid-body. Retried.
      throw new TruncatedBody(`${(e as Error).message} after ${text.length} characters`, { cause: e });
    }
    if (Array.isArray(parsed.errors) && parsed.errors.length > 0) {
      throw this.fail(attempt, status, `GraphQL error: ${snippet(graphqlMessages(parsed.errors), this.conn.apiKey)} (GraphQL errors are not retried)`);
    }
    if (parsed.data === undefined || parsed.data === null) throw this.fail(attempt, status, "response has neither data nor errors");
    return parsed.data;
  }

  /** Quota used up (RateLimit-Remaining: 0): wait for its reset before the caller's next request. */
  private async pauseForRateLimit(res: Response, attempt: number, status: number): Promise<void> {
    const { conn, op } = this;
    const pause = rateLimitPauseMs(conn.policy, res.headers);
    if (pause <= 0) return;
    conn.reporter.info?.(`W&B ${op.operationName}: rate limit reached (RateLimit-Remaining: 0); waiting ${(pause / 1000).toFixed(1)} s (RateLimit-Reset)`);
    try {
      await conn.policy.sleep(pause, this.signal);
    } catch (e) {
      throw this.fail(attempt, status, "aborted by the caller while waiting for the rate limit to reset", e);
    }
  }
}
