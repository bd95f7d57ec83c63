/**
 * One classification pass over every row of every run, shared by axis inference and alignment so
 * that 10^6-row histories are classified once. Internal to lib/align.
 */
import { STEP_KEYS } from "../../registry/profile-slime";
import type { OwnRows } from "../../registry/framework-profile";
import type { RowKind, RunHistory } from "../../types";
import {
  CODE_CRITIC_UPDATE,
  CODE_EVAL,
  CODE_OTHER,
  CODE_OPTIMIZER_UPDATE,
  CODE_ROLLOUT_MANAGER,
  CODE_TRAINER_PERF,
  CODE_TRAINER_ROLLOUT,
  K_MULTI_TURN,
  K_PASSRATE,
  K_ROLLOUT_METRIC,
  keyFlags,
  kindCode,
  ROW_KINDS,
} from "./key-flags";
import { rowReader, type RowReader } from "../row-reader";

// Module-local copies for the per-row loop: imported bindings are getter calls under tsx (see key-flags.ts).
const flagsOf = keyFlags;
const codeOf = kindCode;
const F_ROLLOUT_METRIC = K_ROLLOUT_METRIC;
const F_MULTI_TURN = K_MULTI_TURN;
const F_PASSRATE = K_PASSRATE;
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
  /** The run's rows by index (packed rows are read without a view per row); no rows once released. */
  reader: RowReader;
  /** Kind code per row (index into ROW_KINDS). */
  codes: Uint8Array;
  /** train/step (actor and critic updates), rollout/step (rollout rows), eval/step (eval rows), as logged; NaN for other rows. */
  steps: Float64Array;
  /** `_step` per row (NaN when absent): orders one writer's rows and names rows in messages. */
  historySteps: Float64Array;
  /** Trainer rollout rows: which families they hold (1 rollout/*, 2 multi_turn/*, 4 passrate/*); 0 for other rows. */
  families: Uint8Array;
  /** Count of rows per kind. */
  counts: Record<RowKind, number>;
  /** Per row: the index of the profile's `ownRows` family it belongs to (kind "other"), -1 for any other row; null when the profile declares none. */
  own: Int8Array | null;
  /** trainStepsOf and rolloutIdsOf, made once: axis decisions and the first rollout both read them (read only). */
  sorted: { trainSteps: Float64Array | null; rolloutIds: Float64Array | null };
}

/** True for the codes of the three rows of one rollout batch. */
export function isRolloutCode(code: number): boolean {
  return code === MANAGER || code === TRAINER_ROLLOUT || code === TRAINER_PERF;
}

/** Value of a step key, checked to be a non-negative integer; the error names run, round, _step and key. */
function checkedStep(v: number | undefined, key: string, historyStep: number | undefined, run: RunHistory): number {
  if (!Number.isInteger(v) || (v as number) < 0) {
    throw new Error(`run ${run.runId} (round ${run.round}): ${key} = ${v} at _step ${historyStep} is not a non-negative integer`);
  }
  return v as number;
}

/** Family bits of a trainer rollout row (see RunScan.families) from the OR of its key flags. */
export function familyBits(flags: number): number {
  return (flags & F_ROLLOUT_METRIC ? 1 : 0) | (flags & F_MULTI_TURN ? 2 : 0) | (flags & F_PASSRATE ? 4 : 0);
}

/** Kind code and family bits of a key list, packed as code | bits << 8. */
function kindOfKeys(keys: readonly string[]): number {
  let f = 0;
  for (let j = 0; j < keys.length; j++) f |= flagsOf(keys[j]);
  const code = codeOf(f);
  return code | ((code === TRAINER_ROLLOUT ? familyBits(f) : 0) << 8);
}

/** The `ownRows` family every key of a row but W&B's and the step keys falls in, -1 when none. */
function ownFamily(keys: readonly string[], ownRows: readonly OwnRows[]): number {
  let family = -1;
  for (const k of keys) {
    if (k.charCodeAt(0) === 95 /* _ */ || STEP_KEY_SET.has(k)) continue;
    const f = ownRows.findIndex((o) => k.startsWith(o.prefix));
    if (f < 0 || (family >= 0 && f !== family)) return -1;
    family = f;
  }
  return family;
}

const STEP_KEY_SET: ReadonlySet<string> = new Set(Object.values(STEP_KEYS));

/** Classifies every row of a run (rows of the profile's `ownRows` families as "other", marked in `own`) and reads its axis value. */
export function scanRun(run: RunHistory, ownRows: readonly OwnRows[] = []): RunScan {
  const reader = rowReader(run);
  const n = reader.length;
  const codes = new Uint8Array(n);
  const families = new Uint8Array(n);
  const steps = new Float64Array(n).fill(NaN);
  const historySteps = new Float64Array(n);
  const perCode = new Int32Array(ROW_KINDS.length);
  const own = ownRows.length > 0 ? new Int8Array(n).fill(-1) : null;
  // Kind per key list: rows of one shape share it (a run has a handful of shapes).
  const kindOfShape: number[] = [];
  for (let i = 0; i < n; i++) {
    const s = reader.shape(i);
    let kind = s >= 0 ? kindOfShape[s] : undefined;
    if (kind === undefined) {
      const keys = reader.keys(i);
      const f = own === null ? -1 : ownFamily(keys, ownRows);
      // An own row is kind "other" with its family above the code bits.
      kind = f >= 0 ? CODE_OTHER | ((f + 1) << 16) : kindOfKeys(keys);
      if (s >= 0) kindOfShape[s] = kind;
    }
    if (own !== null) own[i] = (kind >> 16) - 1;
    const code = kind & 255;
    codes[i] = code;
    families[i] = (kind >> 8) & 255;
    perCode[code]++;
    const historyStep = reader.value(i, "_step");
    historySteps[i] = historyStep ?? NaN;
    const key = code === UPDATE || code === CRITIC ? TRAIN_STEP : isRolloutCode(code) ? ROLLOUT_STEP : code === EVAL ? EVAL_STEP : null;
    if (key !== null) steps[i] = checkedStep(reader.value(i, key), key, historyStep, run);
  }
  const counts = {} as Record<RowKind, number>;
  ROW_KINDS.forEach((k, c) => (counts[k] = perCode[c]));
  return { run, reader, codes, steps, historySteps, families, counts, own, sorted: { trainSteps: null, rolloutIds: null } };
}

/** Sorted distinct values of a numeric list. */
export function sortedUnique(values: Float64Array): Float64Array {
  const s = Float64Array.from(values);
  // Steps are logged in order: sorting 10^7 of them only to find them sorted took seconds.
  if (!ascending(s)) s.sort();
  let n = 0;
  for (let i = 0; i < s.length; i++) if (i === 0 || s[i] !== s[i - 1]) s[n++] = s[i];
  return s.subarray(0, n);
}

/** True when `xs` is in ascending order (NaN anywhere: false, so the sort puts it last). */
export function ascending(xs: Float64Array): boolean {
  for (let i = 1; i < xs.length; i++) if (!(xs[i - 1] <= xs[i])) return false;
  return xs.length === 0 || xs[0] === xs[0];
}

/** Distinct sorted train/step values of the run's optimizer-update rows. */
export function trainStepsOf(scan: RunScan): Float64Array {
  scan.sorted.trainSteps ??= stepsOf(scan, (c) => c === UPDATE, scan.counts["optimizer-update"]);
  return scan.sorted.trainSteps;
}

/** Distinct sorted rollout ids of the run's rollout rows (manager, trainer rollout, trainer perf). */
export function rolloutIdsOf(scan: RunScan): Float64Array {
  const c = scan.counts;
  scan.sorted.rolloutIds ??= stepsOf(scan, isRolloutCode, c["rollout-manager"] + c["trainer-rollout"] + c["trainer-perf"]);
  return scan.sorted.rolloutIds;
}

function stepsOf(scan: RunScan, keep: (code: number) => boolean, count: number): Float64Array {
  const out = new Float64Array(count);
  let n = 0;
  for (let i = 0; i < scan.codes.length; i++) if (keep(scan.codes[i])) out[n++] = scan.steps[i];
  return sortedUnique(out);
}
