/**
 * The train/inference mismatch keys a run set logs, read through its profile's declarations
 * (lib/registry/mismatch.ts): per declared metric, one point per rollout batch (or training step)
 * and the round means. Keys of optimizer updates (slime's train/*) are averaged over the batch's
 * updates for the point; round means are over the records of the metric's grain, as every round
 * table takes them (lib/diagnostics/round-mean.ts). A derived value (`key - minus`) is read only
 * from records holding both keys.
 */
import type { AlignedRuns, Reporter, AxisRecord, UpdateRecord } from "../types";
import { MISMATCH_QUANTITY_IDS, mismatchMetricName, mismatchMetricsOf, type MismatchMetric, type MismatchQuantityId } from "../registry/mismatch";
import type { FrameworkProfile } from "../registry/framework-profile";
import { profileOfAligned } from "../registry/profiles";
import { forEachBlock, type KeyColumn } from "../values/key-column";
import { describeRollout, describeUpdate } from "./record-label";
import { roundIndex, RoundSlot, rolloutRoundPosition, updateRoundPosition } from "./round-index";
import { MeanAccumulator, nonFiniteMessage, type MeanResult } from "./round-mean";

/** One rollout batch (or training step) of a mismatch series. */
export interface MismatchPoint {
  round: string;
  runId: string;
  /** Rollout id (slime, miles) or training step (step profiles). */
  x: number;
  /** The record's value, or the mean over the batch's optimizer updates that logged it. */
  value: number;
}

/** One round's mean of a mismatch metric. */
export interface MismatchRoundMean {
  round: string;
  runId: string | null;
  mean: MeanResult;
}

/** One declared metric that the run set logs. */
export interface MismatchSeries {
  quantity: MismatchQuantityId;
  metric: MismatchMetric;
  /** The key, or `key - minus`. */
  name: string;
  /** Finite points in round order, then by x. */
  points: MismatchPoint[];
  /** Every round of the run set, in order (a round without the key has a null mean and says why). */
  rounds: MismatchRoundMean[];
}

/** A declared metric no record of the run set holds: when the framework logs it. */
export interface MismatchNotLogged {
  quantity: MismatchQuantityId;
  name: string;
  when: string;
}

/** The mismatch metrics a run set logs, and the declared ones it does not. */
export interface MismatchSeriesSet {
  series: MismatchSeries[];
  notLogged: MismatchNotLogged[];
}

/**
 * Every declared mismatch metric of the runs' profile (or `profile`), read from the surviving records; one warning
 * per non-finite value left out (naming run, step and key).
 * @example mismatchSeries(aligned).series.map((s) => [s.name, s.rounds.map((r) => r.mean.mean)])
 */
export function mismatchSeries(aligned: AlignedRuns, opts: { reporter?: Reporter; profile?: FrameworkProfile } = {}): MismatchSeriesSet {
  const profile = opts.profile ?? profileOfAligned(aligned);
  const declared: { quantity: MismatchQuantityId; metric: MismatchMetric }[] = [];
  for (const quantity of MISMATCH_QUANTITY_IDS) for (const metric of mismatchMetricsOf(profile.mismatch, quantity)) declared.push({ quantity, metric });
  // One pass over the records per grain for all its metrics: the pass, not the arithmetic, is the time.
  const read = new Map<(typeof declared)[number], MismatchSeries | null>();
  for (const grain of ["update", "rollout"] as const) {
    const mine = declared.filter((d) => d.metric.grain === grain);
    readSeries(aligned, grain === "update", mine, opts.reporter).forEach((s, k) => read.set(mine[k], s));
  }
  const series: MismatchSeries[] = [];
  const notLogged: MismatchNotLogged[] = [];
  for (const d of declared) {
    const s = read.get(d)!;
    if (s === null) notLogged.push({ quantity: d.quantity, name: mismatchMetricName(d.metric), when: d.metric.when });
    else series.push(s);
  }
  return { series, notLogged };
}

/** One metric being read: its round accumulators, points, and how many records held it. */
class SeriesReader {
  readonly accs: MeanAccumulator[];
  readonly points = new PointBuilder();
  readonly name: string;
  /** Non-finite values left out, said after the pass metric by metric (the order of one pass per metric). */
  readonly warnings: string[] = [];
  held = 0;
  constructor(
    readonly quantity: MismatchQuantityId,
    readonly metric: MismatchMetric,
    rounds: number,
    /** Its first column among the pass's columns (a derived value reads the next one too). */
    readonly col: number,
  ) {
    this.accs = Array.from({ length: rounds }, () => new MeanAccumulator());
    this.name = mismatchMetricName(metric);
  }
}

/** Metrics of one grain (optimizer updates or rollout records) read in one pass: their points and round means; null for a metric no record holds. */
function readSeries(
  aligned: AlignedRuns,
  byUpdate: boolean,
  metrics: readonly { quantity: MismatchQuantityId; metric: MismatchMetric }[],
  reporter: Reporter | undefined,
): (MismatchSeries | null)[] {
  if (metrics.length === 0) return [];
  const index = roundIndex(aligned);
  const records: readonly (UpdateRecord | AxisRecord)[] = byUpdate ? aligned.updates : aligned.rollouts;
  const lists: string[][] = [];
  const readers = metrics.map(({ quantity, metric }) => {
    const r = new SeriesReader(quantity, metric, index.rounds.length, lists.length);
    lists.push([metric.key]);
    if (metric.minus !== undefined) lists.push([metric.minus]);
    return r;
  });
  const slot = new RoundSlot(index.position);
  const describe = (r: UpdateRecord | AxisRecord) => (byUpdate ? describeUpdate(r as UpdateRecord, index.updateKey) : describeRollout(r as AxisRecord));
  forEachBlock(records, lists, (from, to, cols) => {
    for (let j = from; j < to; j++) {
      const r = records[j];
      let i = slot.of(r.round);
      if (i < 0) i = byUpdate ? updateRoundPosition(index, r as UpdateRecord) : rolloutRoundPosition(index, r as AxisRecord);
      const k = j - from;
      // An index, not for...of: this closure runs per record and its iterator was 30 MB of garbage at 10^6 updates.
      for (let m = 0; m < readers.length; m++) addValue(readers[m], cols, k, i, r, describe);
    }
  });
  for (const s of readers) for (const w of s.warnings) reporter?.warn?.(w);
  const noun = byUpdate ? "optimizer updates" : "records";
  return readers.map((s) => {
    if (s.held === 0) return null;
    const rounds = index.rounds.map((round, i) => ({ round, runId: index.runIds[i], mean: s.accs[i].result(round, noun, s.name) }));
    return { quantity: s.quantity, metric: s.metric, name: s.name, points: s.points.done(), rounds };
  });
}

/** Record k of the block into metric `s` (round position i): both keys of a derived value, or the one key. */
function addValue(
  s: SeriesReader,
  cols: readonly KeyColumn[],
  k: number,
  i: number,
  r: UpdateRecord | AxisRecord,
  describe: (r: UpdateRecord | AxisRecord) => string,
): void {
  const a = cols[s.col];
  const b = s.metric.minus === undefined ? null : cols[s.col + 1];
  if (a.found[k] === 0 || (b !== null && b.found[k] === 0)) {
    s.accs[i].missing++;
    return;
  }
  s.held++;
  const v = b === null ? a.values[k] : a.values[k] - b.values[k];
  if (!s.accs[i].addNumber(v)) {
    s.warnings.push(nonFiniteMessage(describe(r), s.name, v));
    return;
  }
  s.points.add(r.round, r.runId, r.rollout, v);
}

/** Points from records in order: consecutive records of one run and x (a batch's updates) become one point, their mean. */
class PointBuilder {
  private readonly out: MismatchPoint[] = [];
  private sum = 0;
  private n = 0;
  private last: { round: string; runId: string; x: number } | null = null;

  add(round: string, runId: string, x: number, v: number): void {
    const l = this.last;
    if (l !== null && l.round === round && l.runId === runId && l.x === x) {
      this.sum += v;
      this.n++;
      return;
    }
    this.flush();
    this.last = { round, runId, x };
    this.sum = v;
    this.n = 1;
  }

  done(): MismatchPoint[] {
    this.flush();
    return this.out;
  }

  private flush(): void {
    const l = this.last;
    if (l === null) return;
    // Fields named, not spread: a point per batch, and spreading was most of this series' time.
    this.out.push({ round: l.round, runId: l.runId, x: l.x, value: this.sum / this.n });
    this.last = null;
  }
}
