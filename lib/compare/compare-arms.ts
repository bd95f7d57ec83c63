/**
 * The comparison of arms (sets of experiments) and an optional reference: per arm, column and scope
 * the statistics of compare.csv; per pair of arms those of improvement.csv; per experiment the
 * corridor check against the reference (corridor.csv). Columns whose meaning differs between the
 * experiments are refused, never compared (lib/compare/comparability.ts).
 */
import type { ConceptId, CorridorDefaults } from "../registry/concepts";
import { ALL_ROUNDS } from "../export/summary-table";
import type { ExportCell } from "../export/export-cell";
import type { ExportTable } from "../export/csv-text";
import type { Reporter } from "../types";
import { DEFAULT_RESAMPLES } from "./bootstrap";
import { refusalsOf, comparability, type Refusal } from "./comparability";
import { binLow, ROUND_AXIS, type CompareAxis } from "./compare-axis";
import type { ComparedColumn } from "./compared-columns";
import { corridorBand, isOutside } from "./corridor";
import type { Experiment } from "./experiment";
import { experimentsNeeded } from "./experiments-needed";
import { iqm, mean } from "./point-estimates";
import { INTERVALS_HERE, type IntervalSource } from "./interval-jobs";
import { probabilityOfImprovement } from "./probability-of-improvement";
import { welchTest } from "./welch-test";
import { holmAdjusted } from "./holm";

/** An arm: a name and its experiments (e.g. the seeds of one configuration), in the order given. */
export interface Arm {
  name: string;
  experiments: Experiment[];
}

/** Options of {@link compareArms}. */
export interface CompareOptions {
  /** Seed of every bootstrap stream. */
  seed: number;
  /** Bootstrap resamples. Default 50,000. */
  resamples?: number;
  /** Corridor per concept id, overriding the registry's defaults field by field. */
  corridor?: Partial<Record<ConceptId, Partial<CorridorDefaults>>>;
  /** The axis the experiments were loaded on (their scopes are its bins); default round labels. */
  axis?: CompareAxis;
  /** Where the bootstrap intervals come from (interval-jobs.ts); default: computed here when asked. */
  intervals?: IntervalSource;
  reporter?: Reporter;
}

/** The comparison's tables and what it refused. */
export interface Comparison {
  compare: ExportTable;
  improvement: ExportTable;
  /** Null without a reference. */
  corridor: ExportTable | null;
  /** Columns not compared at all (their meaning differs between experiments of the arms). */
  refused: Refusal[];
  /** Columns compared between arms but not against the reference. */
  refusedAgainstReference: Refusal[];
  /** The compared columns, in summary.csv's order. */
  columns: string[];
  /** Scopes in output order: every round label in order of first appearance (bins: in axis order), then `all`. */
  scopes: string[];
  axis: CompareAxis;
}

export const COMPARE_COLUMNS = ["arm", "concept", "scope", "n", "mean", "iqm", "mean_ci_low", "mean_ci_high", "iqm_ci_low", "iqm_ci_high", "values"];
// welch_p_holm last, so that the columns before it keep their positions (it came after the others).
export const IMPROVEMENT_COLUMNS = [
  "arm_x",
  "arm_y",
  "concept",
  "scope",
  "p_improve",
  "p_ci_low",
  "p_ci_high",
  "mean_diff",
  "welch_p",
  "n_needed",
  "welch_p_holm",
];
export const CORRIDOR_COLUMNS = ["arm", "archive", "concept", "scope", "value", "ref", "band", "outside"];

/** The experiment's cell of a column in a scope: null when empty or when it has no such round. */
function cellOf(e: Experiment, column: string, scope: string): number | null {
  return e.cells[column]?.[scope] ?? null;
}

/** Finite values of an arm's experiments in a scope (missing and non-finite cells left out). */
function finiteValues(arm: Arm, column: string, scope: string): number[] {
  return arm.experiments.map((e) => cellOf(e, column, scope)).filter((v): v is number => v !== null && Number.isFinite(v));
}

/** Every round label of the experiments in order of first appearance (bins in axis order), then `all`. */
function scopesOf(experiments: readonly Experiment[], axis: CompareAxis): string[] {
  const seen = new Set<string>();
  for (const e of experiments) for (const r of e.rounds) seen.add(r);
  const scopes = [...seen];
  if (axis.name !== "round") scopes.sort((x, y) => binLow(x) - binLow(y));
  return [...scopes, ALL_ROUNDS];
}

/** One compare.csv row. */
function armRow(arm: Arm, column: string, scope: string, opts: CompareOptions): ExportCell[] {
  const v = finiteValues(arm, column, scope);
  const values = arm.experiments
    .map((e) => {
      const c = cellOf(e, column, scope);
      return c === null ? "" : String(c);
    })
    .join(";");
  const stream = `arm\u0000${arm.name}\u0000${column}\u0000${scope}`;
  const ci = (opts.intervals ?? INTERVALS_HERE).arm({ kind: "arm", values: v, stream, seed: opts.seed, resamples: opts.resamples ?? DEFAULT_RESAMPLES });
  if (ci === null) return [arm.name, column, scope, 0, null, null, null, null, null, null, values];
  return [arm.name, column, scope, v.length, mean(v), iqm(v), ci.mean.low, ci.mean.high, ci.iqm.low, ci.iqm.high, values];
}

/** One improvement.csv row: arm x against arm y; P(x better than y) only for a concept with a better direction. */
function pairRow(x: Arm, y: Arm, column: ComparedColumn, scope: string, opts: CompareOptions): ExportCell[] {
  const vx = finiteValues(x, column.name, scope);
  const vy = finiteValues(y, column.name, scope);
  const head: ExportCell[] = [x.name, y.name, column.name, scope];
  if (vx.length === 0 || vy.length === 0) return [...head, null, null, null, null, null, null];
  const welch = welchTest(vx, vy);
  const tail: ExportCell[] = [welch.meanDiff, welch.p, experimentsNeeded(vx, vy).n];
  const direction = column.concept.direction;
  if (direction === "neither") return [...head, null, null, null, ...tail];
  const name = (side: string) => `improve\u0000${x.name}\u0000${y.name}\u0000${column.name}\u0000${scope}\u0000${side}`;
  const [better, worse] = direction === "higher" ? [vx, vy] : [vy, vx];
  const streams: [string, string] = direction === "higher" ? [name("x"), name("y")] : [name("y"), name("x")];
  const p = probabilityOfImprovement(better, worse);
  const job = { kind: "improvement" as const, better, worse, streams, seed: opts.seed, resamples: opts.resamples ?? DEFAULT_RESAMPLES };
  const ci = (opts.intervals ?? INTERVALS_HERE).improvement(job)!;
  return [...head, p, ci.low, ci.high, ...tail];
}

/** The corridor.csv rows of one column: every experiment's value in every scope the reference has a value for. */
function corridorRows(arms: readonly Arm[], reference: Experiment, column: ComparedColumn, scopes: readonly string[], opts: CompareOptions): ExportCell[][] {
  const defaults = column.concept.corridor;
  const override = opts.corridor?.[column.concept.id] ?? {};
  const settings: CorridorDefaults = { rel: override.rel ?? defaults.rel, absFloor: override.absFloor ?? defaults.absFloor };
  const rows: ExportCell[][] = [];
  for (const scope of scopes) {
    const ref = cellOf(reference, column.name, scope);
    if (ref === null) continue;
    const band = corridorBand(ref, settings);
    for (const arm of arms) {
      for (const e of arm.experiments) {
        const value = cellOf(e, column.name, scope);
        if (value === null) continue;
        rows.push([arm.name, e.dir, column.name, scope, value, ref, band, isOutside(value, ref, band) ? "true" : "false"]);
      }
    }
  }
  return rows;
}

/** The column list of the comparison: the first experiment's summary mean columns. */
function columnsOf(experiments: readonly Experiment[]): ComparedColumn[] {
  return experiments[0].columns;
}

/**
 * Compare arms (and a reference): statistics per arm, P(improvement), Welch's test and n per pair of
 * arms (each later arm against each earlier one), and the corridor against the reference. Throws
 * `invalid arms: ...` for fewer than one arm, an arm without experiments or a repeated arm name.
 */
export function compareArms(arms: readonly Arm[], reference: Experiment | null, opts: CompareOptions): Comparison {
  checkArms(arms);
  const experiments = arms.flatMap((a) => a.experiments);
  const axis = opts.axis ?? ROUND_AXIS;
  const scopes = scopesOf(experiments, axis);
  const refused: Refusal[] = [];
  const refusedAgainstReference: Refusal[] = [];
  const compare: ExportCell[][] = [];
  const improvement: ExportCell[][] = [];
  const corridor: ExportCell[][] = [];
  const columns = columnsOf(experiments);
  const compared: string[] = [];
  columns.forEach((column, i) => {
    opts.reporter?.progress?.("compare", i, columns.length);
    const refusals = refusalsOf(experiments, column.name);
    if (refusals.length > 0) {
      refused.push(...refusals);
      return;
    }
    compared.push(column.name);
    for (const arm of arms) for (const scope of scopes) compare.push(armRow(arm, column.name, scope, opts));
    for (let j = 1; j < arms.length; j++) {
      for (let k = 0; k < j; k++) for (const scope of scopes) improvement.push(pairRow(arms[j], arms[k], column, scope, opts));
    }
    if (reference === null) return;
    const against = comparability(experiments[0], reference, column.name);
    if (against !== null) refusedAgainstReference.push({ concept: column.name, sides: [experiments[0].dir, reference.dir], reason: against });
    else corridor.push(...corridorRows(arms, reference, column, scopes, opts));
  });
  opts.reporter?.progress?.("compare", columns.length, columns.length);
  return {
    compare: { name: "compare.csv", columns: COMPARE_COLUMNS, rows: compare },
    improvement: { name: "improvement.csv", columns: IMPROVEMENT_COLUMNS, rows: withHolm(improvement) },
    corridor: reference === null ? null : { name: "corridor.csv", columns: CORRIDOR_COLUMNS, rows: corridor },
    refused,
    refusedAgainstReference,
    columns: compared,
    scopes,
    axis,
  };
}

/**
 * The rows with Holm's adjustment of their Welch p-values appended: the family is every test of the
 * comparison (each pair of arms, concept and scope), since any of them read as a finding counts.
 */
function withHolm(rows: ExportCell[][]): ExportCell[][] {
  const at = IMPROVEMENT_COLUMNS.indexOf("welch_p");
  const holm = holmAdjusted(rows.map((r) => r[at] as number | null));
  return rows.map((r, i) => [...r, holm[i]]);
}

/** Throws `invalid arms: <why>` unless there is at least one arm, each with experiments, names unique. */
function checkArms(arms: readonly Arm[]): void {
  if (arms.length === 0) throw new Error("invalid arms: none given (at least one arm of experiments)");
  const names = new Set<string>();
  for (const arm of arms) {
    if (!/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(arm.name)) throw new Error(`invalid arms: ${JSON.stringify(arm.name)} is not a name (letters, digits, _ . -)`);
    if (names.has(arm.name)) throw new Error(`invalid arms: ${arm.name} is given twice`);
    names.add(arm.name);
    if (arm.experiments.length === 0) throw new Error(`invalid arms: ${arm.name} has no archive`);
  }
}
