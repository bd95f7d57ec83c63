/**
 * What a framework profile declares: how its W&B rows become records, which key stands for each
 * concept of the registry (lib/registry/concepts.ts) over which records, how the framework aggregates
 * before logging, how a restart shows, and how its timers nest. One file per framework
 * (profile-*.ts); lib/registry/profiles.ts lists them.
 */
import type { ConceptMetric, KeyAlias, KeyFamily, MetricSpec } from "./metric-spec";
import { CONCEPTS, type ConceptId } from "./concepts";
import type { ConditionalMeaning, MeaningCondition, SemanticFlag } from "./semantic-flags";
import type { MismatchSpec } from "./mismatch";
import type { VersionKey } from "./versions";

/** A concept the framework does not log: the reason, printed wherever the concept would appear. */
export interface AbsentConcept {
  absent: string;
}

/** How a framework's timers nest and which of them a stacked figure may add up. */
export interface TimerSpec {
  /** True for the framework's phase timers (seconds per record). */
  isTimer(key: string): boolean;
  /** Containers and their parts: stacking a container with its parts counts time twice. */
  containers: Readonly<Record<string, readonly string[]>>;
  /** True for the timers stacked without double counting. */
  stackable(key: string): boolean;
  /**
   * The timer another process logs in rows of its own (slime's rollout manager: `perf/rollout_time`);
   * the others come from the trainer's row, and a record without it is listed. Null when every timer
   * is in the step's one row.
   */
  separateTimer: string | null;
  /**
   * The container whose untimed rest (its time none of its parts covers) is stacked as a bar part of
   * its own, so that a bar adds up to the step time (slime: `perf/train_time`); null: parts as logged.
   */
  remainderOf: string | null;
  /** A timer's legend name when no concept names it (slime: `perf/actor_train_time` -> `actor_train`). */
  shortName(key: string): string;
  /** Caption of the stacked time figure: what one bar is and adds up to. */
  stackCaption: string;
  /** A step timer that is exactly the sum of its parts (slime: step_time = train_wait + train); null: none declared. */
  stepSum: { total: string; parts: readonly string[] } | null;
}

/** How rows become records. */
export type ProfileAxis =
  /**
   * Rollout batches of N optimizer updates each (slime, miles; lib/align/slime/ reads slime's row kinds):
   * `keys` the step keys of batches, updates and evals. `ownRows`: rows the framework logs about itself
   * (every key but the step keys in one family, e.g. miles' host memory after offloading the trainer):
   * counted and named, never records and never re-logged rows.
   */
  | { kind: "batch-updates"; keys: BatchStepKeys; ownRows: readonly OwnRows[] }
  /**
   * One record per logged training step (lib/align/steps/align-steps.ts): `stepKey` holds the step of a
   * training row; rows with only `evalPrefixes` keys (besides step keys) are evals; rows holding one
   * of `summaryKeys` are end-of-training summaries, not steps; rows whose every metric key falls under
   * one of `ownRows` are rows the framework logs about itself (timers of single calls, ...): counted
   * and named, never records and never re-logged steps, whatever step W&B stamped on them.
   */
  | {
      kind: "step";
      stepKey: string;
      evalPrefixes: readonly string[];
      stepKeys: readonly string[];
      summaryKeys: readonly string[];
      ownRows: readonly OwnRows[];
      /** How far apart training rows are logged, when a frozen setting says; absent: from the records' most common spacing. */
      interval?: LoggingInterval;
    };

/** The step keys of a batch-and-updates axis (slime's `wandb.define_metric` step metrics). */
export interface BatchStepKeys {
  /** The rollout batch's id (scaled by N under slime's --wandb-always-use-train-step). */
  rollout: string;
  /** The optimizer update's number: rollout id * N + position in the batch. */
  update: string;
  /** An eval's rollout id (it can repeat: before training at the first id, after training each id). */
  eval: string;
}

/**
 * How often a step framework logs a training row, from a frozen setting (TRL: `logging_steps`), so
 * that coverage knows which steps must have a row: every multiple of the interval, step 1 with
 * `firstStep` set, and after the last full interval whatever `lastPartial` says. A run whose setting
 * is not a whole number of steps, or whose `strategy` flag has another value, or whose flags are
 * unknown, falls back to the most common spacing of its records (never the smallest: a partial last
 * interval is short).
 */
export interface LoggingInterval {
  /** The flag holding the interval in steps; read only when it is a whole number >= 1. */
  steps: string;
  /** The flag and value under which `steps` is the rule (TRL: logging_strategy = steps). */
  strategy?: { flag: string; equals: string };
  /** A flag that, when true, logs step 1 as well (TRL: logging_first_step). */
  firstStep?: string;
  /** What is logged after the last full interval, in words. */
  lastPartial: string;
  /** Where the framework's code decides it. */
  source: string;
}

/**
 * What a TensorBoard event step is for the framework, and how a TensorBoard run's rows (one per step,
 * every tag logged at that step merged; lib/tensorboard/) are read as the framework's W&B rows.
 */
export interface TensorboardSpec {
  /** What the event step is, in one sentence: which counter the framework passes as `global_step`. */
  step: string;
  /**
   * The key the event step stands for: a row without it gets it from `_step` (TRL and OpenRLHF write
   * no tag of their step; verl does). Null: the framework's TensorBoard runs are refused, `step` says why.
   */
  stepKey: string | null;
  /**
   * Key prefixes the framework logs in calls of their own at a step's counter (TRL's and OpenRLHF's
   * evaluations): split out of the merged row into a row of their own, with the step key, as W&B has
   * them. The axis's `summaryKeys` (run totals logged at the last step) are split out the same way.
   */
  separateCalls: readonly string[];
  /**
   * The text summary's tag under which the framework writes its config as a JSON object (transformers'
   * TensorBoardCallback: `args/text_summary`, the TrainingArguments); read in memory for the declared
   * flags only. Absent: the framework writes no config into its event files.
   */
  configText?: string;
}

/** A family of rows a framework logs about itself, not about a training step. */
export interface OwnRows {
  /** Key prefix (ending in "/") every metric key of such a row starts with. */
  prefix: string;
  /** What those rows are, for notes, e.g. "TRL's profiling timers, one row per timed call". */
  what: string;
}

/** A framework profile; `N` its name (the names' union is derived from lib/registry/profiles.ts's list). */
export interface FrameworkProfile<N extends string = string> {
  name: N;
  label: string;
  /** Keys (or prefixes, ending in "/") that mark the framework's rows; detection counts the matches. */
  signature: readonly string[];
  axis: ProfileAxis;
  /** What one record is, plural, e.g. "training steps". */
  recordNoun: string;
  /** What summary.csv's `rollouts` column counts for this framework. */
  recordsDescription: string;
  /** The step axis in one sentence. */
  stepAxis: string;
  /**
   * Whether single optimizer updates are observable, and why not when they are not; `keyPrefix`: the
   * key family logged once per optimizer update (slime: `train/`), never drawn per record; null: none.
   * `criticPrefix`: keys of a critic's updates merged into the actor's update records (slime:
   * `train/critic-`), which checks of the actor leave out; null: none. `onePerRecord`: where single
   * updates are not observable in general, the settings under which each record is exactly one
   * optimizer update (so the update-position checks apply to it), with the source line it rests on.
   */
  updates: {
    observable: boolean;
    note: string;
    keyPrefix: string | null;
    criticPrefix: string | null;
    onePerRecord?: { when: MeaningCondition; evidence: string };
  };
  /** What the framework averages or picks before logging. */
  aggregation: string;
  /** What a restart does to the W&B history. */
  restart: string;
  /** What the TensorBoard step is and how TensorBoard rows are read (TensorboardSpec). */
  tensorboard: TensorboardSpec;
  /** Every concept: the framework's metric (key, grain, is / is not) or why it has none. */
  metrics: Readonly<Record<ConceptId, ConceptMetric | AbsentConcept>>;
  /** Metrics of no concept that notebooks describe (slime: train/loss, train/pg_loss), by name. */
  otherMetrics: Readonly<Record<string, MetricSpec>>;
  /** Keys renamed between versions that no metric declares (current key -> its older name). */
  keyAliases: Readonly<Record<string, KeyAlias>>;
  /** Key families by prefix, for keys no metric declares (slime: train/* per update, the rest per rollout). */
  keyFamilies: readonly KeyFamily[];
  timers: TimerSpec;
  /** The config entries that change a metric's meaning: the only config ever read (lib/registry/semantic-flags.ts). */
  flags: readonly SemanticFlag[];
  /** The framework's pip package name, whose version a run folder's requirements.txt may record (lib/registry/versions.ts). */
  package: string;
  /** Meanings that hold when a flag has a value (a concept's rule, a check that does not apply). */
  meanings: readonly ConditionalMeaning[];
  /** Keys whose presence proves a range of the framework's version (settling version conditions of `meanings`); absent: none. */
  versionKeys?: readonly VersionKey[];
  /** Its train/inference mismatch keys by quantity (lib/registry/mismatch.ts), and the keys that only look like them. */
  mismatch: MismatchSpec;
}

/** Full specs by their concept metric: one object per (metric, concept), so callers may compare them. */
const SPECS = new WeakMap<ConceptMetric, MetricSpec>();

/** The profile's metric of a concept (with the concept's label and unit), or null when the framework does not log it. */
export function metricOf(profile: FrameworkProfile, concept: ConceptId): MetricSpec | null {
  const m = profile.metrics[concept];
  if ("absent" in m) return null;
  let spec = SPECS.get(m);
  if (spec === undefined) {
    const { label, unit } = CONCEPTS[concept];
    spec = { key: m.key, label, unit, grain: m.grain, is: m.is, isNot: m.isNot, ...(m.aliases ? { aliases: m.aliases } : {}) };
    SPECS.set(m, spec);
  }
  return spec;
}

/** Every metric the profile declares: its concepts' (in concept order), then its other metrics. */
export function profileMetrics(profile: FrameworkProfile): MetricSpec[] {
  const out: MetricSpec[] = [];
  for (const c of Object.keys(profile.metrics) as ConceptId[]) {
    const m = metricOf(profile, c);
    if (m !== null) out.push(m);
  }
  return out.concat(Object.values(profile.otherMetrics));
}

/** Why the profile has no metric for a concept; null when it has one. */
export function absentReason(profile: FrameworkProfile, concept: ConceptId): string | null {
  const m = profile.metrics[concept];
  return "absent" in m ? `${profile.label} logs no ${CONCEPTS[concept].label}: ${m.absent}` : null;
}

/** One record of a plural noun: "rollout batches" -> "rollout batch", "training steps" -> "training step". */
export function singular(noun: string): string {
  return noun.endsWith("ches") ? noun.slice(0, -2) : noun.replace(/s$/, "");
}

/**
 * What one record of the profile is, with its article, for rule texts: "an optimizer update or rollout
 * batch" where single updates are rows of their own, else "a logged step" (the profile's record noun).
 */
export function recordPhrase(profile: Pick<FrameworkProfile, "recordNoun" | "updates">): string {
  const record = singular(profile.recordNoun);
  return profile.updates.observable ? `an optimizer update or ${record}` : `${/^[aeiou]/.test(record) ? "an" : "a"} ${record}`;
}

/** summary.csv's records column of a framework that logs one record per step. */
export function stepRecordsDescription(recordNoun: string, stepKey: string): string {
  return `${recordNoun} (distinct ${stepKey}) the round owns`;
}

/** The stacked time figure's caption of a framework whose step timer's parts are stacked as logged. */
export function asLoggedStackCaption(recordNoun: string): string {
  return `Mean time per ${singular(recordNoun)}, by phase (the parts of the step timer, stacked as logged)`;
}

/** True when a key matches a signature entry (exact key, or a prefix ending in "/"). */
export function matchesEntry(key: string, entry: string): boolean {
  return entry.endsWith("/") ? key.startsWith(entry) : key === entry;
}

/** Every key the profile maps to a concept, then the older names it reads for them (slime's aliases), once each. */
export function mappedKeys(profile: FrameworkProfile): string[] {
  const keys = new Set<string>();
  for (const m of Object.values(profile.metrics)) {
    if ("absent" in m) continue;
    keys.add(m.key);
    for (const a of m.aliases ?? []) keys.add(a.key);
  }
  return [...keys];
}
