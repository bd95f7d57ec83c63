/**
 * Merges the rows of one rollout batch (rollout manager, trainer rollout, trainer perf) into one
 * record. Internal to lib/align/slime.
 */
import type { CoverageIssue, AxisRecord } from "../../types";
import type { ValuesBuilder } from "../../values/values-builder";
import { CODE_ROLLOUT_MANAGER, CODE_TRAINER_PERF, K_INTERNAL, nextMergeStamp } from "./key-flags";
import { historyStepOf } from "./record-numbers";
import type { RunScan } from "./scan-runs";
import { RolloutPlans } from "./merge-plans";
import type { ShapeKeyInfos } from "./shape-key-infos";

// Module-local copies for the per-row loops: imported bindings are getter calls under tsx (see key-flags.ts).
const MANAGER = CODE_ROLLOUT_MANAGER;
const TRAINER_PERF = CODE_TRAINER_PERF;
const F_INTERNAL = K_INTERNAL;

/**
 * Row slots: which of the rows slime writes per rollout batch a row is; two rows in one slot are a
 * duplicate. 1 manager, 2 trainer perf, 8 + family mask for trainer rollout rows (the trainer writes
 * rollout/*, multi_turn/* and passrate/* as separate rows: mask 1 rollout, 2 multi_turn, 4 passrate).
 */
const SLOT_MANAGER = 1;
const SLOT_PERF = 2;
const SLOT_TRAINER = 8;

function slotName(slot: number): string {
  if (slot === SLOT_MANAGER) return "rollout-manager";
  if (slot === SLOT_PERF) return "trainer-perf";
  const fams = [slot & 1 ? "rollout" : "", slot & 2 ? "multi_turn" : "", slot & 4 ? "passrate" : ""].filter(Boolean);
  return `trainer-rollout (${fams.join("+") || "step only"})`;
}

/** Slot of one rollout row (see SLOT_*) from its kind code and family bits (RunScan.families). */
function slotOf(code: number, families: number): number {
  if (code === MANAGER) return SLOT_MANAGER;
  if (code === TRAINER_PERF) return SLOT_PERF;
  return SLOT_TRAINER | families;
}

/**
 * The merge of one run's rollout records, with its scratch: the values of the row being read, and the
 * keys a merged record dropped. A key with different values in two rows (=== or both NaN; 0 equals -0,
 * which JSON cannot tell apart) is reported once and left out; rows that repeat a slot are reported
 * (duplicate-rollout).
 */
export class RolloutMerge {
  /** The values of the row being read (readValues fills it: no getter call per key of a compact row). */
  private readonly values: number[] = [];
  /** Records whose rows agree and fill one slot each, copied by plan (merge-plans.ts). */
  private readonly plans: RolloutPlans;

  constructor(
    private readonly scan: RunScan,
    private readonly infos: ShapeKeyInfos,
    private readonly vb: ValuesBuilder,
    private readonly issues: CoverageIssue[],
  ) {
    this.plans = new RolloutPlans(scan.reader, infos, vb);
  }

  /** Sets `rec`'s values and history steps from its rows, linked from `first` through `rowNext`. */
  merge(rec: AxisRecord, first: number, rowNext: Int32Array): void {
    const repeated = this.repeatedSlots(first, rowNext);
    const planned = repeated === null ? this.plans.values(first, rowNext) : null;
    if (planned !== null) rec.values = planned;
    else this.mergeRows(rec, first, rowNext);
    rec.historySteps = this.historyStepsOf(first, rowNext);
    if (repeated !== null) for (const slot of repeated) this.reportDuplicate(rec, first, rowNext, slot);
  }

  /** The slots two or more of the rows fill (duplicates), in the order they repeat; null for none. */
  private repeatedSlots(first: number, rowNext: Int32Array): number[] | null {
    const { codes, families } = this.scan;
    let mask = 0;
    let repeated: number[] | null = null;
    for (let i = first; i >= 0; i = rowNext[i]) {
      const slot = slotOf(codes[i], families[i]);
      if (mask & (1 << slot)) {
        if (repeated === null) repeated = [];
        if (!repeated.includes(slot)) repeated.push(slot);
      }
      mask |= 1 << slot;
    }
    return repeated;
  }

  /** `_step` of each row, in link order: exactly as many places as rows (push() would leave room for 16 numbers in 10^6 records). */
  private historyStepsOf(first: number, rowNext: Int32Array): number[] {
    const { historySteps } = this.scan;
    let count = 0;
    for (let i = first; i >= 0; i = rowNext[i]) count++;
    const steps = new Array<number>(count);
    for (let i = first, q = 0; i >= 0; i = rowNext[i], q++) steps[q] = historyStepOf(historySteps, i);
    return steps;
  }

  /** The general merge: every row's keys pushed in order, keys with conflicting values left out and reported. */
  private mergeRows(rec: AxisRecord, first: number, rowNext: Int32Array): void {
    this.vb.reset();
    let dropped: Set<string> | null = null;
    const stamp = nextMergeStamp();
    for (let i = first; i >= 0; i = rowNext[i]) dropped = this.addRow(rec, i, stamp, dropped);
    if (dropped !== null) this.vb.remove(dropped);
    rec.values = this.vb.build();
  }

  /** Adds row i's keys to the record being built; returns the (possibly new) set of dropped keys. */
  private addRow(rec: AxisRecord, i: number, stamp: number, dropped: Set<string> | null): Set<string> | null {
    const { vb, values } = this;
    const keys = this.scan.reader.read(i, values);
    const info = this.infos.of(i, keys);
    for (let j = 0; j < keys.length; j++) {
      const ki = info[j];
      if (ki.flags & F_INTERNAL) continue;
      const v = values[j];
      if (ki.stamp !== stamp) {
        ki.stamp = stamp;
        ki.slot = vb.n;
        vb.push(keys[j], v);
        continue;
      }
      const prev = vb.vals[ki.slot];
      if (prev === v || (prev !== prev && v !== v)) continue;
      const key = keys[j];
      if (dropped === null) dropped = new Set();
      if (dropped.has(key)) continue;
      dropped.add(key);
      this.reportConflict(rec, key, prev, v, i);
    }
    return dropped;
  }

  private reportConflict(rec: AxisRecord, key: string, prev: number, v: number, i: number): void {
    const { run, historySteps } = this.scan;
    this.issues.push({
      runId: run.runId,
      round: run.round,
      kind: "conflicting-values",
      step: rec.rollout,
      key,
      message: `run ${run.runId} (round ${run.round}): rollout ${rec.rollout} has ${key} = ${prev} and ${v} in two rows (second at _step ${historySteps[i]}); the key is left out of the rollout record`,
    });
  }

  private reportDuplicate(rec: AxisRecord, first: number, rowNext: Int32Array, slot: number): void {
    const { run, codes, families, historySteps } = this.scan;
    const dup: number[] = [];
    for (let i = first; i >= 0; i = rowNext[i]) if (slotOf(codes[i], families[i]) === slot) dup.push(historyStepOf(historySteps, i));
    this.issues.push({
      runId: run.runId,
      round: run.round,
      kind: "duplicate-rollout",
      step: rec.rollout,
      key: null,
      message: `run ${run.runId} (round ${run.round}): rollout ${rec.rollout} has ${dup.length} ${slotName(slot)} rows (_step ${dup.join(", ")})`,
    });
  }
}
