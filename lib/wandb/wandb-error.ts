/**
 * The one error class of the W&B reader. Its message says what failed and where (operation, run
 * path, HTTP status, attempts, endpoint) and never contains the API key: the request code redacts
 * server text before it reaches here.
 */

/** What a `WandbError` is built from. */
export interface WandbErrorInfo {
  /** GraphQL operation or reader step, e.g. "HistoryPage", "Run", "credentials", "completeness". */
  operation: string;
  /** `entity/project/runId`, or null when the failure is not about one run. */
  runPath?: string | null;
  /** HTTP status of the last attempt, null when there was no response. */
  status?: number | null;
  /** Attempts made (1 = no retry), 0 when no request was sent. */
  attempt?: number;
  /** Total attempts allowed (1 + retries), shown as "attempt 3 of 21". */
  maxAttempts?: number;
  /** Endpoint, e.g. "POST https://api.wandb.ai/graphql" (never holds credentials). */
  endpoint?: string | null;
  /** What went wrong, in words. */
  detail: string;
  cause?: unknown;
}

/** Failure of the W&B reader: transport, protocol, credentials or completeness. */
export class WandbError extends Error {
  /** GraphQL operation or reader step that failed. */
  readonly operation: string;
  /** `entity/project/runId` or null. */
  readonly runPath: string | null;
  /** HTTP status of the last attempt or null. */
  readonly status: number | null;
  /** Attempts made. */
  readonly attempt: number;

  constructor(info: WandbErrorInfo) {
    super(formatWandbError(info), info.cause === undefined ? undefined : { cause: info.cause });
    this.name = "WandbError";
    this.operation = info.operation;
    this.runPath = info.runPath ?? null;
    this.status = info.status ?? null;
    this.attempt = info.attempt ?? 0;
  }
}

/** Message of a `WandbError`: `W&B <op> of <run> failed: HTTP <s>, attempt a of m: <detail> (<endpoint>)`. */
export function formatWandbError(info: WandbErrorInfo): string {
  const where = info.runPath ? ` of ${info.runPath}` : "";
  const facts: string[] = [];
  if (info.status !== undefined && info.status !== null) facts.push(`HTTP ${info.status}`);
  if (info.attempt) facts.push(info.maxAttempts ? `attempt ${info.attempt} of ${info.maxAttempts}` : `attempt ${info.attempt}`);
  const factText = facts.length ? ` (${facts.join(", ")})` : "";
  const endpoint = info.endpoint ? ` [${info.endpoint}]` : "";
  return `W&B ${info.operation}${where} failed${factText}: ${info.detail}${endpoint}`;
}
