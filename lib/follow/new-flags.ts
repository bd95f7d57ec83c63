/** Which health flags a follow has not printed yet: a flag is new once, however its range grows later. */
import type { HealthFlag } from "../health/health-check";

/** A flag's identity across polls: its check, run, key and where its range starts (the range's end grows as the run goes on). */
function flagId(f: HealthFlag): string {
  return [f.check, f.runId, f.key, f.unit, f.first].join("\u0000");
}

/**
 * Remembers the flags seen so far; `take` returns those it has not seen, in the order given.
 * @example const seen = new FlagsSeen(); seen.take(report.flags) // every flag; then only flags that appeared since
 */
export class FlagsSeen {
  private readonly seen = new Set<string>();

  /** The flags not seen before (and marks them seen). */
  take(flags: readonly HealthFlag[]): HealthFlag[] {
    const out: HealthFlag[] = [];
    for (const f of flags) {
      const id = flagId(f);
      if (this.seen.has(id)) continue;
      this.seen.add(id);
      out.push(f);
    }
    return out;
  }
}
