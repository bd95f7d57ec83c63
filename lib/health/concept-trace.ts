/**
 * A concept's logged values per run, at the grain the framework logs it (single optimizer updates,
 * or one value per logged step, which TRL averages over logging_steps), and the streak logic the
 * concept rules share: a rule compares each value with a threshold (fixed, or set by the run's own
 * early window) and flags a run of consecutive logged values that cross it.
 */
import { metricOf, singular, type FrameworkProfile } from "../registry/framework-profile";
import type { ConceptId } from "../registry/concepts";
import type { AlignedRuns } from "../types";
import { forEachBlock } from "../values/key-column";
import { finiteMedian, flagOf, trailingMedian, type CheckFlag, type HealthHit } from "./flag-ranges";
import type { FlagWindow } from "./health-check";

/** One run's logged values of one key, in record order (records without the key left out). */
export interface ConceptTrace {
  runId: string;
  round: string;
  key: string;
  /** Display update numbers (update grain) or rollout ids / logged steps (per record). */
  xs: ArrayLike<number>;
  /** As logged: NaN and ±Infinity kept. */
  values: ArrayLike<number>;
}

/**
 * The concept's traces, one per run in order of first record. The check's `needs` guarantee that
 * the profile maps the concept; a run that never logs the key has no trace.
 */
export function conceptTraces(aligned: AlignedRuns, profile: FrameworkProfile, concept: ConceptId): ConceptTrace[] {
  const metric = metricOf(profile, concept);
  if (metric === null) return [];
  const byUpdate = metric.grain === "update";
  const records = byUpdate ? aligned.updates : aligned.rollouts;
  // Sized by the run's records (no value read for that), filled, then cut to what was logged: arrays
  // grown value by value left each smaller copy as garbage (10^6 values per concept at 10^6
  // updates), which only a full collection frees.
  const sizes = recordsPerRun(records);
  const traces = new Map<string, { trace: ConceptTrace; xs: Float64Array; values: Float64Array; n: number }>();
  forEachBlock(records, [metric.key], (from, to, [col]) => {
    for (let i = from; i < to; i++) {
      if (col.found[i - from] === 0) continue;
      const r = records[i];
      let t = traces.get(r.runId);
      if (t === undefined) {
        const size = sizes.get(r.runId)!;
        const xs = new Float64Array(size);
        const values = new Float64Array(size);
        t = { trace: { runId: r.runId, round: r.round, key: metric.key, xs, values }, xs, values, n: 0 };
        traces.set(r.runId, t);
      }
      t.xs[t.n] = byUpdate ? (r as (typeof aligned.updates)[number]).update : (r as (typeof aligned.rollouts)[number]).rollout;
      t.values[t.n++] = col.values[i - from];
    }
  });
  return [...traces.values()].map(({ trace, xs, values, n }) => ({ ...trace, xs: xs.subarray(0, n), values: values.subarray(0, n) }));
}

/** Records per run id (records come run by run: one Map update per run of equal ids). */
function recordsPerRun(records: readonly { runId: string }[]): Map<string, number> {
  const out = new Map<string, number>();
  let run: string | null = null;
  let n = 0;
  for (let i = 0; i < records.length; i++) {
    const id = records[i].runId;
    if (id !== run) {
      if (run !== null) out.set(run, (out.get(run) ?? 0) + n);
      run = id;
      n = 0;
    }
    n++;
  }
  if (run !== null) out.set(run, (out.get(run) ?? 0) + n);
  return out;
}

/** The grain in words for a rule's text: "per optimizer update", "per logged step, as logged", or "not logged by <framework>". */
export function grainText(profile: FrameworkProfile, concept: ConceptId): string {
  const metric = metricOf(profile, concept);
  // Rules put this in parentheses: an unmapped concept says so rather than leaving "()".
  if (metric === null) return `not logged by ${profile.label}`;
  return metric.grain === "update" ? "per optimizer update" : `per ${singular(profile.recordNoun)}, as logged`;
}

/** How a rule reads a trace: which values fire, and from which value on it may fire. */
export interface StreakRule {
  /** Logged values needed in a row (consecutive in the trace). */
  minLength: number;
  /** Values of the early window: the baseline's values, which never fire themselves (0 = no baseline). */
  early: number;
  /**
   * The threshold a value is compared with, given the run's baseline (the median of its early window;
   * null with early 0) and the finite values logged before it; null = the value cannot be judged.
   */
  threshold(baseline: number | null, before: readonly number[]): number | null;
  /** True when a value crosses the threshold (non-finite values never do). */
  fires(value: number, threshold: number): boolean;
  side: FlagWindow["side"];
  /** Keep the threshold the streak's first value crossed for the rest of the streak (a jump is judged against the values before it, not against itself). */
  holdThreshold?: boolean;
  /**
   * How many of the latest finite values `threshold` reads in `before` (its trailing window; 0 for a
   * rule that reads none). Default: all of them. Bounded, `before` stays a few windows long instead
   * of a copy of the run (8 MB per rule and run at 10^6 updates, garbage only a full collection frees).
   */
  trailing?: number;
}

/** What {@link streakFlags} returns: the flags and, per run, the baseline and threshold used. */
export interface StreakOutcome {
  flags: CheckFlag[];
  /** One line per run that could be judged, e.g. `R0 run-1: early median 3.07 (logged 1-4), threshold 1.84`. */
  evidence: string[];
  /** Runs too short for the early window, or whose baseline allows no threshold. */
  unjudged: string[];
}

/**
 * Runs of at least `minLength` consecutive logged values that fire, after the early window, per
 * trace. A flag is raised at its minLength-th value (`raisedAt`); it carries the window.
 */
export function streakFlags(traces: readonly ConceptTrace[], rule: StreakRule): StreakOutcome {
  const out: StreakOutcome = { flags: [], evidence: [], unjudged: [] };
  for (const t of traces) {
    const judged = judgeTrace(t, rule);
    if (judged === null) {
      out.unjudged.push(`${t.round} ${t.runId}`);
      continue;
    }
    out.evidence.push(judged.evidence);
    out.flags.push(...judged.flags);
  }
  return out;
}

function judgeTrace(t: ConceptTrace, rule: StreakRule): { flags: CheckFlag[]; evidence: string } | null {
  if (t.values.length <= rule.early) return null;
  const baseline = rule.early > 0 ? finiteMedian(Array.prototype.slice.call(t.values, 0, rule.early) as number[]) : null;
  if (rule.early > 0 && baseline === null) return null;
  const base = baseline === null ? {} : { baseline: { value: baseline, first: t.xs[0], last: t.xs[rule.early - 1] } };
  const flags: CheckFlag[] = [];
  const keep = rule.trailing ?? Number.POSITIVE_INFINITY;
  const before: number[] = [];
  for (let i = 0; i < rule.early && keep > 0; i++) if (t.values[i] - t.values[i] === 0) before.push(t.values[i]);
  // The range of the thresholds used, kept as it goes (not one array entry per logged value).
  let lo = Number.POSITIVE_INFINITY;
  let hi = Number.NEGATIVE_INFINITY;
  let judged = false;
  // The streak so far: trace positions start..start+length-1 (its hits are made only for a flag).
  let start = 0;
  let length = 0;
  let window: FlagWindow | null = null;
  const close = () => {
    if (length >= rule.minLength && window !== null) {
      const run = hitsOf(t, start, length);
      flags.push({ ...flagOf(run), value: furthest(run, window), raisedAt: run[rule.minLength - 1].x, window });
    }
    length = 0;
  };
  for (let i = rule.early; i < t.values.length; i++) {
    const v = t.values[i];
    const th: number | null = rule.holdThreshold === true && length > 0 && window !== null ? window.threshold : rule.threshold(baseline, before);
    if (th !== null) {
      if (!judged || th < lo) lo = th;
      if (!judged || th > hi) hi = th;
      judged = true;
    }
    if (th !== null && v - v === 0 && rule.fires(v, th)) {
      // The figure's threshold line is the one the streak's first value crossed.
      if (length === 0) {
        window = { threshold: th, side: rule.side, ...base };
        start = i;
      }
      length++;
    } else close();
    if (v - v === 0 && keep > 0) {
      before.push(v);
      // Trimmed now and then, not per value: the last `keep` stay.
      if (before.length >= 2 * keep + 64) before.splice(0, before.length - keep);
    }
  }
  close();
  if (!judged) return null;
  const early = baseline === null ? "" : `early median ${fmt(baseline)} (values at ${t.xs[0]}-${t.xs[rule.early - 1]}), `;
  return { flags, evidence: `${t.round} ${t.runId}: ${early}threshold ${lo === hi ? fmt(lo) : `${fmt(lo)} to ${fmt(hi)}`}` };
}

/** The hits of trace positions start..start+length-1. */
export function hitsOf(t: ConceptTrace, start: number, length: number): HealthHit[] {
  // push, not new Array(length): V8 makes an array of more than ~10^5 holes a dictionary.
  const hits: HealthHit[] = [];
  for (let q = start; q < start + length; q++) hits.push({ round: t.round, runId: t.runId, x: t.xs[q], key: t.key, value: t.values[q] });
  return hits;
}

/** The value furthest past the threshold: the lowest for a rule that fires below it, the highest above it, the threshold itself for one that fires on it. */
function furthest(run: readonly HealthHit[], window: FlagWindow): number {
  if (window.side === "equal") return window.threshold;
  // A loop, not a spread: a streak can be as long as the run.
  let out = run[0].value as number;
  for (const h of run) {
    const v = h.value as number;
    if (window.side === "below" ? v < out : v > out) out = v;
  }
  return out;
}

/**
 * A rule whose threshold reads the median of the `window` finite values logged before each value
 * (null while there is none): the window's median is taken in one scratch array per rule, and the
 * rule's `trailing` is that same window, so `before` is bounded by exactly what the threshold reads.
 */
export function trailingMedianRule(
  window: number,
  rule: Omit<StreakRule, "threshold" | "trailing"> & { threshold(baseline: number | null, recent: number | null): number | null },
): StreakRule {
  const scratch = new Float64Array(window);
  return { ...rule, trailing: window, threshold: (baseline, before) => rule.threshold(baseline, trailingMedian(before, window, scratch)) };
}

/** The rule of a streak of exact zeros (-0 is 0): `minLength` logged values in a row, no early window. */
export function exactZeroRule(minLength: number): StreakRule {
  return { minLength, early: 0, side: "equal", threshold: () => 0, fires: (v, th) => v === th, trailing: 0 };
}

/** The unit of a concept's flags: "update" when the framework logs it per optimizer update, else "rollout" (one record per rollout batch or logged step). */
export function flagUnit(profile: FrameworkProfile, concept: ConceptId): "update" | "rollout" {
  return metricOf(profile, concept)?.grain === "update" ? "update" : "rollout";
}

/** A number for evidence texts: 4 significant digits. */
export function fmt(v: number): string {
  return Number.isInteger(v) ? String(v) : String(Number(v.toPrecision(4)));
}

/** The evidence line of a streak check: per-run baselines and thresholds, and the runs it could not judge. */
export function streakEvidence(o: StreakOutcome, early: number): string {
  const parts = [...o.evidence];
  if (o.unjudged.length > 0) parts.push(`not judged (fewer than ${early + 1} logged values, or no finite early value): ${o.unjudged.join(", ")}`);
  return parts.join("; ");
}
