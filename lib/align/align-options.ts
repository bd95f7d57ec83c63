/** Options of the aligner (its own module: both aligners and the dispatcher read them). */
import type { AxisRecord, Reporter, UpdateRecord } from "../types";
import type { InferAxisMappingOptions } from "./slime/infer-axis-mapping";
import type { AlignMemo } from "./pass-memo";

/** Options of {@link alignRuns}. */
export interface AlignRunsOptions {
  /** Receives progress per run, info lines (flags, N per run, critic rows, superseded records) and one warning when there are issues. Default: none. */
  reporter?: Reporter;
  /** Force N (updates per rollout batch) for every run or per run id instead of inferring it. Default: inferred per run. */
  n?: InferAxisMappingOptions["n"];
  /** Force how rollout/step was logged, for every run or per run id (see InferAxisMappingOptions). Default: decided from the data. */
  alwaysUseTrainStep?: InferAxisMappingOptions["alwaysUseTrainStep"];
  /** Framework profile name (lib/registry/profiles.ts). Default: detected from the runs' keys. */
  profile?: string;
  /**
   * Record values as compact views (lib/values/compact-values.ts): read like plain objects, 8 bytes
   * per value outside the JS heap. Default false: plain objects.
   */
  compact?: boolean;
  /**
   * Empty each run's `rows` once its records are built (slime runs one by one, step-profile runs once
   * all are aligned), for a caller that keeps only the
   * alignment (writeExports): the archive's rows and the records then never coexist whole, which at
   * 10^6 updates is most of the peak memory. Default false: the runs are left as given.
   */
  releaseRows?: boolean;
  /**
   * What earlier alignments of the same runs built (rows' values, merged rollout records), reused where a run's rows are
   * the same objects at the same positions: a caller that aligns growing runs again and again (a
   * follow, lib/follow/live-archive.ts) keeps one and passes it each time. Same records as without.
   */
  memo?: AlignMemo;
  /**
   * Told each run's records as soon as they are final, by an aligner that makes them run by run (the
   * batch-updates aligner; the step aligner makes all at once and tells nothing): a caller may read
   * them while the next run aligns (writeExports prints them), never change them. Default: none.
   */
  onRunRecords?: (run: RunRecords) => void;
}

/** One run's final records: the records lists as they stand, and where the run's begin in each (they end at its length). */
export interface RunRecords {
  runId: string;
  updates: readonly UpdateRecord[];
  updatesFrom: number;
  rollouts: readonly AxisRecord[];
  rolloutsFrom: number;
}
