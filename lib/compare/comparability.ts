/**
 * Whether two experiments' values of one summary column mean the same thing. A refusal names the
 * column, its concept and both sides. What the registry knows decides: the concept logged on both
 * sides, through the same key with the same meaning (key, grain, what it is and is not), and, for the
 * per-position statistics, the same optimizer updates per rollout batch; on a binned axis, a
 * coordinate on both sides (lib/compare/axis-cells.ts); and the same meaning under the runs' frozen
 * flags and versions ({@link flagRefusal}).
 */
import { ALL_ROUNDS } from "../export/summary-table";
import { conditionText, holdsIn, settingsText, type MeaningCondition } from "../registry/semantic-flags";
import { AXIS_MEANING } from "./compare-axis";
import type { ComparedColumn } from "./compared-columns";
import type { Experiment } from "./experiment";
import type { MetricSpec } from "../registry/metric-spec";

/** A column one pair of experiments cannot be compared on, and why. */
export interface Refusal {
  /** The summary column (the comparison's `concept`). */
  concept: string;
  /** The two sides the refusal is between: the first experiment, and the others (archive folders, ", "-joined). */
  sides: [string, string];
  reason: string;
}

/** The experiment's compared column by name; undefined when its profile has no such column. */
function columnOf(e: Experiment, name: string): ComparedColumn | undefined {
  return e.columns.find((c) => c.name === name);
}

/** Experiments named together by what `describe` says of each, in order: "a, b: <why>; c reads ...". */
function bySide(experiments: readonly Experiment[], describe: (e: Experiment) => string): string {
  const groups = new Map<string, string[]>();
  for (const e of experiments) {
    const text = describe(e);
    groups.set(text, [...(groups.get(text) ?? []), e.dir]);
  }
  return [...groups].map(([text, dirs]) => `${dirs.join(", ")}${text}`).join("; ");
}

/** Where a column is missing: "" for a lone experiment, "both sides", "every side" or "one side". */
function missingWhere(missing: number, total: number): string {
  if (missing < total) return " on one side";
  return total === 1 ? "" : total === 2 ? " on both sides" : " on every side";
}

/** Whether the experiment has a value of the column: a metric, and a non-empty `all` cell. */
function hasValue(e: Experiment, name: string): boolean {
  return columnOf(e, name)?.metric != null && e.cells[name]?.[ALL_ROUNDS] != null;
}

/** How a side logs a column, after its folder: " reads slime `train/entropy_loss`", ": TRL logs no ppo_kl: <reason>". */
function missingText(e: Experiment, name: string): string {
  const c = columnOf(e, name);
  if (c === undefined || c.metric === null) return `: ${c?.absent ?? `${e.profile.label} has no such column`}`;
  const reads = ` reads ${e.profile.label} \`${c.metric.key}\``;
  return hasValue(e, name) ? reads : `${reads}: no value logged (empty summary cell)`;
}

/**
 * Why a flag or version gives the column's concept another meaning on some experiments than on
 * others (lib/registry: the profile's conditional meanings, read per run), or null. A side where a
 * meaning holds in some runs and not in others is refused too; a run whose version is not recorded
 * ("maybe") refuses nothing by itself: it could be either. The refusal names the setting each side has.
 */
export function flagRefusal(experiments: readonly Experiment[], column: string): string | null {
  const concept = columnOf(experiments[0], column)?.concept.id;
  if (concept === undefined) return null;
  for (const m of experiments[0].profile.meanings) {
    if (m.concept?.id !== concept) continue;
    const holds = new Map(experiments.map((e) => [e, new Set(e.runs.map((r) => holdsIn(m.when, r)).filter((h) => h !== "maybe"))]));
    const mixed = [...holds.values()].some((h) => h.size > 1);
    const single = new Set([...holds.values()].filter((h) => h.size === 1).map((h) => [...h][0]));
    if (!mixed && single.size < 2) continue;
    const text = bySide(experiments, (e) => `: ${holdsText(holds.get(e)!)} (${sideSettings(m.when, e)})`);
    return `its meaning depends on ${conditionText(m.when)} (then: ${m.concept.is}), which ${text}`;
  }
  return null;
}

function holdsText(holds: ReadonlySet<string>): string {
  return [...holds].map((h) => (h === "yes" ? "holds" : "does not hold")).join(" in some runs, ") || "unknown";
}

/** The settings a side's runs have of a condition, each distinct one once (`importance_sampling_level = token`). */
function sideSettings(when: MeaningCondition, e: Experiment): string {
  return [...new Set(e.runs.map((r) => settingsText(when, r)))].join(" / ");
}

/** Why the per-position column cannot be compared, or null: the batches must hold the same number of updates. */
function positionRefusal(experiments: readonly Experiment[], c: ComparedColumn): string | null {
  if (c.subset === "all" || new Set(experiments.map((e) => e.updatesPerBatch.join(", "))).size < 2) return null;
  const sides = bySide(experiments, (e) => ` has N = ${e.updatesPerBatch.join(", ")}`);
  return `a per-position statistic (${c.subset} updates of a batch) needs the same updates per rollout batch: ${sides}`;
}

/** "the wall axis (s)". */
function axisWhere(e: Experiment): string {
  return `the ${e.axis} axis (${AXIS_MEANING[e.axis].unit})`;
}

/** Why the column cannot be lined up on the comparison's binned axis, or null: every side needs coordinates there. */
function axisRefusal(experiments: readonly Experiment[], name: string): string | null {
  const missing = experiments.filter((e) => e.axisMissing[name] !== undefined).length;
  if (missing === 0) return null;
  const sides = bySide(experiments, (e) => `: ${e.axisMissing[name] ?? "has it"}`);
  return `is missing${missingWhere(missing, experiments.length)} on ${axisWhere(experiments[0])}: ${sides}`;
}

/** Whether two metrics are the same number: key, grain and what it is and is not. */
function sameMetric(a: MetricSpec, b: MetricSpec): boolean {
  return a.key === b.key && a.grain === b.grain && a.is === b.is && a.isNot === b.isNot;
}

/**
 * Why the experiments' values of a summary column are not comparable, or null when they are: one
 * reason for the whole set, naming each side once (experiments that say the same are named together).
 */
function refusalReason(experiments: readonly Experiment[], name: string): string | null {
  const first = experiments.map((e) => columnOf(e, name)).find((c) => c !== undefined);
  const what = `${name} (${first?.concept.label ?? name})`;
  const missing = experiments.filter((e) => !hasValue(e, name)).length;
  if (missing > 0) return `${what} is missing${missingWhere(missing, experiments.length)}: ${bySide(experiments, (e) => missingText(e, name))}`;
  const metrics = experiments.map((e) => columnOf(e, name)!.metric!);
  if (metrics.some((m) => !sameMetric(m, metrics[0]))) {
    const sides = bySide(experiments, (e) => ` reads ${e.profile.label} \`${columnOf(e, name)!.metric!.key}\` (${columnOf(e, name)!.metric!.is})`);
    return `${what} means different things: ${sides}`;
  }
  const axis = axisRefusal(experiments, name);
  if (axis !== null) return `${what} ${axis}`;
  const position = positionRefusal(experiments, first!);
  if (position !== null) return `${what}: ${position}`;
  const flag = experiments.length > 1 ? flagRefusal(experiments, name) : null;
  return flag === null ? null : `${what}: ${flag}`;
}

/**
 * Why two experiments' values of a summary column are not comparable, or null when they are.
 * @example comparability(slimeRun, trlRun, "ppo_kl_first_update_mean") // "ppo_kl ...: ... logs none: ..."
 */
export function comparability(a: Experiment, b: Experiment, name: string): string | null {
  return refusalReason([a, b], name);
}

/**
 * The refusal of a column over a set of experiments (arms and reference together), or none: once per
 * column, each side named once with its own reason (not once per pair of experiments).
 */
export function refusalsOf(experiments: readonly Experiment[], name: string): Refusal[] {
  const reason = refusalReason(experiments, name);
  if (reason === null) return [];
  const [first, ...rest] = experiments;
  return [{ concept: name, sides: [first.dir, rest.length === 0 ? first.dir : rest.map((e) => e.dir).join(", ")], reason }];
}
