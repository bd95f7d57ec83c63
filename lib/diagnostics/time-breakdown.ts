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
import { metricByKey } from "../registry/metric-lookup";
import type { FrameworkProfile } from "../registry/framework-profile";
import type { MetricSpec } from "../registry/metric-spec";
import { profileOfAligned } from "../registry/profiles";
import { describeRollout } from "./record-label";
import { collectNotes, MeanAccumulator, nonFiniteMessage, type MeanResult } from "./round-mean";
import { roundIndex, RoundSlot, rolloutRoundPosition, type RoundIndex } from "./round-index";
import { readValues, type ViewPlace } from "../values/compact-values";
import { BySequence, localViewPlace } from "../values/key-column";

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
  if (basis !== "sum" && !profile.timers.isTimer(basis)) throw new Error(`invalid total: ${basis}`);
  const index = roundIndex(aligned);
  const R = index.rounds.length;
  // A timer another process logs (slime's rollout manager); all others are the trainer's.
  const rolloutKey = profile.timers.separateTimer;
  const read = accumulateTimers(aligned, index, new TimerKeys(profile, R + 1), rolloutKey, opts.reporter);
  const { timers, rollouts } = read;
  if (basis !== "sum" && !timers.keyIdx.has(basis))
    throw new Error(`invalid total: ${basis} (no rollout batch has it; timers found: ${[...timers.keys].sort().join(", ") || "none"})`);

  const order = timers.keys.map((_, x) => x).sort((a, b) => (timers.keys[a] < timers.keys[b] ? -1 : timers.keys[a] > timers.keys[b] ? 1 : 0));
  const sortedKeys = order.map((x) => timers.keys[x]);
  const anyTrainerTimer = rolloutKey !== null && sortedKeys.some((k) => k !== rolloutKey);
  const missing = anyTrainerTimer ? batchesWithoutTrainerTimers(aligned, read.trainerTimers, sortedKeys) : [];
  const row = (i: number) => breakdownRow(index, timers, order, rollouts, basis, i);
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

/** What one pass over the rollout batches found: timers and their accumulators, batches per round slot, trainer timers per batch. */
interface TimerPass {
  timers: TimerKeys;
  /** Batches per round slot, the all slot last. */
  rollouts: number[];
  /** Trainer timers (every timer but the rollout manager's) each batch has. */
  trainerTimers: Int32Array;
}

/**
 * One pass over the rollout batches adding every timer value to its round slot's and the all slot's
 * accumulator; one warning per excluded non-finite value. Each batch's values are read straight from a
 * view's store (plain objects copied into `vals`): no getter call or boxed number per value.
 */
function accumulateTimers(aligned: AlignedRuns, index: RoundIndex, timers: TimerKeys, rolloutKey: string | null, reporter: Reporter | undefined): TimerPass {
  const warn = reporter?.warn?.bind(reporter);
  const R = index.rounds.length;
  const { accs } = timers;
  const rollouts = new Array<number>(R + 1).fill(0);
  const trainerTimers = new Int32Array(aligned.rollouts.length);
  const place: ViewPlace = { store: new Float64Array(0), at: 0, keys: [] };
  const isView = localViewPlace();
  const vals: number[] = [];
  const slot = new RoundSlot(index.position);
  for (let j = 0; j < aligned.rollouts.length; j++) {
    const r = aligned.rollouts[j];
    let i = slot.of(r.round);
    if (i < 0) i = rolloutRoundPosition(index, r);
    rollouts[i]++;
    const view = isView(r.values, place);
    const sequence = view ? place.keys : readValues(r.values, vals);
    const store = view ? place.store : vals;
    const at = view ? place.at : 0;
    const xs = timers.of(sequence, view);
    for (let p = 0; p < sequence.length; p++) {
      const x = xs[p];
      if (x < 0) continue;
      if (sequence[p] !== rolloutKey) trainerTimers[j]++;
      const v = store[at + p];
      accs[x][R].addNumber(v);
      if (!accs[x][i].addNumber(v) && warn) warn(nonFiniteMessage(describeRollout(r), sequence[p], v));
    }
  }
  rollouts[R] = rollouts.reduce((a, b) => a + b, 0);
  return { timers, rollouts, trainerTimers };
}

/** Only batches without any trainer timer are read again, to name what they lack. */
function batchesWithoutTrainerTimers(aligned: AlignedRuns, trainerTimers: Int32Array, sortedKeys: readonly string[]): MissingPerfRollout[] {
  const missing: MissingPerfRollout[] = [];
  for (let j = 0; j < trainerTimers.length; j++) {
    if (trainerTimers[j] > 0) continue;
    const r = aligned.rollouts[j];
    const missingKeys = sortedKeys.filter((k) => r.values[k] === undefined);
    missing.push({ runId: r.runId, round: r.round, rollout: r.rollout, historySteps: r.historySteps, missingKeys });
  }
  return missing;
}

/** Round slot i's row (i = rounds.length: all rounds): each timer's mean in key order, the total and shares. */
function breakdownRow(index: RoundIndex, timers: TimerKeys, order: readonly number[], rollouts: readonly number[], basis: string, i: number): TimeBreakdownRow {
  const R = index.rounds.length;
  const round = i === R ? null : index.rounds[i];
  const where = round === null ? "all rounds" : `round ${round}`;
  const entries = order.map((x): TimeEntry => {
    const acc = timers.accs[x][i];
    // Batches that never had the key were not seen by the accumulator: count them now.
    acc.missing = rollouts[i] - acc.n - acc.nonFinite;
    return { key: timers.keys[x], metric: metricByKey(timers.profile, timers.keys[x]), time: acc.result(round, ROLLOUTS, timers.keys[x]), share: null };
  });
  const total = totalOf(entries, basis, where);
  if (total.value !== null && total.value !== 0) for (const e of entries) e.share = e.time.mean === null ? null : e.time.mean / total.value;
  return { round: round ?? "all", runId: round === null ? null : index.runIds[i], rollouts: rollouts[i], entries, total };
}

/**
 * Timer keys in the order first seen (in record and key order), their accumulators (per round slot,
 * the all slot last), and each key sequence's timer index per position (-1: not a timer), cached by
 * the identity of a view's shared key array.
 */
class TimerKeys {
  /** Every key seen: its timer index, -1 when it is not a timer. */
  readonly keyIdx = new Map<string, number>();
  readonly keys: string[] = [];
  /** accs[timer][round slot]. */
  readonly accs: MeanAccumulator[][] = [];
  /** Timer index per position of each view key sequence (plain objects' Object.keys are new each time: not cached). */
  private readonly bySequence = new BySequence((sequence) => this.indexOf(sequence));

  private readonly isTimer: (key: string) => boolean;
  constructor(
    /** The profile whose timers these are (their specs, their test). */
    readonly profile: FrameworkProfile,
    private readonly slots: number,
  ) {
    this.isTimer = profile.timers.isTimer;
  }

  /** Timer index per position of `sequence`; `shared` = a view's key array (cached by identity). */
  of(sequence: readonly string[], shared: boolean): Int32Array {
    return shared ? this.bySequence.of(sequence) : this.indexOf(sequence);
  }

  /** The timer index of each key of `sequence` (-1: not a timer); timers seen for the first time get accumulators. */
  private indexOf(sequence: readonly string[]): Int32Array {
    const index = new Int32Array(sequence.length);
    for (let p = 0; p < sequence.length; p++) {
      const k = sequence[p];
      let x = this.keyIdx.get(k);
      if (x === undefined) {
        x = this.isTimer(k) ? this.keys.length : -1;
        this.keyIdx.set(k, x);
        if (x >= 0) {
          this.keys.push(k);
          this.accs.push(Array.from({ length: this.slots }, () => new MeanAccumulator()));
        }
      }
      index[p] = x;
    }
    return index;
  }
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
