/**
 * What one run's pass built, kept for the next alignment of the same run when rows were only
 * appended (a follow's in-memory archive, lib/follow/live-archive.ts): a row's values as a record
 * holds them (slime's update rows, a step profile's step and eval rows) and a slime rollout record's
 * merged values, history steps and issues. A built value is reused only where its
 * inputs are the very same row objects at the same positions (rows are immutable once parsed), so
 * the records are exactly those a fresh pass builds; everything else (axes, superseding, coverage)
 * is decided again over the whole run. Internal to lib/align.
 */
import type { CoverageIssue, HistoryRow } from "../types";
import { isView, keysOf, type Values, ValuesArena } from "../values/compact-values";
import { ValuesBuilder } from "../values/values-builder";

/** A rollout record as merged from its rows. */
interface MergedRollout {
  /** Its rows, by position in the run. */
  rows: Int32Array;
  values: Values;
  historySteps: number[];
  /** What the merge reported (conflicting values, duplicate rows). */
  issues: CoverageIssue[];
}

/** One run's memo: the rows it was built from and what was built. */
export class RunPassMemo {
  /**
   * Compact values kept are copied into the memo's own arena: a view kept from an alignment's arena
   * would keep that arena's whole 2 MB chunk alive, one per poll, for the few new records in it.
   */
  constructor(private readonly keeper: ValuesBuilder) {}

  private rows: readonly HistoryRow[] = [];
  private next: readonly HistoryRow[] = [];
  private values: (Values | undefined)[] = [];
  private rollouts = new Map<number, MergedRollout>();
  private nextRollouts = new Map<number, MergedRollout>();
  /** Values reused by the last pass: rows' values, merged rollout records. */
  reused = { rows: 0, rollouts: 0 };

  /** Starts a pass over `rows`; what the last pass built stays readable where its rows are the same. */
  begin(rows: readonly HistoryRow[]): void {
    this.next = rows;
    this.nextRollouts = new Map();
    this.reused = { rows: 0, rollouts: 0 };
  }

  /** Ends the pass: what it built is what the next pass may reuse. */
  end(): void {
    this.rows = this.next;
    this.rollouts = this.nextRollouts;
    if (this.values.length > this.rows.length) this.values.length = this.rows.length;
  }

  /** Row i's values as a record holds them, built from the same row object last time; else undefined. */
  rowValues(i: number): Values | undefined {
    if (this.rows[i] !== this.next[i] || this.values[i] === undefined) return undefined;
    this.reused.rows++;
    return this.values[i];
  }

  /** Keeps row i's values (compact ones copied into the memo's arena); returns what is kept, for the record. */
  keepRowValues(i: number, values: Values): Values {
    const kept = this.keep(values);
    this.values[i] = kept;
    return kept;
  }

  /** Rollout `id` as merged last time from exactly these rows (same positions, same objects), else undefined. */
  rollout(id: number, rows: Int32Array): MergedRollout | undefined {
    const m = this.rollouts.get(id);
    if (m === undefined || m.rows.length !== rows.length) return undefined;
    for (let k = 0; k < rows.length; k++) {
      // Same positions too (not only the same row objects): superseding may change which rows a record holds.
      const i = rows[k];
      if (m.rows[k] !== i || this.rows[i] !== this.next[i]) return undefined;
    }
    this.reused.rollouts++;
    return m;
  }

  /** Keeps a rollout record as merged (reused: as it was; new: its compact values copied); returns what is kept. */
  keepRollout(id: number, merged: MergedRollout, reused = false): MergedRollout {
    const kept = reused ? merged : { ...merged, values: this.keep(merged.values) };
    this.nextRollouts.set(id, kept);
    return kept;
  }

  private keep(values: Values): Values {
    if (!isView(values)) return values;
    const vb = this.keeper;
    vb.reset();
    for (const k of keysOf(values)) vb.push(k, values[k]);
    return vb.build();
  }
}

/**
 * Memos of the runs of repeated alignments (`AlignRunsOptions.memo`), by run id and round: a caller
 * that aligns the same growing runs again keeps one and passes it each time.
 */
export class AlignMemo {
  private readonly runs = new Map<string, RunPassMemo>();
  /** The arena of every run's kept compact values (shared memory, as alignment's own: lib/export/csv-worker.ts reads such chunks). */
  private readonly keeper = new ValuesBuilder(new ValuesArena({ shared: true }));

  /** The memo of run `runId` in round `round` (a new one the first time). */
  of(runId: string, round: string): RunPassMemo {
    const key = JSON.stringify([runId, round]);
    const had = this.runs.get(key);
    if (had !== undefined) return had;
    const m = new RunPassMemo(this.keeper);
    this.runs.set(key, m);
    return m;
  }
}
