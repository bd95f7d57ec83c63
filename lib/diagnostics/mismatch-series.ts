/**
 * The train/inference mismatch keys a run set logs, read through its profile's declarations
 * (lib/registry/mismatch.ts): per declared metric, one point per rollout batch (or training step)
 * and the round means. Keys of optimizer updates (slime's train/*) are averaged over the batch's
 * updates for the point; round means are over the records of the metric's grain, as every round
 * table takes them (lib/diagnostics/round-mean.ts). A derived value (`key - minus`) is read only
 * from records holding both keys.
 */
import type { AlignedRuns, Reporter, RolloutRecord, UpdateRecord } from "../types";
import { MISMATCH_QUANTITY_IDS, mismatchMetricName, mismatchMetricsOf, type MismatchMetric, type MismatchQuantityId } from "../registry/mismatch";
import type { FrameworkProfile } from "../registry/framework-profile";
import { profileOfAligned } from "../registry/profiles";
import { forEachBlock } from "../values/key-column";
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
  const series: MismatchSeries[] = [];
  const notLogged: MismatchNotLogged[] = [];
  for (const quantity of MISMATCH_QUANTITY_IDS) {
    for (const metric of mismatchMetricsOf(profile.mismatch, quantity)) {
      const s = readSeries(aligned, quantity, metric, opts.reporter);
      if (s === null) notLogged.push({ quantity, name: mismatchMetricName(metric), when: metric.when });
      else series.push(s);
    }
  }
  return { series, notLogged };
}

/** One metric's points and round means; null when no record holds it. */
function readSeries(aligned: AlignedRuns, quantity: MismatchQuantityId, metric: MismatchMetric, reporter: Reporter | undefined): MismatchSeries | null {
  const index = roundIndex(aligned);
  const byUpdate = metric.grain === "update";
  const records: readonly (UpdateRecord | RolloutRecord)[] = byUpdate ? aligned.updates : aligned.rollouts;
  const accs = index.rounds.map(() => new MeanAccumulator());
  const slot = new RoundSlot(index.position);
  const name = mismatchMetricName(metric);
  const points = new PointBuilder();
  let held = 0;
  const lists = metric.minus === undefined ? [[metric.key]] : [[metric.key], [metric.minus]];
  forEachBlock(records, lists, (from, to, cols) => {
    for (let j = from; j < to; j++) {
      const r = records[j];
      let i = slot.of(r.round);
      if (i < 0) i = byUpdate ? updateRoundPosition(index, r as UpdateRecord) : rolloutRoundPosition(index, r as RolloutRecord);
      const k = j - from;
      // Both keys of a derived value, or the one key (no closure per record: this loop sees every update).
      const present = cols[0].found[k] !== 0 && (cols.length === 1 || cols[1].found[k] !== 0);
      if (!present) {
        accs[i].missing++;
        continue;
      }
      held++;
      const v = cols.length === 1 ? cols[0].values[k] : cols[0].values[k] - cols[1].values[k];
      if (!accs[i].addNumber(v)) {
        reporter?.warn?.(nonFiniteMessage(byUpdate ? describeUpdate(r as UpdateRecord) : describeRollout(r as RolloutRecord), name, v));
        continue;
      }
      points.add(r.round, r.runId, byUpdate ? (r as UpdateRecord).rollout : (r as RolloutRecord).rollout, v);
    }
  });
  if (held === 0) return null;
  const noun = byUpdate ? "optimizer updates" : "records";
  const rounds = index.rounds.map((round, i) => ({ round, runId: index.runIds[i], mean: accs[i].result(round, noun, name) }));
  return { quantity, metric, name, points: points.done(), rounds };
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
