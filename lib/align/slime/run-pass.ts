/** One run's pass over its live rows into slime records. Internal to lib/align/slime. */
import type { OwnRows } from "../../registry/framework-profile";
import type { AxisRecord, UpdateRecord } from "../../types";
import type { ValuesBuilder } from "../../values/values-builder";
import type { RowReader } from "../row-reader";
import { runUpdateNumber } from "./axis-formulas";
import { type CriticRows, criticValues, mergeCritic } from "./critic-merge";
import {
  CODE_CRITIC_UPDATE,
  CODE_EVAL,
  CODE_OPTIMIZER_UPDATE,
  CODE_OTHER,
  CODE_ROLLOUT_MANAGER,
  CODE_TRAINER_PERF,
  CODE_TRAINER_ROLLOUT,
  K_INTERNAL,
  keyFlags,
} from "./key-flags";
import { historyStepOf, int } from "./record-numbers";
import { RolloutMerge } from "./rollout-merge";
import { UpdatePlans } from "./merge-plans";
import { ShapeKeyInfos } from "./shape-key-infos";
import type { RunPassMemo } from "../pass-memo";
import type { RunRows, SlimeRecords } from "./slime-records";
import { LIVE } from "./supersede";

// Module-local copies for the per-row loops: imported bindings are getter calls under tsx (see key-flags.ts).
const flagsOf = keyFlags;
const UPDATE = CODE_OPTIMIZER_UPDATE;
const CRITIC = CODE_CRITIC_UPDATE;
const MANAGER = CODE_ROLLOUT_MANAGER;
const TRAINER_ROLLOUT = CODE_TRAINER_ROLLOUT;
const TRAINER_PERF = CODE_TRAINER_PERF;
const EVAL = CODE_EVAL;
const OTHER = CODE_OTHER;
const F_INTERNAL = K_INTERNAL;
/** Placeholders until a rollout record's rows are merged (replaced before alignRuns returns). */
const EMPTY: Record<string, number> = Object.freeze({}) as Record<string, number>;
const NO_STEPS: number[] = [];

/**
 * One run's pass over its live rows, with its scratch state: rollout records by id, their rows as
 * linked lists (head/tail per record, rowNext per row) merged after the pass so that each values
 * object is built once, which records have trainer rows, critic rows by train/step, unclassified rows.
 */
export class RunPass {
  private readonly keyInfos: ShapeKeyInfos;
  /** Update values copied by plan (merge-plans.ts); pickKeys for rows without one. */
  private readonly updatePlans: UpdatePlans;
  private readonly byId: IdIndex;
  private readonly recs: AxisRecord[] = [];
  private readonly head: number[] = [];
  private readonly tail: number[] = [];
  private readonly rowNext: Int32Array;
  /** Per record: 1 when a trainer row (rollout or perf) belongs to it. */
  private readonly trainerRows: number[] = [];
  private readonly unclassified = new Map<string, { count: number; firstStep: number }>();
  private readonly critic: CriticRows = new Map();
  /** The values of the row being read (RowReader.read fills it). */
  private readonly scratch: number[] = [];
  private readonly firstUpdate: number;
  private readonly firstEval: number;

  /** Rows per `ownRows` family of the profile (kind "other": never records). */
  private readonly ownCounts: number[];

  constructor(
    private readonly rr: RunRows,
    private readonly out: SlimeRecords,
    private readonly ownRows: readonly OwnRows[] = [],
    /** What the last pass over the same run built (AlignRunsOptions.memo); null: build everything. */
    private readonly memo: RunPassMemo | null = null,
  ) {
    this.ownCounts = ownRows.map(() => 0);
    this.keyInfos = new ShapeKeyInfos(rr.scan.reader);
    this.updatePlans = new UpdatePlans(rr.scan.reader, this.keyInfos, out.updateValues);
    this.byId = new IdIndex(rr.rollouts, rr.scan.codes);
    this.rowNext = new Int32Array(rr.scan.codes.length);
    this.firstUpdate = out.updates.length;
    this.firstEval = out.evals.length;
  }

  /** The run's records, in their lists, and its issues and notes. */
  collect(): void {
    this.memo?.begin(this.rr.scan.run.rows);
    this.readRows();
    this.reportUnclassified();
    this.noteOwnRows();
    this.mergeRollouts();
    const skip = new Set<number>();
    const { out, rr } = this;
    mergeCritic(out.updates, this.firstUpdate, this.critic, rr.axis, { notes: out.notes, skip, criticOnly: out.criticOnly, updateValues: out.updateValues });
    this.noteTrailingRollout(skip);
    out.noUpdatesExpected.push(skip);
    this.memo?.end();
  }

  /** One pass over the live rows: updates, evals and critic rows as they come, rollout rows linked per id. */
  private readRows(): void {
    const { out, rr, keyInfos, byId, recs, head, tail, rowNext, trainerRows } = this;
    const { axis, by } = rr;
    const { run, codes, steps, historySteps, reader } = rr.scan;
    const ids = rr.rollouts;
    const { runId, round } = run;
    const n = axis.n;
    for (let i = 0; i < codes.length; i++) {
      if (by[i] !== LIVE) continue;
      const code = codes[i];
      if (code === UPDATE) {
        const t = steps[i];
        const values = this.updateValuesOf(i);
        const historyStep = historyStepOf(historySteps, i);
        out.updates.push({
          runId,
          round,
          trainStep: int(t),
          update: int(runUpdateNumber(axis, t)),
          rollout: int(ids[i]),
          updateInRollout: int(t % n),
          historyStep,
          values,
        });
      } else if (code === MANAGER || code === TRAINER_ROLLOUT || code === TRAINER_PERF) {
        const r = ids[i];
        let idx = byId.get(r);
        if (idx < 0) {
          idx = recs.length;
          byId.set(r, idx);
          recs.push({ runId, round, rollout: int(r), historySteps: NO_STEPS, values: EMPTY });
          head.push(i);
          trainerRows.push(0);
        } else {
          rowNext[tail[idx]] = i;
        }
        if (code !== MANAGER) trainerRows[idx] = 1;
        tail[idx] = i;
        rowNext[i] = -1;
      } else if (code === CRITIC) {
        this.critic.set(steps[i], { values: criticValues(reader, i, this.scratch), historyStep: historyStepOf(historySteps, i) });
      } else if (code === EVAL) {
        const values = pickKeys(out.evalValues, reader, keyInfos, i, this.scratch);
        out.evals.push({ runId, round, evalStep: int(steps[i]), rollout: int(ids[i]), historyStep: historyStepOf(historySteps, i), values });
      } else if (code === OTHER) {
        const f = rr.scan.own === null ? -1 : rr.scan.own[i];
        if (f >= 0) this.ownCounts[f]++;
        else this.countUnclassified(i);
      }
    }
  }

  /** An update row's values: as the last pass built them from the same row, else picked now. */
  private updateValuesOf(i: number): Record<string, number> {
    const { memo } = this;
    const had = memo?.rowValues(i);
    if (had !== undefined) return had;
    const planned = memo === null ? this.updatePlans.values(i) : null;
    if (planned !== null) return planned;
    const values = pickKeys(this.out.updateValues, this.rr.scan.reader, this.keyInfos, i, this.scratch);
    return memo === null ? values : memo.keepRowValues(i, values);
  }

  /** Counts a row of no slime kind by its key set (bookkeeping keys left out). */
  private countUnclassified(i: number): void {
    const keys = this.rr.scan.reader.keys(i).filter((k) => !(flagsOf(k) & F_INTERNAL));
    if (keys.length === 0) return;
    const sig = keys.sort().join(", ");
    const u = this.unclassified.get(sig);
    if (u) u.count++;
    else this.unclassified.set(sig, { count: 1, firstStep: this.rr.scan.historySteps[i] });
  }

  /** One note per `ownRows` family the run logged. */
  private noteOwnRows(): void {
    const { runId, round } = this.rr.scan.run;
    this.ownRows.forEach((o, f) => {
      if (this.ownCounts[f] === 0) return;
      this.out.notes.push({
        runId,
        round,
        kind: "own-rows",
        step: null,
        message: `run ${runId} (round ${round}): ${this.ownCounts[f]} row(s) of ${o.what} (keys ${o.prefix}*) kept out of the rollout records and of superseding`,
      });
    });
  }

  private reportUnclassified(): void {
    const { runId, round } = this.rr.scan.run;
    for (const [sig, u] of this.unclassified) {
      this.out.issues.push({
        runId,
        round,
        kind: "unclassified-row",
        step: null,
        key: null,
        message: `run ${runId} (round ${round}): ${u.count} row(s) with keys ${sig} match no slime row kind (first at _step ${u.firstStep})`,
      });
    }
  }

  /** Builds each rollout record's values from its linked rows, then adds the run's records, updates and evals in order. */
  private mergeRollouts(): void {
    const { out, recs } = this;
    const merge = new RolloutMerge(this.rr.scan, this.keyInfos, out.rolloutValues, out.issues);
    for (let idx = 0; idx < recs.length; idx++) {
      if (this.memo === null) merge.merge(recs[idx], this.head[idx], this.rowNext);
      else this.mergeWithMemo(merge, this.memo, recs[idx], this.head[idx]);
    }
    recs.sort((a, b) => a.rollout - b.rollout);
    for (const r of recs) out.rollouts.push(r);
    sortRange(out.updates, this.firstUpdate, (a, b) => a.trainStep - b.trainStep);
    sortRange(out.evals, this.firstEval, (a, b) => a.evalStep - b.evalStep || a.historyStep - b.historyStep);
  }

  /** Merges one record, or takes what the last pass merged from exactly the same rows (values, history steps, issues). */
  private mergeWithMemo(merge: RolloutMerge, memo: RunPassMemo, rec: AxisRecord, first: number): void {
    const { rowNext, out } = this;
    let count = 0;
    for (let i = first; i >= 0; i = rowNext[i]) count++;
    const rows = new Int32Array(count);
    for (let i = first, q = 0; i >= 0; i = rowNext[i], q++) rows[q] = i;
    const had = memo.rollout(rec.rollout, rows);
    if (had !== undefined) {
      rec.values = had.values;
      rec.historySteps = had.historySteps.slice();
      for (const x of had.issues) out.issues.push(x);
      memo.keepRollout(rec.rollout, had, true);
      return;
    }
    const before = out.issues.length;
    merge.merge(rec, first, rowNext);
    rec.values = memo.keepRollout(rec.rollout, { rows, values: rec.values, historySteps: rec.historySteps.slice(), issues: out.issues.slice(before) }).values;
  }

  /** A crashed run's last rollout with manager rows only: kept, noted, no updates expected for it. */
  private noteTrailingRollout(skip: Set<number>): void {
    const { recs, out } = this;
    const { run } = this.rr.scan;
    const n = this.rr.axis.n;
    const last = recs.length > 0 ? recs[recs.length - 1].rollout : null;
    if (last === null || this.trainerRows[this.byId.get(last)] || hasUpdateOf(out.updates, this.firstUpdate, last) || this.critic.has(last * n)) return;
    skip.add(last);
    out.notes.push({
      runId: run.runId,
      round: run.round,
      kind: "trailing-rollout",
      step: last,
      message: `run ${run.runId} (round ${run.round}, state ${run.state}): rollout ${last}, the run's last, has rows of the rollout manager only (no trainer rows, no updates): kept as a rollout record with its logged values; no updates are expected for it`,
    });
  }
}

/** True when an update from `from` on belongs to rollout `id`. */
function hasUpdateOf(updates: UpdateRecord[], from: number, id: number): boolean {
  for (let k = updates.length - 1; k >= from; k--) if (updates[k].rollout === id) return true;
  return false;
}

/**
 * Rollout id -> record index of one run: a dense Int32Array over the run's id range (ids are
 * consecutive batches), a Map when the ids are too sparse for that. A Map of a million entries per
 * run was a tenth of the alignment at 10^7 updates.
 */
class IdIndex {
  private readonly dense: Int32Array | null;
  private readonly min: number;
  private readonly map = new Map<number, number>();
  constructor(ids: Float64Array, codes: Uint8Array) {
    let min = Infinity;
    let max = -Infinity;
    let count = 0;
    for (let i = 0; i < ids.length; i++) {
      const c = codes[i];
      if (!(c === MANAGER || c === TRAINER_ROLLOUT || c === TRAINER_PERF)) continue;
      count++;
      if (ids[i] < min) min = ids[i];
      if (ids[i] > max) max = ids[i];
    }
    const span = max - min + 1;
    this.min = min;
    this.dense = count > 0 && Number.isInteger(min) && span <= 2 * count + 1024 ? new Int32Array(span).fill(-1) : null;
  }
  /** Record index of rollout `id`, -1 when it has none yet. */
  get(id: number): number {
    if (this.dense !== null) return this.dense[id - this.min];
    return this.map.get(id) ?? -1;
  }
  set(id: number, idx: number): void {
    if (this.dense !== null) this.dense[id - this.min] = idx;
    else this.map.set(id, idx);
  }
}

/**
 * Every key of row i but W&B bookkeeping (a new object; the row is left untouched): keys of no known
 * family are carried through to the exports, never dropped.
 */
function pickKeys(vb: ValuesBuilder, reader: RowReader, infos: ShapeKeyInfos, i: number, scratch: number[]): Record<string, number> {
  vb.reset();
  const keys = reader.read(i, scratch);
  const info = infos.of(i, keys);
  for (let j = 0; j < keys.length; j++) if (!(info[j].flags & F_INTERNAL)) vb.push(keys[j], scratch[j]);
  return vb.build();
}

/** Sorts arr[from..] in place when it is not already ordered (stable; rows usually arrive sorted). */
function sortRange<T>(arr: T[], from: number, cmp: (a: T, b: T) => number): void {
  let sorted = true;
  for (let i = from + 1; i < arr.length; i++) {
    if (cmp(arr[i - 1], arr[i]) > 0) {
      sorted = false;
      break;
    }
  }
  if (sorted) return;
  const part = arr.slice(from).sort(cmp);
  for (let i = 0; i < part.length; i++) arr[from + i] = part[i];
}
