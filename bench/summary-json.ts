/**
 * The comparable numbers of the analysis benchmark, in one plain JSON shape that the pandas side
 * (analysis_pandas.py) writes too, and the comparison of two such files and of two export folders.
 * A mean is `[mean, n, nonFinite, missing]` (mean null when there is no finite value).
 */
import { readFileSync } from "node:fs";
import * as path from "node:path";
import * as Papa from "papaparse";

import { POLICY_SPECS, type PolicyRoundTable } from "../lib/diagnostics/policy-round-table";
import type { PpoKlByPosition } from "../lib/diagnostics/ppo-kl-by-position";
import type { MeanResult } from "../lib/diagnostics/round-mean";
import { ROLLOUT_SPECS, type RolloutRoundTable } from "../lib/diagnostics/rollout-round-table";
import type { TimeBreakdown } from "../lib/diagnostics/time-breakdown";
import type { ZeroGradNormUpdates } from "../lib/diagnostics/zero-grad-norm-updates";
import type { AlignedRuns } from "../lib/types";

/** A mean as compared: [mean, n, nonFinite, missing]. */
export type MeanTuple = [number | null, number, number, number];

/** The comparable summary. */
export interface BenchSummary {
  n: number;
  r0: number;
  records: { updates: number; rollouts: number; evals: number; issues: number };
  /** Round label (and "all") -> policy columns. */
  policy: Record<string, Record<string, number | MeanTuple>>;
  rollout: Record<string, Record<string, number | MeanTuple>>;
  /** Round label (and "all") -> ppo_kl mean per position in the batch. */
  ppoKlByPosition: Record<string, MeanTuple[]>;
  /** Round label (and "all") -> display update numbers with grad_norm exactly 0. */
  zeroGradNorm: Record<string, number[]>;
  time: { keys: string[]; rows: Record<string, { total: number | null; means: Record<string, MeanTuple> }>; missingTrainerPerf: number };
}

function tuple(m: MeanResult): MeanTuple {
  return [m.mean, m.n, m.nonFinite, m.missing];
}

/** The comparable summary from the library's results. */
export function summaryJson(x: {
  aligned: AlignedRuns;
  policy: PolicyRoundTable;
  kl: PpoKlByPosition;
  zero: ZeroGradNormUpdates;
  rollout: RolloutRoundTable;
  time: TimeBreakdown;
}): BenchSummary {
  const { aligned, policy, kl, zero, rollout, time } = x;
  const out: BenchSummary = {
    n: aligned.mapping.n,
    r0: aligned.mapping.r0,
    records: { updates: aligned.updates.length, rollouts: aligned.rollouts.length, evals: aligned.evals.length, issues: aligned.issues.length },
    policy: {},
    rollout: {},
    ppoKlByPosition: {},
    zeroGradNorm: {},
    time: { keys: time.keys, rows: {}, missingTrainerPerf: time.missingTrainerPerf.length },
  };
  // One entry per round-table field, as the tables declare them (POLICY_SPECS, ROLLOUT_SPECS).
  for (const r of [...policy.rows, policy.all]) {
    const row: Record<string, number | MeanTuple> = { updates: r.updates, rollouts: r.rollouts };
    for (const s of POLICY_SPECS) row[s.field] = tuple(r[s.field]);
    out.policy[r.round] = row;
  }
  for (const r of [...rollout.rows, rollout.all]) {
    const row: Record<string, number | MeanTuple> = { rollouts: r.rollouts };
    for (const s of ROLLOUT_SPECS) row[s.field] = tuple(r[s.field]);
    out.rollout[r.round] = row;
  }
  for (const r of [...kl.rows, kl.all]) out.ppoKlByPosition[r.round] = r.byPosition.map(tuple);
  for (const r of zero.rows) out.zeroGradNorm[r.round] = r.updates;
  out.zeroGradNorm.all = zero.updates;
  for (const r of [...time.rows, time.all]) {
    const means: Record<string, MeanTuple> = {};
    for (const e of r.entries) means[e.key] = tuple(e.time);
    out.time.rows[r.round] = { total: r.total.value, means };
  }
  return out;
}

/** True when a and b agree within a relative tolerance (exact for integers and non-numbers). */
function close(a: number, b: number, tol: number): boolean {
  if (a === b) return true;
  return Math.abs(a - b) <= tol * Math.max(Math.abs(a), Math.abs(b), 1e-300);
}

/**
 * Differences between two JSON values (numbers within relative `tol`), as "path: a vs b" lines;
 * at most `max` of them.
 */
export function diffJson(a: unknown, b: unknown, tol = 1e-9, max = 20, at = "$"): string[] {
  const out: string[] = [];
  const walk = (x: unknown, y: unknown, p: string) => {
    if (out.length >= max) return;
    if (typeof x === "number" && typeof y === "number") {
      if (!close(x, y, tol)) out.push(`${p}: ${x} vs ${y}`);
      return;
    }
    if (Array.isArray(x) && Array.isArray(y)) {
      if (x.length !== y.length) out.push(`${p}: length ${x.length} vs ${y.length}`);
      else x.forEach((v, i) => walk(v, y[i], `${p}[${i}]`));
      return;
    }
    if (x && y && typeof x === "object" && typeof y === "object" && !Array.isArray(x) && !Array.isArray(y)) {
      const kx = Object.keys(x as object).sort();
      const ky = Object.keys(y as object).sort();
      if (kx.join("\n") !== ky.join("\n")) {
        out.push(
          `${p}: keys ${kx.filter((k) => !ky.includes(k)).join(",") || "-"} only left, ${ky.filter((k) => !kx.includes(k)).join(",") || "-"} only right`,
        );
        return;
      }
      for (const k of kx) walk((x as Record<string, unknown>)[k], (y as Record<string, unknown>)[k], `${p}.${k}`);
      return;
    }
    if (x !== y) out.push(`${p}: ${JSON.stringify(x)} vs ${JSON.stringify(y)}`);
  };
  walk(a, b, at);
  return out;
}

/** Number of a CSV cell as the exports write it ("" missing, NaN, Inf, -Inf); null for text. */
function cellNumber(text: string): number | null | undefined {
  if (text === "") return undefined;
  if (text === "NaN" || text === "nan") return NaN;
  if (text === "Inf" || text === "inf") return Infinity;
  if (text === "-Inf" || text === "-inf") return -Infinity;
  const v = Number(text);
  return Number.isNaN(v) ? null : v;
}

/**
 * Differences between two CSV files cell by cell: same header, same row count and order; numeric
 * cells equal as numbers within `tol` (so `1e-7` equals `1e-07`, `2` equals `2.0`), missing (empty)
 * only against missing, NaN only against NaN, text exactly.
 */
export function diffCsv(fileA: string, fileB: string, tol = 1e-9, max = 20): string[] {
  const parse = (f: string) => Papa.parse<string[]>(readFileSync(f, "utf8"), { skipEmptyLines: true }).data;
  const a = parse(fileA);
  const b = parse(fileB);
  const name = path.basename(fileA);
  const out: string[] = [];
  if (a.length === 0 || b.length === 0) return [`${name}: empty file`];
  if (a[0].join(",") !== b[0].join(",")) return [`${name}: header ${a[0].join(",")} vs ${b[0].join(",")}`];
  if (a.length !== b.length) out.push(`${name}: ${a.length - 1} vs ${b.length - 1} data rows`);
  const rows = Math.min(a.length, b.length);
  for (let i = 1; i < rows && out.length < max; i++) {
    for (let j = 0; j < a[0].length && out.length < max; j++) {
      const x = a[i][j] ?? "";
      const y = b[i][j] ?? "";
      if (x === y) continue;
      const nx = cellNumber(x);
      const ny = cellNumber(y);
      const same = nx !== null && ny !== null && nx !== undefined && ny !== undefined ? (nx !== nx && ny !== ny) || close(nx, ny, tol) : false;
      // A list cell (space-separated update numbers) compares by its numbers.
      const listSame = !same && x.includes(" ") && x.split(" ").map(Number).join(" ") === y.split(" ").map(Number).join(" ");
      if (!same && !listSame) out.push(`${name} row ${i} column ${a[0][j]}: ${JSON.stringify(x)} vs ${JSON.stringify(y)}`);
    }
  }
  return out;
}
