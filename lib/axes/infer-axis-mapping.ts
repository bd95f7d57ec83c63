/**
 * Infers N (optimizer updates per rollout batch) and r0 (first rollout id) from the step keys.
 *
 * Two kinds of evidence, both from explicit step keys:
 * - Key sets. With the run's distinct train/step values T and rollout ids R (rows carrying
 *   rollout/step), a candidate N leaves `|T| + N|R| - 2*mapped` coverage gaps, where `mapped` counts
 *   the updates whose rollout floor(t/N) is in R: updates without a rollout plus missing update slots.
 *   The true N leaves only the gaps the data really has; a constant-N run without gaps leaves none.
 * - Trainer row order. The trainer logs, one rollout at a time, its rollout row, the N update rows,
 *   then its perf row, so an update row lies between the trainer rollout row and the trainer perf row
 *   of its own rollout. Where both neighbours name the same rollout a, floor(t/N) must equal a (a run
 *   without any trainer perf rows, or without any trainer rollout rows, uses the one neighbour it has). Row order is used only as this evidence, never as an axis. Skipped for runs with
 *   critic rows (a critic trainer logs its own rows in between).
 *
 * N is the candidate with the fewest order contradictions, then the fewest key-set gaps, summed over
 * runs. Errors: a run whose own rows contradict the chosen N (N changes within the run), a run that
 * fits another N exactly (N differs between runs), or no run with both update and rollout rows.
 */
import type { AxisMapping, RunHistory } from "../types";
import { makeAxisMapping } from "./axis-formulas";
import { CODE_OPTIMIZER_UPDATE, CODE_TRAINER_PERF, CODE_TRAINER_ROLLOUT } from "./key-flags";
import { rolloutIdsOf, scanRun, trainStepsOf, type RunScan } from "./scan-runs";

/** Options of {@link inferAxisMapping}. */
export interface InferAxisMappingOptions {
  /** Force N instead of inferring it (the trainer-order check still runs). Default: inferred. */
  n?: number;
}

/** What one run says about N. */
interface RunEvidence {
  scan: RunScan;
  /** Distinct sorted train/step of optimizer-update rows. */
  trainSteps: Float64Array;
  /** Distinct sorted rollout ids of rollout rows. */
  rolloutIds: Float64Array;
  /** Order evidence: update i (train/step evT[i], row evRow[i]) lies between trainer rows of rollout evA[i]. */
  evT: Float64Array;
  evA: Float64Array;
  evRow: Int32Array;
}

/**
 * The axis mapping of a set of runs (N and r0 with their formulas); throws when N is not constant.
 * @example inferAxisMapping(runs) // { n: 2, r0: 1, formulas: { update: "update = train/step - 2*1 + 1", ... } }
 */
export function inferAxisMapping(runs: RunHistory[], opts: InferAxisMappingOptions = {}): AxisMapping {
  return inferAxisMappingFromScans(runs.map(scanRun), opts);
}

/** Same as {@link inferAxisMapping} on runs already classified (used by alignRuns). */
export function inferAxisMappingFromScans(scans: RunScan[], opts: InferAxisMappingOptions = {}): AxisMapping {
  const forced = opts.n;
  if (forced !== undefined && !(Number.isInteger(forced) && forced >= 1)) throw new Error(`invalid n: ${forced}`);
  const evidence = scans.map(runEvidence);
  const n = forced ?? chooseN(evidence);
  for (const e of evidence) {
    const bad = firstOrderContradiction(e, n);
    if (bad >= 0) throw orderError(e, n, bad, forced !== undefined);
  }
  let r0 = Infinity;
  for (const e of evidence) {
    if (e.rolloutIds.length > 0) r0 = Math.min(r0, e.rolloutIds[0]);
    if (e.trainSteps.length > 0) r0 = Math.min(r0, Math.floor(e.trainSteps[0] / n));
  }
  if (r0 === Infinity) {
    throw new Error("cannot infer the axes: no run has optimizer-update rows (train/step) or rollout rows (rollout/step)");
  }
  return makeAxisMapping(n, r0);
}

function runEvidence(scan: RunScan): RunEvidence {
  // Local copies: imported bindings are getter calls under tsx (see key-flags.ts).
  const UPDATE = CODE_OPTIMIZER_UPDATE;
  const TRAINER_ROLLOUT = CODE_TRAINER_ROLLOUT;
  const TRAINER_PERF = CODE_TRAINER_PERF;
  const { codes, steps } = scan;
  const len = codes.length;
  const withOrder = scan.counts["critic-update"] === 0 && scan.counts["optimizer-update"] > 0;
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
    rolloutIds: rolloutIdsOf(scan),
    evT: evT.subarray(0, nEv),
    evA: evA.subarray(0, nEv),
    evRow: evRow.subarray(0, nEv),
  };
}

/** Coverage gaps N leaves in the run's key sets: updates without rollout + missing update slots. */
function gapCost(e: RunEvidence, n: number): number {
  const T = e.trainSteps;
  const R = e.rolloutIds;
  let j = 0;
  let mapped = 0;
  for (let i = 0; i < T.length; i++) {
    const r = Math.floor(T[i] / n);
    while (j < R.length && R[j] < r) j++;
    if (j < R.length && R[j] === r) mapped++;
  }
  return T.length + n * R.length - 2 * mapped;
}

/** Updates whose trainer-row neighbours name another rollout than floor(t/N). */
function orderCost(e: RunEvidence, n: number): number {
  let c = 0;
  for (let i = 0; i < e.evT.length; i++) if (Math.floor(e.evT[i] / n) !== e.evA[i]) c++;
  return c;
}

function firstOrderContradiction(e: RunEvidence, n: number): number {
  for (let i = 0; i < e.evT.length; i++) if (Math.floor(e.evT[i] / n) !== e.evA[i]) return i;
  return -1;
}

/** Candidate N values worth scoring for one run: integers around simple estimates. */
function candidates(e: RunEvidence, out: Set<number>): void {
  const T = e.trainSteps;
  const R = e.rolloutIds;
  const est: number[] = [];
  if (T.length > 0 && R.length > 0) {
    const tmin = T[0];
    const tmax = T[T.length - 1];
    const rmin = R[0];
    const rmax = R[R.length - 1];
    est.push(T.length / R.length, (tmax + 1) / (rmax + 1), (tmax - tmin + 1) / (rmax - rmin + 1));
    if (rmin > 0) est.push(tmin / rmin);
  }
  // Order evidence: floor(t/N) = a holds for N up to floor(t/a); take the first and last pairs with a > 0.
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
}

function chooseN(evidence: RunEvidence[]): number {
  const usable = evidence.filter((e) => e.trainSteps.length > 0 && (e.rolloutIds.length > 0 || e.evT.length > 0));
  if (usable.length === 0) {
    throw new Error(
      "cannot infer N (optimizer updates per rollout batch): no run has both optimizer-update rows (train/step) and rollout rows (rollout/step); pass the n option",
    );
  }
  const cand = new Set<number>();
  for (const e of usable) candidates(e, cand);
  const ns = [...cand].sort((a, b) => a - b);
  const order = usable.map((e) => ns.map((n) => orderCost(e, n)));
  const gaps = usable.map((e) => ns.map((n) => gapCost(e, n)));
  let best = 0;
  let bestOrder = Infinity;
  let bestGaps = Infinity;
  for (let k = 0; k < ns.length; k++) {
    let o = 0;
    let g = 0;
    for (let u = 0; u < usable.length; u++) {
      o += order[u][k];
      g += gaps[u][k];
    }
    if (o < bestOrder || (o === bestOrder && g < bestGaps)) {
      best = k;
      bestOrder = o;
      bestGaps = g;
    }
  }
  const n = ns[best];
  for (let u = 0; u < usable.length; u++) {
    const e = usable[u];
    // A run whose own row order is consistent with another N, but not with the chosen one.
    if (order[u][best] > 0) {
      const own = ns.findIndex((_, k) => order[u][k] === 0);
      if (own >= 0) throw betweenRunsError(usable, order, gaps, ns, best, u, ns[own]);
      continue; // contradicts every candidate: reported by the order check as a change within the run
    }
    // Without order evidence: a run that fits another N exactly while the chosen N leaves gaps.
    if (e.evT.length === 0 && gaps[u][best] > 0) {
      const exact = ns.findIndex((_, k) => gaps[u][k] === 0);
      if (exact >= 0) throw betweenRunsError(usable, order, gaps, ns, best, u, ns[exact]);
    }
  }
  return n;
}

function describe(e: RunEvidence): string {
  const T = e.trainSteps;
  const R = e.rolloutIds;
  const t = T.length ? `train/step ${T[0]}..${T[T.length - 1]}` : "no train/step";
  const r = R.length ? `rollout/step ${R[0]}..${R[R.length - 1]}` : "no rollout/step";
  return `run ${e.scan.run.runId} (round ${e.scan.run.round}; ${t}, ${r})`;
}

function betweenRunsError(
  usable: RunEvidence[],
  order: number[][],
  gaps: number[][],
  ns: number[],
  best: number,
  u: number,
  other: number,
): Error {
  const ref = usable.findIndex((_, v) => v !== u && order[v][best] === 0 && gaps[v][best] === 0);
  const refText = ref >= 0 ? `${describe(usable[ref])} fits N = ${ns[best]}` : `the other runs fit N = ${ns[best]} best`;
  const e = usable[u];
  return new Error(
    `N (updates per rollout batch) differs between runs: ${refText}, but ${describe(e)} fits N = ${other} ` +
      `(first train/step ${e.trainSteps[0]}); slime's train/step = rollout_id * N + step_id has no offset, so runs with ` +
      `different N cannot share one update axis. Align them separately, or pass the n option if N is known`,
  );
}

function orderError(e: RunEvidence, n: number, i: number, forced: boolean): Error {
  const t = e.evT[i];
  const a = e.evA[i];
  const row = e.scan.run.rows[e.evRow[i]];
  const fits = a > 0 ? `, which fits N = ${Math.floor(t / a)}` : "";
  return new Error(
    `N (updates per rollout batch) changes within run ${e.scan.run.runId} (round ${e.scan.run.round}): ` +
      `train/step ${t} (_step ${row._step}) was logged between the trainer rows of rollout ${a}${fits}, ` +
      `but N = ${n} (${forced ? "given" : "inferred"}) puts it in rollout ${Math.floor(t / n)}; ` +
      `slime's train/step = rollout_id * N + step_id is then not one axis`,
  );
}
