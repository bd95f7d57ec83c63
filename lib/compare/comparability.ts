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

/** A column one pair of experiments cannot be compared on, and why. */
export interface Refusal {
  /** The summary column (the comparison's `concept`). */
  concept: string;
  /** The two experiments (archive folders) or arms the refusal is between. */
  sides: [string, string];
  reason: string;
}

/** The experiment's compared column by name; undefined when its profile has no such column. */
function columnOf(e: Experiment, name: string): ComparedColumn | undefined {
  return e.columns.find((c) => c.name === name);
}

/** How a side logs a column, for refusals: "<dir> reads slime `train/entropy_loss`" or "<dir>: TRL logs no ppo_kl: <reason>". */
function sideText(e: Experiment, c: ComparedColumn | undefined): string {
  if (c === undefined || c.metric === null) return `${e.dir}: ${c?.absent ?? `${e.profile.label} has no such column`}`;
  return `${e.dir} reads ${e.profile.label} \`${c.metric.key}\``;
}

/**
 * Why a flag or version gives the column's concept another meaning on one side than on the other
 * (lib/registry: the profile's conditional meanings, read per run), or null. A side where a meaning
 * holds in some runs and not in others is refused too; a run whose version is not recorded ("maybe")
 * refuses nothing by itself: it could be either. The refusal names the setting each side has.
 */
export function flagRefusal(a: Experiment, b: Experiment, column: string): string | null {
  const concept = columnOf(a, column)?.concept.id;
  if (concept === undefined) return null;
  for (const m of a.profile.meanings) {
    if (m.concept?.id !== concept) continue;
    const sides = [a, b].map((e) => ({ e, holds: new Set(e.runs.map((r) => holdsIn(m.when, r)).filter((h) => h !== "maybe")) }));
    const mixed = sides.some((s) => s.holds.size > 1);
    const differ = sides[0].holds.size === 1 && sides[1].holds.size === 1 && [...sides[0].holds][0] !== [...sides[1].holds][0];
    if (!mixed && !differ) continue;
    const text = sides.map((s) => `${s.e.dir}: ${holdsText(s.holds)} (${sideSettings(m.when, s.e)})`);
    return `its meaning depends on ${conditionText(m.when)} (then: ${m.concept.is}), which ${text.join("; ")}`;
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
function positionRefusal(a: Experiment, b: Experiment, c: ComparedColumn): string | null {
  if (c.subset === "all") return null;
  const same = a.updatesPerBatch.length === b.updatesPerBatch.length && a.updatesPerBatch.every((n, i) => n === b.updatesPerBatch[i]);
  if (same) return null;
  return `a per-position statistic (${c.subset} updates of a batch) needs the same updates per rollout batch: ${a.dir} has N = ${a.updatesPerBatch.join(", ")}, ${b.dir} has N = ${b.updatesPerBatch.join(", ")}`;
}

/** "the wall axis (s)". */
function axisWhere(e: Experiment): string {
  return `the ${e.axis} axis (${AXIS_MEANING[e.axis].unit})`;
}

/** Why the column cannot be lined up on the comparison's binned axis, or null: both sides need coordinates there. */
function axisRefusal(a: Experiment, b: Experiment, name: string): string | null {
  const ma = a.axisMissing[name];
  const mb = b.axisMissing[name];
  if (ma === undefined && mb === undefined) return null;
  const side = (e: Experiment, why: string | undefined) => `${e.dir}: ${why ?? "has it"}`;
  const where = axisWhere(a);
  return `is missing on ${ma !== undefined && mb !== undefined ? "both sides" : "one side"} on ${where}: ${side(a, ma)}; ${side(b, mb)}`;
}

/**
 * Why two experiments' values of a summary column are not comparable, or null when they are.
 * @example comparability(slimeRun, trlRun, "ppo_kl_first_update_mean") // "ppo_kl ...: ... logs none: ..."
 */
export function comparability(a: Experiment, b: Experiment, name: string): string | null {
  const ca = columnOf(a, name);
  const cb = columnOf(b, name);
  const what = `${name} (${(ca ?? cb)?.concept.label ?? name})`;
  if (ca?.metric == null || cb?.metric == null) return `${what} is missing on one side: ${sideText(a, ca)}; ${sideText(b, cb)}`;
  const ma = ca.metric;
  const mb = cb.metric;
  if (ma.key !== mb.key || ma.grain !== mb.grain || ma.is !== mb.is || ma.isNot !== mb.isNot) {
    return `${what} means different things: ${sideText(a, ca)} (${ma.is}); ${sideText(b, cb)} (${mb.is})`;
  }
  const empty = [a, b].filter((e) => e.cells[name]?.[ALL_ROUNDS] == null).map((e) => e.dir);
  if (empty.length > 0) return `${what} is missing on one side: no value logged (empty summary cell) in ${empty.join(" and ")}`;
  const axis = axisRefusal(a, b, name);
  if (axis !== null) return `${what} ${axis}`;
  const position = positionRefusal(a, b, ca);
  if (position !== null) return `${what}: ${position}`;
  const flag = flagRefusal(a, b, name);
  return flag === null ? null : `${what}: ${flag}`;
}

/**
 * Every refusal of a column over a set of experiments (arms and reference together): the first
 * experiment against each other one, so that one refusal per differing experiment is listed.
 */
export function refusalsOf(experiments: readonly Experiment[], name: string): Refusal[] {
  const out: Refusal[] = [];
  const [first, ...rest] = experiments;
  // Alone, an experiment has no other side to differ from, but it can still lack the axis.
  const alone = first.axisMissing[name];
  if (rest.length === 0 && alone !== undefined) {
    const label = first.columns.find((c) => c.name === name)?.concept.label ?? name;
    out.push({ concept: name, sides: [first.dir, first.dir], reason: `${name} (${label}) is missing on ${axisWhere(first)}: ${first.dir}: ${alone}` });
  }
  for (const other of rest) {
    const reason = comparability(first, other, name);
    if (reason !== null) out.push({ concept: name, sides: [first.dir, other.dir], reason });
  }
  return out;
}
