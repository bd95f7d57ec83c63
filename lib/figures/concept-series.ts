/**
 * The figure of a registry concept for the runs' framework: per optimizer update when the framework
 * logs updates (slime), else per record (training step, logged step), through the profile's key; or
 * the reason the framework has no such series.
 */
import type { AlignedRuns } from "../types";
import type { ConceptId } from "../registry/concepts";
import { absentReason, metricOf } from "../registry/framework-profile";
import { metricOfAligned, profileOfAligned } from "../registry/profiles";
import type { MetricSpec } from "../registry/metric-spec";
import type { Figure } from "./figure";
import { rolloutSeriesFigure } from "./rollout-series";
import { updateSeriesFigure } from "./update-series";

/** Options of {@link conceptSeriesFigure}. */
export interface ConceptSeriesOptions {
  /** Mark exact zeros (per update, or per record: a logged mean of exact zeros is exact zeros). */
  markZero?: boolean;
  /** Min/max band concepts (per-record series only). */
  band?: { min: ConceptId; max: ConceptId };
  yTickFormat?: string;
}

/** A concept's series figure and the metric it plots, or why there is none. */
export type ConceptSeries = { figure: Figure; metric: MetricSpec; over: string } | { absent: string };

/**
 * The concept's series for the runs' framework.
 * @example conceptSeriesFigure(aligned, "entropy") // per update (slime) or per training step (verl)
 */
export function conceptSeriesFigure(aligned: AlignedRuns, concept: ConceptId, options: ConceptSeriesOptions = {}): ConceptSeries {
  const profile = profileOfAligned(aligned);
  const metric = metricOf(profile, concept);
  if (metric === null) return { absent: absentReason(profile, concept)! };
  const records = metric.grain === "update" ? aligned.updates : aligned.rollouts;
  if (!records.some((r) => metric.key in r.values)) return { absent: `no record of these ${profile.label} runs has ${metric.key}` };
  // The note under the figure reads the rule the runs' flags make hold.
  const meant = metricOfAligned(aligned, concept);
  if (metric.grain === "update")
    return { figure: updateSeriesFigure(aligned, metric.key, { markZero: options.markZero }), metric: meant, over: "optimizer updates" };
  const min = options.band ? metricOf(profile, options.band.min) : null;
  const max = options.band ? metricOf(profile, options.band.max) : null;
  const band = min !== null && max !== null && records.some((r) => min.key in r.values && max.key in r.values) ? { min: min.key, max: max.key } : undefined;
  return {
    figure: rolloutSeriesFigure(aligned, metric.key, { band, yTickFormat: options.yTickFormat, markZero: options.markZero }),
    metric: meant,
    over: profile.recordNoun,
  };
}
