/**
 * The bootstrap intervals of a comparison as jobs: each names its values and its random streams, so
 * it gives the same interval on any thread. compareArms asks an {@link IntervalSource} for each
 * interval; computing them here is the default, and a comparison on worker threads first records
 * the jobs (a pass without bootstrap), computes them on the threads, then replays the results in the
 * same order (compare-on-threads.ts).
 */
import { armIntervals, type ArmIntervals, type Interval } from "./bootstrap";
import { improvementInterval } from "./probability-of-improvement";
import { randomStream } from "./seeded-random";

/** One interval to compute: an arm's mean and IQM intervals, or a P(improvement) interval. */
export type IntervalJob =
  | { kind: "arm"; values: number[]; stream: string; seed: number; resamples: number }
  | { kind: "improvement"; better: number[]; worse: number[]; streams: [string, string]; seed: number; resamples: number };

/** A job's interval(s); null when a side has no value. */
export type IntervalResult = ArmIntervals | Interval | null;

/** Computes one job (on whichever thread runs it). */
export function runIntervalJob(job: IntervalJob): IntervalResult {
  if (job.kind === "arm") return armIntervals(job.values, randomStream(job.seed, job.stream), job.resamples);
  return improvementInterval(job.better, job.worse, randomStream(job.seed, job.streams[0]), randomStream(job.seed, job.streams[1]), job.resamples);
}

/** Where compareArms gets its intervals. */
export interface IntervalSource {
  arm(job: Extract<IntervalJob, { kind: "arm" }>): ArmIntervals | null;
  improvement(job: Extract<IntervalJob, { kind: "improvement" }>): Interval | null;
}

/** Every interval computed here, when asked. */
export const INTERVALS_HERE: IntervalSource = {
  arm: (job) => runIntervalJob(job) as ArmIntervals | null,
  improvement: (job) => runIntervalJob(job) as Interval | null,
};

/** Records the jobs asked for and answers with placeholders (the rows of this pass are thrown away). */
export class RecordedJobs implements IntervalSource {
  readonly jobs: IntervalJob[] = [];

  arm(job: Extract<IntervalJob, { kind: "arm" }>): ArmIntervals | null {
    this.jobs.push(job);
    return job.values.length === 0 ? null : { mean: { low: Number.NaN, high: Number.NaN }, iqm: { low: Number.NaN, high: Number.NaN } };
  }

  improvement(job: Extract<IntervalJob, { kind: "improvement" }>): Interval | null {
    this.jobs.push(job);
    return job.better.length === 0 || job.worse.length === 0 ? null : { low: Number.NaN, high: Number.NaN };
  }
}

/** Answers with computed results, in the order the jobs were recorded; throws if asked out of order. */
export class ReplayedJobs implements IntervalSource {
  private next = 0;

  constructor(
    private readonly jobs: readonly IntervalJob[],
    private readonly results: readonly IntervalResult[],
  ) {}

  private take(job: IntervalJob): IntervalResult {
    const at = this.next++;
    const recorded = this.jobs[at];
    const same =
      recorded !== undefined &&
      recorded.kind === job.kind &&
      (job.kind === "arm" ? job.stream === (recorded as typeof job).stream : job.streams.join() === (recorded as typeof job).streams.join());
    if (!same) throw new Error(`invalid replay: interval ${at} was not recorded as asked (the comparison's passes differ)`);
    return this.results[at];
  }

  arm(job: Extract<IntervalJob, { kind: "arm" }>): ArmIntervals | null {
    return this.take(job) as ArmIntervals | null;
  }

  improvement(job: Extract<IntervalJob, { kind: "improvement" }>): Interval | null {
    return this.take(job) as Interval | null;
  }
}
