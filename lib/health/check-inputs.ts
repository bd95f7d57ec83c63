/**
 * What several checks derive from the same records, computed once per health report: the two
 * mismatch checks read one series set (reading it was about half of the checks' time at 10^5 rows,
 * bench/RESULTS.md "Follow"), the update-position checks one list of updates.
 */
import { mismatchSeries, type MismatchSeriesSet } from "../diagnostics/mismatch-series";
import { observedUpdates, type ObservedUpdates } from "./observed-updates";
import type { FrameworkProfile } from "../registry/framework-profile";
import type { AlignedRuns } from "../types";

/** Derived inputs of one report's checks, each computed on first use; read only. */
export class CheckInputs {
  private mismatch: MismatchSeriesSet | null = null;
  private observed: ObservedUpdates | null = null;

  constructor(
    readonly aligned: AlignedRuns,
    readonly profile: FrameworkProfile,
  ) {}

  /** The profile's mismatch series of these records (no reporter: checks report through their flags). */
  mismatchSeries(): MismatchSeriesSet {
    this.mismatch ??= mismatchSeries(this.aligned, { profile: this.profile });
    return this.mismatch;
  }

  /** The optimizer updates the update-position checks read, or why there are none (observed-updates.ts). */
  updates(): ObservedUpdates {
    this.observed ??= observedUpdates(this.aligned, this.profile);
    return this.observed;
  }
}
