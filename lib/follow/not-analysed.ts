/**
 * The warnings of a follow whose analysis (or HTML report) fails: each reason is said in full once,
 * and a later snapshot failing for the same reason gets a short line pointing back to the snapshot
 * that said it (a run with no key of any profile yet fails the same way at every poll; its paragraph
 * once is enough). A different reason is said in full, and so is a failure after a success. Held for
 * the follow's lifetime only: a restarted follow says the reason in full again.
 */

/** The last reason said in full since the last analysed snapshot, and at which snapshot. */
interface Said {
  reason: string;
  snapshot: number;
}

/**
 * The "not analysed" lines of one follow, each said in full only when it says something new.
 * @example
 * const w = new NotAnalysedWarnings();
 * w.failed(5, "no profile"); // "snapshot 5: not analysed (no profile); the next snapshot is analysed again"
 * w.failed(7, "no profile"); // "snapshot 7: not analysed, same reason as snapshot 5"
 */
export class NotAnalysedWarnings {
  private said: Said | null = null;

  /**
   * @param what what did not happen to the snapshot ("not analysed"; "HTML report not rebuilt")
   * @param then what follows, said with the full reason
   */
  constructor(
    private readonly what = "not analysed",
    private readonly then = "the next snapshot is analysed again",
  ) {}

  /** The warning for snapshot `snapshot` failing because of `reason` (an error message). */
  failed(snapshot: number, reason: string): string {
    if (this.said !== null && this.said.reason === reason) return `snapshot ${snapshot}: ${this.what}, same reason as snapshot ${this.said.snapshot}`;
    this.said = { reason, snapshot };
    return `snapshot ${snapshot}: ${this.what} (${reason}); ${this.then}`;
  }

  /** A snapshot was analysed (or its report rebuilt): the next failure is said in full, whatever its reason. */
  analysed(): void {
    this.said = null;
  }
}
