/** The clock of `fetchedAt` stamps: injectable, and fixed by SOURCE_DATE_EPOCH for reproducible archives. */

/**
 * Clock to stamp an archive with: the caller's `now` if given, else a fixed clock at
 * `SOURCE_DATE_EPOCH` (seconds) if that is set, else the wall clock.
 */
export function resolveClock(now?: () => Date, env: NodeJS.ProcessEnv = process.env): () => Date {
  if (now) return now;
  const epoch = env.SOURCE_DATE_EPOCH;
  if (epoch !== undefined && epoch !== "") {
    if (!/^\d+$/.test(epoch.trim())) throw new Error(`invalid SOURCE_DATE_EPOCH: ${epoch}`);
    const fixed = Number(epoch.trim()) * 1000;
    return () => new Date(fixed);
  }
  return () => new Date();
}
