/**
 * The record-level export tables: one row per rollout batch (`rollouts.csv`) and one row per
 * optimizer update (`updates.csv`). Axis columns first, then every W&B key of the families the file
 * holds, found in any record, in plain code-unit order. A key a record did not log is an empty cell.
 */
import type { AlignedRuns, AxisRecord, UpdateRecord } from "../types";
import type { ExportCell } from "./export-cell";
import type { ExportTable } from "./csv-text";
import type { StreamedTable } from "./packed-table";
import { isView, keysOf as valueKeys, readValues } from "../values/compact-values";
import { packRecords } from "./packed-table";

/** File name of the rollout-batch table. */
export const ROLLOUTS_FILE = "rollouts.csv";
/** File name of the optimizer-update table. */
export const UPDATES_FILE = "updates.csv";
/** File name of the superseded-records table. */
export const SUPERSEDED_FILE = "superseded.csv";

/** Leading columns of rollouts.csv. */
export const ROLLOUT_AXIS_COLUMNS: readonly string[] = ["round", "run_id", "rollout"];
/** Leading columns of updates.csv. */
export const UPDATE_AXIS_COLUMNS: readonly string[] = ["round", "run_id", "update", "train_step", "rollout", "update_in_rollout"];

/**
 * Every key of `records[from..to)`, sorted by UTF-16 code unit (Array#sort's default): keys the schema
 * does not know are carried through.
 */
export function recordKeys(records: readonly { values: Record<string, number> }[], from = 0, to = records.length): string[] {
  const keys = new Set<string>();
  // Compact views share one key list per key sequence: each list is read once.
  const seen = new Set<readonly string[]>();
  for (let i = from; i < to; i++) {
    const r = records[i];
    const ks = valueKeys(r.values);
    if (seen.has(ks)) continue;
    if (isView(r.values)) seen.add(ks);
    for (const k of ks) keys.add(k);
  }
  return [...keys].sort();
}

/** How a record table is laid out: its file, axis columns, their cells per record, and the key its rows are sorted by (ties in run order). */
export interface RecordTableSpec<T> {
  name: string;
  axis: readonly string[];
  lead: readonly ((r: T) => string | number)[];
  sortBy: (r: T) => number;
}

/** rollouts.csv's layout (also printed while aligning, early-record-csv.ts). */
export const ROLLOUT_TABLE: RecordTableSpec<AxisRecord> = {
  name: ROLLOUTS_FILE,
  axis: ROLLOUT_AXIS_COLUMNS,
  lead: [(r) => r.round, (r) => r.runId, (r) => r.rollout],
  sortBy: (r) => r.rollout,
};

/** updates.csv's layout. */
export const UPDATE_TABLE: RecordTableSpec<UpdateRecord> = {
  name: UPDATES_FILE,
  axis: UPDATE_AXIS_COLUMNS,
  lead: [(u) => u.round, (u) => u.runId, (u) => u.update, (u) => u.trainStep, (u) => u.rollout, (u) => u.updateInRollout],
  sortBy: (u) => u.update,
};

/** Indices of `items` sorted by `by`, ties in their original (run) order (a typed array: 10^6 rows). */
function stableOrder<T>(items: readonly T[], by: (x: T) => number): Int32Array {
  const idx = new Int32Array(items.length);
  for (let i = 0; i < idx.length; i++) idx[i] = i;
  // Records usually come in order already (runs in order, each in step order): then the identity is
  // the stable order, found in one pass instead of a sort that calls `by` twice per comparison.
  return inOrder(items, by) ? idx : idx.sort((a, b) => by(items[a]) - by(items[b]) || a - b);
}

/** True when `by` never decreases along `items` and is never NaN (the sort would then keep every index in place). */
function inOrder<T>(items: readonly T[], by: (x: T) => number): boolean {
  if (items.length === 0) return true;
  let prev = by(items[0]);
  if (Number.isNaN(prev)) return false;
  for (let i = 1; i < items.length; i++) {
    const v = by(items[i]);
    if (!(v >= prev)) return false;
    prev = v;
  }
  return true;
}

/**
 * rollouts.csv: `round,run_id,rollout`, then every key of the rollout records (rollout/*, perf/*, multi_turn/*,
 * passrate/*, and keys of no known family); rows sorted by rollout.
 * @example rolloutsTable(aligned).columns.slice(0, 3) // ["round", "run_id", "rollout"]
 */
export function rolloutsTable(aligned: AlignedRuns): StreamedTable {
  const keys = recordKeys(aligned.rollouts);
  const columns = columnsOf(keys);
  const order = stableOrder(aligned.rollouts, ROLLOUT_TABLE.sortBy);
  const row = (i: number): ExportCell[] => {
    const r = aligned.rollouts[order[i]];
    return withValues([r.round, r.runId, r.rollout], r.values, columns);
  };
  const table = { name: ROLLOUTS_FILE, columns: [...ROLLOUT_AXIS_COLUMNS, ...keys], rowCount: order.length, row };
  return { ...table, pack: () => packRecords(table, aligned.rollouts, order, ROLLOUT_TABLE.lead) };
}

/**
 * updates.csv: `round,run_id,update,train_step,rollout,update_in_rollout`, then every key of the update
 * records (train/*, the critic's train/critic-* merged in);
 * rows sorted by display update number.
 * @example updatesTable(aligned).row(0)[2] // 1 (the first update)
 */
export function updatesTable(aligned: AlignedRuns): StreamedTable {
  const keys = recordKeys(aligned.updates);
  const columns = columnsOf(keys);
  const order = stableOrder(aligned.updates, UPDATE_TABLE.sortBy);
  const row = (i: number): ExportCell[] => {
    const u = aligned.updates[order[i]];
    return withValues([u.round, u.runId, u.update, u.trainStep, u.rollout, u.updateInRollout], u.values, columns);
  };
  const table = { name: UPDATES_FILE, columns: [...UPDATE_AXIS_COLUMNS, ...keys], rowCount: order.length, row };
  return { ...table, pack: () => packRecords(table, aligned.updates, order, UPDATE_TABLE.lead) };
}

/** Columns of superseded.csv. */
export const SUPERSEDED_COLUMNS: readonly string[] = ["round", "run_id", "record", "rollout", "update", "train_step", "by_round", "by_run_id"];

/**
 * superseded.csv: one row per superseded rollout record, per superseded update and per superseded
 * eval row (a later logging of the same rollouts replaced them), in run order, rollouts, updates, then
 * evals; header only when none. `update` is the display number under the superseded run's own formula;
 * an eval row's `rollout` is the rollout id (or step) it evaluated. Evals are listed because the
 * manifest's message counts them: a file that left them out disagreed with it (issue 39, case 8).
 */
export function supersededTable(aligned: AlignedRuns): ExportTable {
  const rows: ExportCell[][] = [];
  const nOf = new Map(aligned.mapping.runs.map((a) => [a.runId, a.n] as const));
  for (const s of aligned.superseded) {
    for (const r of s.rollouts) rows.push([s.round, s.runId, "rollout", r, null, null, s.byRound, s.byRunId]);
    const n = nOf.get(s.runId) ?? aligned.mapping.n;
    s.updates.forEach((u, i) => rows.push([s.round, s.runId, "update", Math.floor(s.trainSteps[i] / n), u, s.trainSteps[i], s.byRound, s.byRunId]));
    for (const r of s.evalRollouts) rows.push([s.round, s.runId, "eval", r, null, null, s.byRound, s.byRunId]);
  }
  return { name: SUPERSEDED_FILE, columns: [...SUPERSEDED_COLUMNS], rows };
}

/** Column position of each value key (after the axis columns). */
function columnsOf(keys: readonly string[]): Columns {
  return { of: new Map(keys.map((k, c) => [k, c] as const)), byKeyList: new Map() };
}

/** Column positions by key, and per shared key list of compact views, the position of each of its keys. */
interface Columns {
  of: ReadonlyMap<string, number>;
  byKeyList: Map<readonly string[], Int32Array>;
}

/** Column position of each key in `keys` (cached for a view's shared key list). */
function positionsOf(columns: Columns, keys: readonly string[], shared: boolean): ArrayLike<number> {
  const cached = shared ? columns.byKeyList.get(keys) : undefined;
  if (cached !== undefined) return cached;
  const pos = new Int32Array(keys.length);
  for (let j = 0; j < keys.length; j++) pos[j] = columns.of.get(keys[j])!;
  if (shared) columns.byKeyList.set(keys, pos);
  return pos;
}

/** The values read by withValues (one record at a time). */
const scratch: number[] = [];

/**
 * `lead` followed by one cell per value column: the record's value, or null where the key was not
 * logged (never 0). Values are read once each, in the record's own key order.
 */
function withValues(lead: ExportCell[], values: Record<string, number>, columns: Columns): ExportCell[] {
  const base = lead.length;
  for (let c = 0; c < columns.of.size; c++) lead.push(null);
  const keys = readValues(values, scratch);
  const pos = positionsOf(columns, keys, isView(values));
  for (let j = 0; j < keys.length; j++) lead[base + pos[j]] = scratch[j];
  return lead;
}
