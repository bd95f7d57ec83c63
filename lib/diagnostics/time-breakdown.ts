/**
 * Where a rollout batch's time goes: per round, the mean of every `perf/*_time` timer found, with a
 * total and each timer's share, and the rollout batches whose trainer perf row is absent. Missing
 * timers are reported, never filled with 0: a timer logged in some batches only (e.g.
 * perf/save_model_time at checkpoints) is averaged over the batches that logged it (see its `n`).
 *
 * Reading rule: slime's timers nest (perf/train_time contains perf/actor_train_time, perf/log_probs_time
 * and others; perf/step_time = train_wait + train), so the default total, the sum of all timer means,
 * over-counts nested time: it is a basis for `share`, not wall time per batch. Pass a timer as `total`
 * (e.g. the trainer's step time) for shares of that timer. Timings describe one machine and its
 * scheduling; they miss validation, start-up and idle time.
 */
import type { AlignedRuns, Reporter } from "../types";
import { METRICS, metricByKey, type MetricSpec } from "../schema/slime-metrics";
import { profileOfAligned } from "../registry/profiles";
import { describeRollout } from "./record-label";
import { collectNotes, MeanAccumulator, nonFiniteMessage, type MeanResult } from "./round-mean";
import { roundIndex, rolloutRoundPosition } from "./round-index";
import { keysOf } from "../values/compact-values";

/** One timer's mean in one round. */
export interface TimeEntry {
  /** The `perf/*_time` key. */
  key: string;
  /** Schema entry when the schema describes the key (e.g. perf/rollout_time), else undefined. */
  metric: MetricSpec | undefined;
  /** Mean seconds per rollout batch, over the batches that logged the timer. */
  time: MeanResult;
  /** time.mean / total.value; null when either is missing or the total is 0. */
  share: number | null;
}

/** The basis of the shares of one row. */
export interface TimeTotal {
  /** "sum" (of every timer mean of the row) or the timer key used as total. */
  basis: string;
  /** Seconds; null when a timer mean it needs is missing (see note). */
  value: number | null;
  note: string | null;
}

/** Timers of one round (or of all rounds). */
export interface TimeBreakdownRow {
  round: string;
  runId: string | null;
  rollouts: number;
  /** One entry per timer key found anywhere, in `keys` order. */
  entries: TimeEntry[];
  total: TimeTotal;
}

/**
 * A rollout batch without the trainer's perf row: it has none of the trainer's timers (every timer
 * found except the rollout manager's perf/rollout_time).
 */
export interface MissingPerfRollout {
  runId: string;
  round: string;
  rollout: number;
  historySteps: number[];
  /** Timer keys found in other batches but absent here, sorted. */
  missingKeys: string[];
}

/** Per-round timer means, totals, shares and missing timers. */
export interface TimeBreakdown {
  /** Every `perf/*_time` key found in any rollout batch, sorted. */
  keys: string[];
  rows: TimeBreakdownRow[];
  all: TimeBreakdownRow;
  /** Batches whose trainer perf row is absent, in record order. */
  missingTrainerPerf: MissingPerfRollout[];
  notes: string[];
}

/** Options of {@link timeBreakdown}. */
export interface TimeBreakdownOptions {
  /** Share basis: "sum" (default; sum of every timer mean) or one `perf/*_time` key found in the data. */
  total?: string;
  /** Receives one warning per excluded NaN / ±Infinity value. */
  reporter?: Reporter;
}

const ROLLOUTS = "rollout batches";

/**
 * Mean of every `perf/*_time` timer per round and overall, with total, share and missing timers.
 * @example timeBreakdown(aligned, { total: "perf/step_time" }).rows[0].entries.map((e) => [e.key, e.share])
 */
export function timeBreakdown(aligned: AlignedRuns, opts: TimeBreakdownOptions = {}): TimeBreakdown {
  const basis = opts.total ?? "sum";
  const profile = profileOfAligned(aligned);
  const isPerfTimeKey = profile.timers.isTimer;
  if (basis !== "sum" && !isPerfTimeKey(basis)) throw new Error(`invalid total: ${basis}`);
  const warn = opts.reporter?.warn?.bind(opts.reporter);
  const index = roundIndex(aligned);
  const R = index.rounds.length;

  // Keys are discovered while reading; each key's accumulators are made on first sight.
  const keyIdx = new Map<string, number>(); // -1: not a timer
  const keys: string[] = [];
  const accs: MeanAccumulator[][] = []; // accs[key][round slot]; slot R = all rounds
  const rollouts = new Array<number>(R + 1).fill(0);
  // slime: the rollout manager's timer; all others are the trainer's (its perf row). Other frameworks log every timer in the step's row.
  const rolloutKey = profile.axis.kind === "slime" ? METRICS.rolloutTime.key : null;
  const trainerTimers = new Int32Array(aligned.rollouts.length); // trainer timers each batch has
  for (let j = 0; j < aligned.rollouts.length; j++) {
    const r = aligned.rollouts[j];
    const i = rolloutRoundPosition(index, r);
    rollouts[i]++;
    const values = r.values;
    for (const k of keysOf(values)) {
      let x = keyIdx.get(k);
      if (x === undefined) {
        x = isPerfTimeKey(k) ? keys.length : -1;
        keyIdx.set(k, x);
        if (x >= 0) {
          keys.push(k);
          accs.push(Array.from({ length: R + 1 }, () => new MeanAccumulator()));
        }
      }
      if (x < 0) continue;
      if (k !== rolloutKey) trainerTimers[j]++;
      const v = values[k];
      accs[x][R].add(v);
      if (!accs[x][i].add(v) && warn) warn(nonFiniteMessage(describeRollout(r), k, v));
    }
  }
  rollouts[R] = rollouts.reduce((a, b) => a + b, 0);
  if (basis !== "sum" && !keyIdx.has(basis))
    throw new Error(`invalid total: ${basis} (no rollout batch has it; timers found: ${[...keys].sort().join(", ") || "none"})`);

  const order = keys.map((_, x) => x).sort((a, b) => (keys[a] < keys[b] ? -1 : keys[a] > keys[b] ? 1 : 0));
  const sortedKeys = order.map((x) => keys[x]);

  // Only batches without any trainer timer are read again, to name what they lack.
  const missing: MissingPerfRollout[] = [];
  const anyTrainerTimer = rolloutKey !== null && sortedKeys.some((k) => k !== rolloutKey);
  for (let j = 0; anyTrainerTimer && j < trainerTimers.length; j++) {
    if (trainerTimers[j] > 0) continue;
    const r = aligned.rollouts[j];
    const missingKeys = sortedKeys.filter((k) => r.values[k] === undefined);
    missing.push({ runId: r.runId, round: r.round, rollout: r.rollout, historySteps: r.historySteps, missingKeys });
  }

  const row = (i: number): TimeBreakdownRow => {
    const round = i === R ? null : index.rounds[i];
    const where = round === null ? "all rounds" : `round ${round}`;
    const entries = order.map((x): TimeEntry => {
      const acc = accs[x][i];
      // Batches that never had the key were not seen by the accumulator: count them now.
      acc.missing = rollouts[i] - acc.n - acc.nonFinite;
      return { key: keys[x], metric: metricByKey(keys[x]), time: acc.result(round, ROLLOUTS, keys[x]), share: null };
    });
    const total = totalOf(entries, basis, where);
    if (total.value !== null && total.value !== 0) for (const e of entries) e.share = e.time.mean === null ? null : e.time.mean / total.value;
    return { round: round ?? "all", runId: round === null ? null : index.runIds[i], rollouts: rollouts[i], entries, total };
  };
  const rows = index.rounds.map((_, i) => row(i));
  const all = row(R);

  const notes = collectNotes([...rows, all].flatMap((r) => r.entries.map((e) => e.time)));
  for (const r of [...rows, all]) if (r.total.note !== null) notes.push(r.total.note);
  for (const [i, round] of index.rounds.entries()) {
    const lacking = missing.filter((m) => m.round === round).map((m) => m.rollout);
    if (lacking.length)
      notes.push(`round ${round}: ${lacking.length} of ${rollouts[i]} rollout batches lack the trainer perf row (rollout ${lacking.join(", ")})`);
  }
  if (rolloutKey !== null && !anyTrainerTimer && rollouts[R] > 0)
    notes.push(`no rollout batch has a trainer timer (a perf/*_time key other than ${rolloutKey})`);
  return { keys: sortedKeys, rows, all, missingTrainerPerf: missing, notes };
}

function totalOf(entries: TimeEntry[], basis: string, where: string): TimeTotal {
  if (entries.length === 0) return { basis, value: null, note: `${where}: no timers found` };
  if (basis !== "sum") {
    const e = entries.find((x) => x.key === basis) as TimeEntry;
    if (e.time.mean === null) return { basis, value: null, note: `${where}: total ${basis} has no mean; no shares` };
    return { basis, value: e.time.mean, note: e.time.mean === 0 ? `${where}: total ${basis} is 0; no shares` : null };
  }
  const lacking = entries.filter((e) => e.time.mean === null).map((e) => e.key);
  if (lacking.length) return { basis, value: null, note: `${where}: no total (sum) because ${lacking.join(", ")} has no mean; no shares` };
  let value = 0;
  for (const e of entries) value += e.time.mean as number;
  return { basis, value, note: value === 0 ? `${where}: total (sum) is 0; no shares` : null };
}
