/**
 * Downloads one exported parquet file from its signed URL. The URL points at another host (cloud
 * storage) and carries its own signature: the API key is never sent there (no Authorization header,
 * whatever the host), redirects are refused, the body is read up to `maxExportFileBytes`, and the
 * query string (the signature) never appears in a message. Transient failures are retried with the
 * connection's policy; an expired or refused URL (403) is reported as `ExpiredExportUrl`, so that the
 * caller asks the API for fresh URLs.
 */
import type { WandbConnection } from "./connection";
import { type AttemptOutcome, statusFailure, thrownFailureKind, withRetries } from "./retry-loop";
import { USER_AGENT } from "./version";
import { WandbError } from "./wandb-error";
import { type AttemptFail, readBodyOrFail, refuseRedirect } from "./http-answer";

/** Thrown when the signed URL was refused with 403 (expired or revoked): ask for new URLs. */
export class ExpiredExportUrl extends Error {
  constructor(readonly where: string) {
    super(`signed URL of ${where} was refused (HTTP 403: expired or revoked)`);
    this.name = "ExpiredExportUrl";
  }
}

/** `host/path` of a signed URL, without the query string that holds the signature. */
export function describeExportUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return "(not a URL)";
  }
}

/** Parquet files start and end with the magic bytes "PAR1"; anything else is cut or not Parquet. */
export function isWholeParquet(bytes: Uint8Array): boolean {
  const n = bytes.byteLength;
  const magic = (at: number) => bytes[at] === 0x50 && bytes[at + 1] === 0x41 && bytes[at + 2] === 0x52 && bytes[at + 3] === 0x31;
  return n >= 12 && magic(0) && magic(n - 4);
}

class NotParquet extends Error {}

/** What a download is about, for messages: run path and "file 2 of 3". */
export interface ExportFileRef {
  runPath: string;
  index: number;
  count: number;
}

/** Downloads the file at `url` (see the module doc); throws `ExpiredExportUrl` on 403, else `WandbError`. */
export async function downloadExportFile(conn: WandbConnection, url: string, ref: ExportFileRef, signal?: AbortSignal): Promise<Uint8Array> {
  const where = `exported file ${ref.index + 1} of ${ref.count}`;
  const maxAttempts = conn.policy.retries + 1;
  const fail: AttemptFail = (attempt, status, detail, cause) =>
    new WandbError({
      operation: "parquet download",
      runPath: ref.runPath,
      status,
      attempt,
      maxAttempts,
      endpoint: `GET ${describeExportUrl(url)}`,
      detail: `${where}: ${detail}`,
      cause,
    });
  const wording = { fail, note: (out: { what: string }) => `W&B parquet download of ${ref.runPath}: ${where}: ${out.what}` };
  return withRetries(conn, wording, (attempt, combined, timeout) => downloadAttempt({ conn, url, where, fail, signal }, attempt, combined, timeout), signal);
}

/** What every attempt of one download shares. */
interface Download {
  conn: WandbConnection;
  url: string;
  where: string;
  fail: AttemptFail;
  signal: AbortSignal | undefined;
}

/** One attempt: the whole Parquet file, or what failed (retried or not as the loop decides). */
async function downloadAttempt(d: Download, attempt: number, combined: AbortSignal, timeout: AbortSignal): Promise<AttemptOutcome<Uint8Array>> {
  const { conn, fail } = d;
  let status: number | null = null;
  try {
    // No Authorization header at all: the signature in the URL is the credential.
    const res = await conn.fetch(d.url, { method: "GET", headers: { "User-Agent": USER_AGENT }, signal: combined, redirect: "manual" });
    status = res.status;
    await refuseRedirect(res, attempt, fail, describeExportUrl, "redirects are not followed");
    if (status === 403) {
      await res.body?.cancel().catch(() => undefined);
      throw new ExpiredExportUrl(d.where);
    }
    if (res.ok) {
      const limit = conn.limits.maxExportFileBytes;
      const bytes = await readBodyOrFail(res, limit, attempt, fail, (m) => `file is over the limit of ${limit} bytes (maxExportFileBytes; ${m})`);
      if (!isWholeParquet(bytes)) throw new NotParquet(`${bytes.byteLength} bytes without the Parquet magic at both ends`);
      return { ok: true, value: bytes };
    }
    const text = await res.text().catch(() => "");
    return {
      ok: false,
      failure: statusFailure(res, conn),
      status,
      what: `server answered: ${text.replace(/\s+/g, " ").trim().slice(0, 200) || "(empty body)"}`,
    };
  } catch (e) {
    if (e instanceof WandbError || e instanceof ExpiredExportUrl) throw e;
    const kind = thrownFailureKind(e instanceof NotParquet, d.signal, timeout);
    if (kind === "aborted") return { ok: false, failure: { kind }, status, what: "aborted by the caller" };
    const what = `${kind === "truncated" ? "body is not a whole Parquet file" : "download failed"}: ${(e as Error).message}`;
    return { ok: false, failure: { kind }, status, what };
  }
}
