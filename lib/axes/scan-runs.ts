/**
 * One classification pass over every row of every run, shared by axis inference and alignment so
 * that 10^6-row histories are classified once. Internal to lib/axes.
 */
import { STEP_KEYS } from "../schema/slime-metrics";
import type { HistoryRow, RowKind, RunHistory } from "../types";
import {
  classifyRowCode,
  CODE_CRITIC_UPDATE,
  CODE_EVAL,
  CODE_OPTIMIZER_UPDATE,
  CODE_ROLLOUT_MANAGER,
  CODE_TRAINER_PERF,
  CODE_TRAINER_ROLLOUT,
  ROW_KINDS,
} from "./key-flags";

// Module-local copies for the per-row loop: imported bindings are getter calls under tsx (see key-flags.ts).
const classify = classifyRowCode;
const MANAGER = CODE_ROLLOUT_MANAGER;
const TRAINER_ROLLOUT = CODE_TRAINER_ROLLOUT;
const TRAINER_PERF = CODE_TRAINER_PERF;
const UPDATE = CODE_OPTIMIZER_UPDATE;
const CRITIC = CODE_CRITIC_UPDATE;
const EVAL = CODE_EVAL;
const TRAIN_STEP = STEP_KEYS.train;
const ROLLOUT_STEP = STEP_KEYS.rollout;
const EVAL_STEP = STEP_KEYS.eval;

/** Rows of one run with their kind code and the value of their axis key. */
export interface RunScan {
  run: RunHistory;
  /** Kind code per row (index into ROW_KINDS). */
  codes: Uint8Array;
  /** train/step (actor and critic updates), rollout/step (rollout rows), eval/step (eval rows), as logged; NaN for other rows. */
  steps: Float64Array;
  /** Count of rows per kind. */
  counts: Record<RowKind, number>;
}

/** True for the codes of the three rows of one rollout batch. */
export function isRolloutCode(code: number): boolean {
  return code === MANAGER || code === TRAINER_ROLLOUT || code === TRAINER_PERF;
}

/** Value of a step key, checked to be a non-negative integer; the error names run, round, _step and key. */
export function readStepKey(row: HistoryRow, key: string, run: RunHistory): number {
  const v = row[key];
  if (!Number.isInteger(v) || v < 0) {
    throw new Error(`run ${run.runId} (round ${run.round}): ${key} = ${v} at _step ${row._step} is not a non-negative integer`);
  }
  return v;
}

/** Classifies every row of a run and reads its axis value. */
export function scanRun(run: RunHistory): RunScan {
  const rows = run.rows;
  const codes = new Uint8Array(rows.length);
  const steps = new Float64Array(rows.length).fill(NaN);
  const perCode = new Int32Array(ROW_KINDS.length);
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i];
    const code = classify(row);
    codes[i] = code;
    perCode[code]++;
    if (code === UPDATE || code === CRITIC) steps[i] = readStepKey(row, TRAIN_STEP, run);
    else if (isRolloutCode(code)) steps[i] = readStepKey(row, ROLLOUT_STEP, run);
    else if (code === EVAL) steps[i] = readStepKey(row, EVAL_STEP, run);
  }
  const counts = {} as Record<RowKind, number>;
  ROW_KINDS.forEach((k, c) => (counts[k] = perCode[c]));
  return { run, codes, steps, counts };
}

/** Sorted distinct values of a numeric list. */
export function sortedUnique(values: Float64Array): Float64Array {
  const s = Float64Array.from(values).sort();
  let n = 0;
  for (let i = 0; i < s.length; i++) if (i === 0 || s[i] !== s[i - 1]) s[n++] = s[i];
  return s.subarray(0, n);
}

/** Distinct sorted train/step values of the run's optimizer-update rows. */
export function trainStepsOf(scan: RunScan): Float64Array {
  return stepsOf(scan, (c) => c === UPDATE, scan.counts["optimizer-update"]);
}

/** Distinct sorted rollout ids of the run's rollout rows (manager, trainer rollout, trainer perf). */
export function rolloutIdsOf(scan: RunScan): Float64Array {
  const c = scan.counts;
  return stepsOf(scan, isRolloutCode, c["rollout-manager"] + c["trainer-rollout"] + c["trainer-perf"]);
}

function stepsOf(scan: RunScan, keep: (code: number) => boolean, count: number): Float64Array {
  const out = new Float64Array(count);
  let n = 0;
  for (let i = 0; i < scan.codes.length; i++) if (keep(scan.codes[i])) out[n++] = scan.steps[i];
  return sortedUnique(out);
}
