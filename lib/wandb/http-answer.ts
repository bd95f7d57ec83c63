/**
 * What every request of the reader does with an answer before reading it: a redirect is refused, not
 * followed (it would send the request, and with GraphQL the key, to a host nobody configured), and a
 * body is read up to a limit, never further. Shared by the GraphQL request and the export download.
 */
import { BodyTooLarge, readBodyCapped } from "./read-body-capped";
import type { WandbError } from "./wandb-error";

/** Builds the final error of an attempt (the caller's wording: operation, endpoint, redaction). */
export type AttemptFail = (attempt: number, status: number | null, detail: string, cause?: unknown) => WandbError;

/** Throws when the answer is a redirect: `shown` prints its Location safely, `rest` says what follows from refusing it. */
export async function refuseRedirect(res: Response, attempt: number, fail: AttemptFail, shown: (location: string) => string, rest: string): Promise<void> {
  const status = res.status;
  if (status < 300 || status >= 400) return;
  await res.body?.cancel().catch(() => undefined);
  const location = res.headers.get("location");
  throw fail(attempt, status, `server answered with a redirect to ${location === null ? "(no Location header)" : shown(location)}; ${rest}`);
}

/** The body up to `limit` bytes; over it, the final error `tooLarge(message)` says (never retried). */
export async function readBodyOrFail(
  res: Response,
  limit: number,
  attempt: number,
  fail: AttemptFail,
  tooLarge: (message: string) => string,
): Promise<Uint8Array> {
  try {
    return await readBodyCapped(res, limit);
  } catch (e) {
    if (e instanceof BodyTooLarge) throw fail(attempt, res.status, tooLarge(e.message));
    throw e;
  }
}
