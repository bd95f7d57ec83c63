/**
 * Input limits of the W&B reader: a server (or a proxy in front of it) that answers with an absurd
 * amount of data gets a clear refusal naming the run, the steps and the limit, not an out-of-memory
 * crash. The defaults sit far above what slime runs log (rows of a few KB, a few hundred keys,
 * 1000-row pages of a few MB).
 */

/** Limits of the reader; every field can be overridden (tests use tiny ones). */
export interface ReaderLimits {
  /** Largest response body, in bytes, read from the server (default 256 MiB). */
  maxResponseBytes: number;
  /** Largest history row, in characters of its JSON text (default 4 Mi). */
  maxRowChars: number;
  /** Most distinct history keys of one run, numeric and dropped ones together (default 100,000). */
  maxKeys: number;
  /** Largest exported parquet file, in bytes, downloaded from a signed URL (default 2 GiB). */
  maxExportFileBytes: number;
}

/** The default limits. */
export const DEFAULT_READER_LIMITS: Readonly<ReaderLimits> = Object.freeze({
  maxResponseBytes: 256 * 1024 * 1024,
  maxRowChars: 4 * 1024 * 1024,
  maxKeys: 100_000,
  maxExportFileBytes: 2 * 1024 * 1024 * 1024,
});

/** Full limits from partial overrides; throws `invalid <field>: <value>` unless a positive integer. */
export function resolveReaderLimits(overrides: Partial<ReaderLimits> = {}): ReaderLimits {
  const limits: ReaderLimits = { ...DEFAULT_READER_LIMITS, ...overrides };
  for (const field of ["maxResponseBytes", "maxRowChars", "maxKeys", "maxExportFileBytes"] as const) {
    const v = limits[field];
    if (!Number.isInteger(v) || v < 1) throw new Error(`invalid ${field}: ${v}`);
  }
  return limits;
}
