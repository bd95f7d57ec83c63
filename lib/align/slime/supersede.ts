/**
 * Superseding: which history rows a later logging of the same rollouts replaced.
 *
 * - Within a run (a W&B run resumed in place with `resume=allow` re-logs what it had logged before
 *   the crash): each writer logs its rows in a fixed order per rollout (manager: one row per rollout;
 *   trainer: rollout row(s), the N update rows, the perf row; critic: its update rows). A writer
 *   whose rollout id goes back, or that logs a slot of the current rollout a second time, restarted
 *   at that rollout b: its earlier rows of rollout b and later are replaced. Evals follow the manager
 *   (the same process), and are never restarts themselves (eval/step repeats by design). `_step`
 *   orders the rows of one writer; it is never an axis.
 * - Across rounds (a round resumed from a checkpoint older than the previous round's last rollout):
 *   a round that starts at rollout s replaces every record of earlier rounds from rollout s on. What
 *   the earlier round logged after s belongs to weights the restart discarded, whether or not the
 *   later round logged those rollouts again.
 * Internal to lib/align.
 */
import { CODE_CRITIC_UPDATE, CODE_EVAL, CODE_OPTIMIZER_UPDATE, CODE_ROLLOUT_MANAGER, CODE_TRAINER_PERF, CODE_TRAINER_ROLLOUT } from "./key-flags";
import type { RunScan } from "./scan-runs";

// Module-local copies for the per-row loops: imported bindings are getter calls under tsx (see key-flags.ts).
const CRITIC = CODE_CRITIC_UPDATE;
const EVAL = CODE_EVAL;
const UPDATE = CODE_OPTIMIZER_UPDATE;
const MANAGER = CODE_ROLLOUT_MANAGER;
const TRAINER_PERF = CODE_TRAINER_PERF;
const TRAINER_ROLLOUT = CODE_TRAINER_ROLLOUT;

/** Row is live. */
export const LIVE = -1;

/** Rollout id of every row of a run under its N and flag; NaN for rows without one. */
export function rowRollouts(scan: RunScan, n: number, flag: boolean | null): Float64Array {
  const { codes, steps } = scan;
  const out = new Float64Array(codes.length).fill(NaN);
  for (let i = 0; i < codes.length; i++) {
    const c = codes[i];
    const v = steps[i];
    if (v !== v) continue;
    if (c === UPDATE || c === CRITIC) out[i] = Math.floor(v / n);
    else out[i] = flag ? v / n : v;
  }
  return out;
}

/** One restart of one writer inside a run: at row `row`, the writer went back to rollout `rollout`. */
export interface Restart {
  row: number;
  rollout: number;
  writer: "rollout manager" | "trainer" | "critic";
}

/**
 * Marks the rows of a run replaced by a restart of their own writer: `by[i]` is set to `selfIndex`
 * for such rows (LIVE otherwise). A restart at rollout b replaces the writer's earlier rows of later
 * rollouts, and those of rollout b whose slot (rollout row, update position, perf row, eval) the
 * writer logs again after the restart. Returns the restarts found.
 */
export function supersedeWithinRun(scan: RunScan, rollouts: Float64Array, n: number, by: Int32Array, selfIndex: number): Restart[] {
  const { codes } = scan;
  const order = stepOrder(scan.historySteps);
  const slots = rowSlots(scan, rollouts, n);
  const restarts: Restart[] = [];
  const writers: [Restart["writer"], (c: number) => boolean][] = [
    ["rollout manager", (c) => c === MANAGER],
    ["trainer", (c) => c === TRAINER_ROLLOUT || c === UPDATE || c === TRAINER_PERF],
    ["critic", (c) => c === CRITIC],
  ];
  for (const [writer, mine] of writers) {
    const events: Restart[] = [];
    let prevId = -Infinity;
    let prevPhase = -1;
    const seen = new Set<number>();
    for (const i of order) {
      const c = codes[i];
      if (!mine(c)) continue;
      const id = rollouts[i];
      const slot = slots[i];
      const phase = slot >= 16 ? 8 : slot;
      if (id < prevId || (id === prevId && (phase < prevPhase || seen.has(slot)))) {
        events.push({ row: i, rollout: id, writer });
        seen.clear();
      } else if (id > prevId) seen.clear();
      seen.add(slot);
      prevId = id;
      prevPhase = phase;
    }
    if (events.length === 0) continue;
    const follows = writer === "rollout manager" ? (c: number) => mine(c) || c === EVAL : mine;
    markBefore(order, codes, rollouts, slots, events, follows, by, selfIndex);
    for (const e of events) restarts.push(e);
  }
  // Evals follow the trainer's restarts when there is no manager writer in the run.
  if (scan.counts["rollout-manager"] === 0) {
    const trainer = restarts.filter((r) => r.writer === "trainer");
    if (trainer.length > 0) markBefore(order, codes, rollouts, slots, trainer, (c) => c === EVAL, by, selfIndex);
  }
  return restarts;
}

/**
 * Marks rows of the kinds `follows` logged before a restart (in _step order): those of a later
 * rollout than the restart's, and those of its rollout whose slot is logged again after it.
 */
function markBefore(
  order: Int32Array,
  codes: Uint8Array,
  rollouts: Float64Array,
  slots: Float64Array,
  events: Restart[],
  follows: (c: number) => boolean,
  by: Int32Array,
  selfIndex: number,
): void {
  const pos = new Int32Array(order.length);
  order.forEach((i, k) => (pos[i] = k));
  // Slots of rollout b logged again after each restart (rows of the kinds `follows`, up to the next restart).
  const sorted = events.slice().sort((a, b) => pos[a.row] - pos[b.row]);
  const relogged = sorted.map(() => new Set<number>());
  for (let e = 0; e < sorted.length; e++) {
    const end = e + 1 < sorted.length ? pos[sorted[e + 1].row] : order.length;
    for (let k = pos[sorted[e].row]; k < end; k++) {
      const i = order[k];
      if (follows(codes[i]) && rollouts[i] === sorted[e].rollout) relogged[e].add(slots[i]);
    }
  }
  let minB = Infinity;
  const sameRollout = new Map<number, Set<number>>();
  let e = sorted.length - 1;
  for (let k = order.length - 1; k >= 0; k--) {
    const i = order[k];
    if (follows(codes[i]) && by[i] === LIVE) {
      const id = rollouts[i];
      if (id > minB || sameRollout.get(id)?.has(slots[i])) by[i] = selfIndex;
    }
    while (e >= 0 && pos[sorted[e].row] === k) {
      const b = sorted[e].rollout;
      if (b < minB) minB = b;
      let set = sameRollout.get(b);
      if (set === undefined) {
        set = new Set();
        sameRollout.set(b, set);
      }
      for (const slot of relogged[e]) set.add(slot);
      e--;
    }
  }
}

/** Slot of every row inside its rollout: manager 0, trainer rollout rows 1..7 by family, perf 9, update and critic rows 16 + position, eval 1000. */
function rowSlots(scan: RunScan, rollouts: Float64Array, n: number): Float64Array {
  const { codes, steps, families } = scan;
  const out = new Float64Array(codes.length);
  for (let i = 0; i < codes.length; i++) {
    const c = codes[i];
    if (c === UPDATE || c === CRITIC) out[i] = 16 + (steps[i] - rollouts[i] * n);
    else if (c === EVAL) out[i] = 1000;
    else out[i] = phaseOf(c, families[i]);
  }
  return out;
}

/** Position of a trainer row inside its rollout: rollout row(s) by family (RunScan.families), updates, perf last. */
function phaseOf(code: number, families: number): number {
  if (code === UPDATE) return 8;
  if (code === TRAINER_PERF) return 9;
  if (code !== TRAINER_ROLLOUT) return 0;
  return families;
}

/** Row indices in `_step` order (rows are normally stored in that order already). */
function stepOrder(historySteps: Float64Array): Int32Array {
  const order = new Int32Array(historySteps.length);
  let sorted = true;
  for (let i = 0; i < historySteps.length; i++) {
    order[i] = i;
    if (i > 0 && !(historySteps[i - 1] <= historySteps[i])) sorted = false;
  }
  if (!sorted) order.sort((a, b) => historySteps[a] - historySteps[b] || a - b);
  return order;
}

/**
 * Marks the rows of earlier runs replaced by later runs: a row of run j with rollout >= the first
 * rollout of a later run k is replaced by the last such k whose first rollout is at or below it.
 * `firsts[k]` is run k's first rollout (null: no rows); `by[j][i]` receives k.
 */
export function supersedeAcrossRuns(rollouts: Float64Array[], firsts: (number | null)[], by: Int32Array[]): void {
  for (let j = 0; j < rollouts.length; j++) {
    const later: { k: number; s: number }[] = [];
    for (let k = j + 1; k < firsts.length; k++) if (firsts[k] !== null) later.push({ k, s: firsts[k]! });
    if (later.length === 0) continue;
    let minS = Infinity;
    for (const l of later) minS = Math.min(minS, l.s);
    const ids = rollouts[j];
    const mark = by[j];
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i];
      if (!(id >= minS) || mark[i] !== LIVE) continue;
      let owner = -1;
      for (const l of later) if (l.s <= id) owner = l.k;
      mark[i] = owner;
    }
  }
}

/**
 * Updates before each run's first rollout in the surviving lineage: the N of rollout r is the N of
 * the last run (in round order) whose first rollout is at or below r. With one N for every run this
 * is N * (first - r0), so the display number is train/step - N*r0 + 1.
 */
export function updateBases(firsts: (number | null)[], ns: number[], r0: number): number[] {
  const points: { s: number; n: number }[] = [];
  for (let k = 0; k < firsts.length; k++) if (firsts[k] !== null) points.push({ s: firsts[k]!, n: ns[k] });
  // N in force from each distinct start on: the last run (in round order) starting at or below it.
  const starts = [...new Set(points.map((p) => p.s))].sort((a, b) => a - b);
  const nAt = starts.map((s) => {
    let n = points[0].n;
    for (const p of points) if (p.s <= s) n = p.n;
    return n;
  });
  const baseOf = (s: number): number => {
    let base = 0;
    let from = r0;
    let nCur = nAt.length > 0 ? nAt[0] : 1;
    for (let q = 0; q < starts.length && starts[q] < s; q++) {
      base += nCur * (Math.max(starts[q], from) - from);
      from = Math.max(starts[q], from);
      nCur = nAt[q];
    }
    return base + nCur * (s - from);
  };
  return firsts.map((s) => (s === null ? 0 : baseOf(s)));
}
