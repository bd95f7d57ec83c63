/**
 * Infers, per run, N (optimizer updates per rollout batch) and whether slime's
 * `--wandb-always-use-train-step` was set (then rollout/step and eval/step hold rollout_id * N, see
 * docs/slime-logging.md), and r0 (first rollout id of the whole set of runs).
 *
 * A hypothesis is a pair (N, flag). Under flag = false a rollout row's rollout/step is its rollout id;
 * under flag = true it is rollout_id * N (so every value must be a multiple of N). Two kinds of
 * evidence, both from explicit step keys:
 * - Key sets. With the run's distinct train/step values T and rollout ids R, a hypothesis leaves
 *   `|T| + N|R| - 2*mapped` coverage gaps, where `mapped` counts the updates whose rollout
 *   floor(t/N) is in R: updates without a rollout plus missing update slots. The true hypothesis
 *   leaves only the gaps the data really has.
 * - Trainer row order. The trainer logs, one rollout at a time, its rollout row, the N update rows,
 *   then its perf row, so an update row lies between the trainer rollout row and the trainer perf row
 *   of its own rollout. Where both neighbours name the same rollout a, floor(t/N) must equal a. Row
 *   order of this one writer is used only as this evidence, never as an axis (the rollout manager and
 *   a critic are other writers; async training logs the manager one rollout ahead).
 *
 * Per run the hypothesis with the fewest order contradictions, then the fewest gaps, wins. A run
 * without update rows takes N from the nearest run that has them. The flag is `null` when both
 * readings give the same rollout ids (N = 1, or only rollout 0), and a run whose evidence does not
 * decide it is refused with the evidence both ways. N may differ between runs (a user can change
 * global_batch_size between rounds); within a run a changing N is refused.
 */
import type { AxisMapping, RunAxis, RunHistory } from "../../types";
import { makeAxisMapping } from "./axis-formulas";
import { CODE_OPTIMIZER_UPDATE, CODE_TRAINER_PERF, CODE_TRAINER_ROLLOUT } from "./key-flags";
import { rolloutIdsOf, scanRun, trainStepsOf, type RunScan } from "./scan-runs";
import { updateBases } from "./supersede";

/** Options of {@link inferAxisMapping}. */
export interface InferAxisMappingOptions {
  /** Force N for every run, or per run id, instead of inferring it (the trainer-order check still runs). */
  n?: number | Record<string, number>;
  /**
   * Force the reading of rollout/step for every run, or per run id: true = logged with slime's
   * `--wandb-always-use-train-step` (rollout_id * N), false = rollout_id. Default: decided from the data.
   */
  alwaysUseTrainStep?: boolean | Record<string, boolean>;
}

/** What one run says about N and the flag; raw values are rollout/step as logged. */
interface RunEvidence {
  scan: RunScan;
  /** Distinct sorted train/step of optimizer-update rows. */
  trainSteps: Float64Array;
  /** Distinct sorted raw rollout/step values of rollout rows. */
  rawRollouts: Float64Array;
  /** Order evidence: update i (train/step evT[i], row evRow[i]) lies between trainer rows with raw rollout/step evA[i]. */
  evT: Float64Array;
  evA: Float64Array;
  evRow: Int32Array;
}

/** Score of one hypothesis on one run; null when the hypothesis cannot hold (flag with values not multiples of N). */
interface Score {
  n: number;
  flag: boolean;
  order: number;
  gaps: number;
}

/** The per-run decision, before display numbering (buildRunAxes adds that). */
export interface RunAxisDecision {
  runId: string;
  round: string;
  n: number;
  alwaysUseTrainStep: boolean | null;
  flagEvidence: string;
}

/**
 * The axis mapping of a set of runs (N per run, the flag per run, r0, formulas); throws when a run's
 * own rows contradict every hypothesis or leave the flag undecided.
 * @example inferAxisMapping(runs) // { n: 2, r0: 1, formulas: { update: "update = train/step - 2*1 + 1", ... }, runs: [...] }
 */
export function inferAxisMapping(runs: RunHistory[], opts: InferAxisMappingOptions = {}): AxisMapping {
  const scans = runs.map((run) => scanRun(run));
  const decisions = decideRunAxes(scans, opts);
  return mappingFromRunAxes(
    buildRunAxes(
      decisions,
      scans.map((s, i) => firstRolloutOf(s, decisions[i])),
    ),
  );
}

/** Per-run axes with display numbering in the surviving lineage (lib/align/slime/supersede.ts updateBases). */
export function buildRunAxes(decisions: RunAxisDecision[], firsts: (number | null)[]): RunAxis[] {
  let r0 = Infinity;
  for (const f of firsts) if (f !== null) r0 = Math.min(r0, f);
  const bases = updateBases(
    firsts,
    decisions.map((d) => d.n),
    r0 === Infinity ? 0 : r0,
  );
  return decisions.map((d, i) => {
    const first = firsts[i];
    return {
      ...d,
      firstRollout: first,
      updateBase: bases[i],
      formula: first === null ? "no updates" : `update = train/step - ${d.n}*${first} + ${bases[i]} + 1`,
    };
  });
}

/** Decides N and the flag of every run (used by alignRuns on runs already classified). */
export function decideRunAxes(scans: RunScan[], opts: InferAxisMappingOptions = {}): RunAxisDecision[] {
  const evidence = scans.map(runEvidence);
  const out: (RunAxisDecision | null)[] = evidence.map(() => null);
  for (let i = 0; i < evidence.length; i++) {
    const e = evidence[i];
    const forcedN = pick(opts.n, e.scan.run.runId);
    if (forcedN !== undefined && !(Number.isInteger(forcedN) && forcedN >= 1)) throw new Error(`invalid n: ${forcedN}`);
    const forcedFlag = pick(opts.alwaysUseTrainStep, e.scan.run.runId);
    if (forcedFlag !== undefined && typeof forcedFlag !== "boolean") throw new Error(`invalid alwaysUseTrainStep: ${forcedFlag}`);
    if (e.trainSteps.length === 0) {
      // No updates: N given, or taken from a neighbour below; the flag from the rollout/step values alone.
      if (forcedN !== undefined) out[i] = decideFlagWithoutUpdates(e, forcedN, forcedFlag, null);
      continue;
    }
    out[i] = decideRun(e, forcedN, forcedFlag);
  }
  // Runs without updates: N of the nearest earlier run with one, else the nearest later one.
  for (let i = 0; i < out.length; i++) {
    if (out[i] !== null) continue;
    let j = i - 1;
    while (j >= 0 && evidence[j].trainSteps.length === 0) j--;
    if (j < 0) {
      j = i + 1;
      while (j < out.length && evidence[j].trainSteps.length === 0) j++;
    }
    if (j >= out.length || out[j] === null) {
      throw new Error("cannot infer N (optimizer updates per rollout batch): no run has optimizer-update rows (train/step); pass the n option");
    }
    const n = out[j]!.n;
    out[i] = decideFlagWithoutUpdates(evidence[i], n, pick(opts.alwaysUseTrainStep, evidence[i].scan.run.runId), out[j]!);
  }
  return out as RunAxisDecision[];
}

/** The mapping object from per-run axes; `n` is the common N, or the largest when runs differ. */
export function mappingFromRunAxes(runAxes: RunAxis[]): AxisMapping {
  let r0 = Infinity;
  for (const a of runAxes) if (a.firstRollout !== null) r0 = Math.min(r0, a.firstRollout);
  if (r0 === Infinity) {
    throw new Error("cannot infer the axes: no run has optimizer-update rows (train/step) or rollout rows (rollout/step)");
  }
  const ns = new Set(runAxes.map((a) => a.n));
  const n = Math.max(...ns);
  const base = makeAxisMapping(n, r0);
  if (ns.size > 1) {
    base.formulas = {
      update: "update = train/step - N*first_rollout + update_base + 1, with N, first_rollout and update_base per run (see runs)",
      rollout: "rollout = floor(train/step / N), with N per run",
      updateInRollout: "update_in_rollout = train/step mod N, with N per run",
    };
  }
  return { ...base, runs: runAxes };
}

function pick<T>(v: T | Record<string, T> | undefined, runId: string): T | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === "object") return (v as Record<string, T>)[runId];
  return v as T;
}

/** First rollout id a run touches (rollout rows and the rollouts of its updates), under its decision. */
export function firstRolloutOf(scan: RunScan, d: RunAxisDecision): number | null {
  const R = rolloutIdsOf(scan);
  const T = trainStepsOf(scan);
  let first = Infinity;
  if (R.length > 0) first = d.alwaysUseTrainStep ? R[0] / d.n : R[0];
  if (T.length > 0) first = Math.min(first, Math.floor(T[0] / d.n));
  return first === Infinity ? null : first;
}

function runEvidence(scan: RunScan): RunEvidence {
  // Local copies: imported bindings are getter calls under tsx (see key-flags.ts).
  const UPDATE = CODE_OPTIMIZER_UPDATE;
  const TRAINER_ROLLOUT = CODE_TRAINER_ROLLOUT;
  const TRAINER_PERF = CODE_TRAINER_PERF;
  const { codes, steps } = scan;
  const len = codes.length;
  const withOrder = scan.counts["optimizer-update"] > 0;
  const prevTr = new Float64Array(withOrder ? len : 0);
  const nextTp = new Float64Array(withOrder ? len : 0);
  let nEv = 0;
  const hasTr = scan.counts["trainer-rollout"] > 0;
  const hasTp = scan.counts["trainer-perf"] > 0;
  if (withOrder) {
    let last = NaN;
    for (let i = 0; i < len; i++) {
      if (codes[i] === TRAINER_ROLLOUT) last = steps[i];
      prevTr[i] = last;
    }
    last = NaN;
    for (let i = len - 1; i >= 0; i--) {
      if (codes[i] === TRAINER_PERF) last = steps[i];
      nextTp[i] = last;
    }
  }
  const evT = new Float64Array(withOrder ? scan.counts["optimizer-update"] : 0);
  const evA = new Float64Array(evT.length);
  const evRow = new Int32Array(evT.length);
  if (withOrder) {
    for (let i = 0; i < len; i++) {
      if (codes[i] !== UPDATE) continue;
      const p = prevTr[i];
      const q = nextTp[i];
      // Both neighbours must name the same rollout, so that a missing trainer row gives no evidence
      // rather than wrong evidence; a run without any rows of one of the two kinds uses the other.
      const a = !hasTp ? p : !hasTr ? q : p === q ? p : NaN;
      if (a !== a) continue;
      evT[nEv] = steps[i];
      evA[nEv] = a;
      evRow[nEv] = i;
      nEv++;
    }
  }
  return {
    scan,
    trainSteps: trainStepsOf(scan),
    rawRollouts: rolloutIdsOf(scan),
    evT: evT.subarray(0, nEv),
    evA: evA.subarray(0, nEv),
    evRow: evRow.subarray(0, nEv),
  };
}

/** Rollout id of a raw rollout/step under a hypothesis; NaN when the flag cannot hold for it. */
function toRollout(raw: number, n: number, flag: boolean): number {
  if (!flag) return raw;
  return raw % n === 0 ? raw / n : NaN;
}

/** True when every raw rollout/step value of the run (rows and order evidence) is a multiple of N. */
function allMultiples(e: RunEvidence, n: number): boolean {
  for (let i = 0; i < e.rawRollouts.length; i++) if (e.rawRollouts[i] % n !== 0) return false;
  return true;
}

function score(e: RunEvidence, n: number, flag: boolean): Score | null {
  if (flag && !allMultiples(e, n)) return null;
  const T = e.trainSteps;
  const R = e.rawRollouts;
  let j = 0;
  let mapped = 0;
  for (let i = 0; i < T.length; i++) {
    const r = Math.floor(T[i] / n);
    while (j < R.length && toRollout(R[j], n, flag) < r) j++;
    if (j < R.length && toRollout(R[j], n, flag) === r) mapped++;
  }
  let order = 0;
  for (let i = 0; i < e.evT.length; i++) if (Math.floor(e.evT[i] / n) !== toRollout(e.evA[i], n, flag)) order++;
  return { n, flag, order, gaps: T.length + n * R.length - 2 * mapped };
}

/** Candidate N values worth scoring for one run: integers around simple estimates, under both readings. */
function candidates(e: RunEvidence): number[] {
  const out = new Set<number>([1]);
  const T = e.trainSteps;
  const R = e.rawRollouts;
  const est: number[] = [];
  if (T.length > 0 && R.length > 0) {
    const tmin = T[0];
    const tmax = T[T.length - 1];
    const rmin = R[0];
    const rmax = R[R.length - 1];
    est.push(T.length / R.length, (tmax + 1) / (rmax + 1), (tmax - tmin + 1) / (rmax - rmin + 1));
    if (rmin > 0) est.push(tmin / rmin);
    // Under the flag the raw values step by N: their smallest positive difference is N.
    let d = Infinity;
    for (let i = 1; i < R.length; i++) d = Math.min(d, R[i] - R[i - 1]);
    if (d !== Infinity) est.push(d);
  }
  let first = -1;
  let last = -1;
  for (let i = 0; i < e.evT.length; i++) {
    if (e.evA[i] > 0) {
      if (first < 0) first = i;
      last = i;
    }
  }
  if (first >= 0) est.push(e.evT[first] / e.evA[first], e.evT[last] / e.evA[last]);
  for (const x of est) {
    if (!Number.isFinite(x) || x <= 0) continue;
    const r = Math.round(x);
    for (const c of [Math.floor(x), Math.ceil(x), r - 1, r, r + 1]) if (c >= 1) out.add(c);
  }
  return [...out].sort((a, b) => a - b);
}

function better(a: Score, b: Score): boolean {
  return a.order < b.order || (a.order === b.order && a.gaps < b.gaps);
}

/** Same rollout ids for every update and rollout row under both hypotheses. */
function sameReading(e: RunEvidence, a: Score, b: Score): boolean {
  if (a.n !== b.n) return false;
  for (let i = 0; i < e.rawRollouts.length; i++) if (toRollout(e.rawRollouts[i], a.n, a.flag) !== toRollout(e.rawRollouts[i], b.n, b.flag)) return false;
  return true;
}

function decideRun(e: RunEvidence, forcedN: number | undefined, forcedFlag: boolean | undefined): RunAxisDecision {
  const ns = forcedN !== undefined ? [forcedN] : candidates(e);
  const flags = forcedFlag !== undefined ? [forcedFlag] : [false, true];
  const scores: Score[] = [];
  for (const n of ns)
    for (const f of flags) {
      const s = score(e, n, f);
      if (s !== null) scores.push(s);
    }
  const run = e.scan.run;
  if (scores.length === 0) {
    throw new Error(
      `run ${run.runId} (round ${run.round}): rollout/step values ${describeRaw(e)} are not all multiples of the given N = ${ns[0]}, so they cannot be rollout_id * N (--wandb-always-use-train-step = true was given)`,
    );
  }
  let best = scores[0];
  for (const s of scores) if (better(s, best)) best = s;
  if (best.order > 0) throw orderError(e, best);
  // Another hypothesis exactly as good that reads the rollout ids differently: the data does not decide.
  const rival = scores.find((s) => s !== best && !better(best, s) && !better(s, best) && !sameReading(e, s, best));
  if (rival !== undefined) throw undecidedError(e, best, rival);
  const other = scores.find((s) => s.n === best.n && s.flag !== best.flag);
  const indifferent = other !== undefined && sameReading(e, best, other);
  return {
    runId: run.runId,
    round: run.round,
    n: best.n,
    alwaysUseTrainStep: indifferent || (best.n === 1 && forcedFlag === undefined) ? null : best.flag,
    flagEvidence: flagEvidence(e, best, other, indifferent, forcedFlag !== undefined),
  };
}

function flagEvidence(e: RunEvidence, best: Score, other: Score | undefined, indifferent: boolean, forced: boolean): string {
  if (forced) return `given: rollout/step read as ${best.flag ? "rollout_id * N" : "rollout_id"}`;
  if (indifferent || best.n === 1)
    return `N = ${best.n}${best.n === 1 ? "" : " and only rollout 0"}: rollout/step reads the same with or without --wandb-always-use-train-step`;
  const alt =
    other === undefined
      ? "the other reading is impossible (values are not multiples of N)"
      : `the other reading leaves ${other.order} order contradiction(s) and ${other.gaps} gap(s)`;
  const how = best.flag ? "rollout/step = rollout_id * N (--wandb-always-use-train-step)" : "rollout/step = rollout_id";
  return `${how}: ${best.order} order contradiction(s) and ${best.gaps} gap(s) over ${e.trainSteps.length} updates and ${e.rawRollouts.length} rollout ids; ${alt}`;
}

function decideFlagWithoutUpdates(e: RunEvidence, n: number, forcedFlag: boolean | undefined, from: RunAxisDecision | null): RunAxisDecision {
  const run = e.scan.run;
  const base = { runId: run.runId, round: run.round, n };
  const src =
    from === null
      ? `N = ${n} given: this run has no optimizer-update rows`
      : `N = ${n} taken from run ${from.runId} (round ${from.round}): this run has no optimizer-update rows`;
  if (forcedFlag !== undefined) {
    if (forcedFlag && !allMultiples(e, n)) {
      throw new Error(
        `run ${run.runId} (round ${run.round}): rollout/step values ${describeRaw(e)} are not all multiples of N = ${n}, so they cannot be rollout_id * N (--wandb-always-use-train-step = true was given)`,
      );
    }
    return { ...base, alwaysUseTrainStep: forcedFlag, flagEvidence: `${src}; reading given` };
  }
  let nonZero = false;
  for (let i = 0; i < e.rawRollouts.length; i++) if (e.rawRollouts[i] !== 0) nonZero = true;
  if (n === 1 || !nonZero) return { ...base, alwaysUseTrainStep: null, flagEvidence: `${src}; rollout/step reads the same either way` };
  if (!allMultiples(e, n))
    return { ...base, alwaysUseTrainStep: false, flagEvidence: `${src}; rollout/step values are not all multiples of N, so they are rollout ids` };
  throw new Error(
    `run ${run.runId} (round ${run.round}): cannot decide how rollout/step was logged (${src}): ` +
      `its rollout/step values ${describeRaw(e)} are all multiples of N = ${n}, so they fit both ` +
      `rollout_id (without --wandb-always-use-train-step) and rollout_id * ${n} (with it${from === null ? "" : `; run ${from.runId} was read ${from.alwaysUseTrainStep ? "with" : "without"} it`}). ` +
      `Pass alwaysUseTrainStep for this run (CLI: --always-use-train-step ${run.runId}=true|false)`,
  );
}

function describeRaw(e: RunEvidence): string {
  const R = e.rawRollouts;
  if (R.length === 0) return "(none)";
  const head = Array.from(R.subarray(0, 4)).join(", ");
  return R.length > 4 ? `${head}, ... (${R.length} values, last ${R[R.length - 1]})` : head;
}

function describe(e: RunEvidence): string {
  const T = e.trainSteps;
  const R = e.rawRollouts;
  const t = T.length ? `train/step ${T[0]}..${T[T.length - 1]}` : "no train/step";
  const r = R.length ? `rollout/step ${R[0]}..${R[R.length - 1]}` : "no rollout/step";
  return `run ${e.scan.run.runId} (round ${e.scan.run.round}; ${t}, ${r})`;
}

function reading(s: Score): string {
  return `N = ${s.n} with rollout/step = ${s.flag ? `rollout_id * ${s.n} (--wandb-always-use-train-step)` : "rollout_id"}`;
}

function undecidedError(e: RunEvidence, a: Score, b: Score): Error {
  return new Error(
    `cannot decide the axes of ${describe(e)}: ${reading(a)} and ${reading(b)} both leave ${a.order} order contradiction(s) ` +
      `and ${a.gaps} gap(s) but give different rollout ids. Pass n and alwaysUseTrainStep for this run ` +
      `(CLI: --n ${e.scan.run.runId}=N --always-use-train-step ${e.scan.run.runId}=true|false)`,
  );
}

function orderError(e: RunEvidence, s: Score): Error {
  let i = 0;
  while (i < e.evT.length && Math.floor(e.evT[i] / s.n) === toRollout(e.evA[i], s.n, s.flag)) i++;
  const t = e.evT[i];
  const a = toRollout(e.evA[i], s.n, s.flag);
  const fits = a > 0 ? `, which fits N = ${Math.floor(t / a)}` : "";
  return new Error(
    `N (updates per rollout batch) changes within run ${e.scan.run.runId} (round ${e.scan.run.round}): ` +
      `train/step ${t} (_step ${e.scan.historySteps[e.evRow[i]]}) was logged between the trainer rows of rollout ${a}${fits}, ` +
      `but the best reading, ${reading(s)}, puts it in rollout ${Math.floor(t / s.n)}; ` +
      `slime's train/step = rollout_id * N + step_id is then not one axis`,
  );
}
