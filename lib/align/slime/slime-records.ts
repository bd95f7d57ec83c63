/** The shapes slime alignment passes between its steps. Internal to lib/align/slime. */
import type { AlignmentNote, CoverageIssue, EvalRecord, KeyRows, AxisRecord, RunAxis, UpdateRecord } from "../../types";
import { ValuesArena } from "../../values/compact-values";
import { ValuesBuilder } from "../../values/values-builder";
import type { RunScan } from "./scan-runs";
import type { Restart } from "./supersede";

/** Per run: the rollout id of each row and which run's logging replaced it (LIVE when none). */
export interface RunRows {
  scan: RunScan;
  axis: RunAxis;
  rollouts: Float64Array;
  by: Int32Array;
  restarts: Restart[];
}

/** What slime alignment collects over its runs: records, issues, notes, and the values builders they share. */
export class SlimeRecords {
  readonly updates: UpdateRecord[] = [];
  readonly rollouts: AxisRecord[] = [];
  readonly evals: EvalRecord[] = [];
  readonly issues: CoverageIssue[] = [];
  readonly notes: AlignmentNote[] = [];
  /** Per run: rollout ids for which no updates are expected (critic-only, a trailing manager-only rollout). */
  readonly noUpdatesExpected: Set<number>[] = [];
  readonly criticOnly: UpdateRecord[] = [];
  readonly keyRows: KeyRows[] = [];
  // One builder per record kind: consecutive records of a kind mostly share their key sequence.
  // Shared chunks: the CSV worker formats records straight from them (lib/export/csv-worker.ts).
  readonly updateValues: ValuesBuilder;
  readonly rolloutValues: ValuesBuilder;
  readonly evalValues: ValuesBuilder;

  constructor(compact: boolean) {
    const arena = compact ? new ValuesArena({ shared: true }) : null;
    this.updateValues = new ValuesBuilder(arena);
    this.rolloutValues = new ValuesBuilder(arena);
    this.evalValues = new ValuesBuilder(arena);
  }
}
