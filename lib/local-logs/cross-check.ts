/**
 * Field-by-field comparison of the W&B history with the metric dicts slime printed to its local log:
 * each local record is matched with the W&B row of the same kind and step, and every field present
 * in both must be exactly equal (=== or both NaN; 0 equals -0, since JSON drops the sign of zero).
 */
import {
  CODE_CRITIC_UPDATE,
  CODE_EVAL,
  CODE_OPTIMIZER_UPDATE,
  CODE_ROLLOUT_MANAGER,
  CODE_TRAINER_PERF,
  CODE_TRAINER_ROLLOUT,
  classifyRowCode,
} from "../axes/key-flags";
import { STEP_KEYS } from "../schema/slime-metrics";
import type { HistoryRow, RunHistory } from "../types";
import type { LocalLogKind, LocalLogRecord } from "./parse-slime-log";

/** A field present in both with different values. */
export interface CrossCheckMismatch {
  runId: string;
  round: string | null;
  kind: LocalLogKind;
  step: number;
  key: string;
  wandb: number;
  local: number;
  /** Line of the local record. */
  line: number;
}

/** A field present on one side only. */
export interface CrossCheckField {
  runId: string;
  round: string | null;
  kind: LocalLogKind;
  step: number;
  key: string;
  line: number;
}

/** A local record without a W&B row of the same kind and step. */
export interface CrossCheckUnmatched {
  runId: string;
  round: string | null;
  kind: LocalLogKind;
  step: number;
  line: number;
}

/** Counts for one run. */
export interface CrossCheckRunSummary {
  runId: string;
  /** null for a local run id that is not among the W&B runs. */
  round: string | null;
  records: number;
  matchedRecords: number;
  /** Fields present in both. */
  compared: number;
  /** Of those, exactly equal. */
  exact: number;
  mismatches: number;
  onlyInWandb: number;
  onlyInLocal: number;
  unmatchedRecords: number;
  /** W&B rows of a slime kind that no local record matched (e.g. a log that starts late). */
  wandbRowsWithoutLocal: number;
}

/** Result of {@link crossCheck}. */
export interface CrossCheckResult {
  /**
   * True when at least one field was compared, every compared field agreed exactly, no local field
   * was missing from W&B, and every local record had a W&B row. Fields only in W&B do not count
   * against agreement (they are listed).
   */
  agree: boolean;
  records: number;
  matchedRecords: number;
  compared: number;
  exact: number;
  mismatches: CrossCheckMismatch[];
  onlyInWandb: CrossCheckField[];
  onlyInLocal: CrossCheckField[];
  unmatched: CrossCheckUnmatched[];
  runs: CrossCheckRunSummary[];
  /** W&B runs with no local records (not checked). */
  runsWithoutLocal: string[];
}

/** Local kind of each W&B row kind code, and the step key slime logs it against. */
const BY_CODE: Record<number, { kind: LocalLogKind; stepKeys: string[] }> = {
  [CODE_ROLLOUT_MANAGER]: { kind: "rollout-manager-perf", stepKeys: [STEP_KEYS.rollout] },
  [CODE_TRAINER_PERF]: { kind: "trainer-perf", stepKeys: [STEP_KEYS.rollout] },
  [CODE_TRAINER_ROLLOUT]: { kind: "rollout", stepKeys: [STEP_KEYS.rollout] },
  [CODE_OPTIMIZER_UPDATE]: { kind: "step", stepKeys: [STEP_KEYS.train] },
  [CODE_CRITIC_UPDATE]: { kind: "critic-step", stepKeys: [STEP_KEYS.train, STEP_KEYS.critic] },
  [CODE_EVAL]: { kind: "eval", stepKeys: [STEP_KEYS.eval] },
};

/**
 * Step keys slime adds to a dict after printing it, so a local record legitimately lacks them:
 * rollout/step (and train/step under --wandb-always-use-train-step) on perf and rollout rows,
 * eval/step on eval rows. `step` lines print train/step, so it is compared there.
 */
const ADDED_AFTER_LOGGING: Record<LocalLogKind, ReadonlySet<string>> = {
  "rollout-manager-perf": new Set([STEP_KEYS.rollout, STEP_KEYS.train]),
  "trainer-perf": new Set([STEP_KEYS.rollout]),
  rollout: new Set([STEP_KEYS.rollout]),
  step: new Set(),
  "critic-step": new Set(),
  eval: new Set([STEP_KEYS.eval]),
};

function same(a: number, b: number): boolean {
  return a === b || (a !== a && b !== b);
}

/**
 * Compares local log records (by run id) with the W&B rows of the same runs.
 * @example crossCheck(archive.runs, new Map([["abc123", parseSlimeLog(text, { runId: "abc123" })]])).agree
 */
export function crossCheck(runs: RunHistory[], local: Map<string, LocalLogRecord[]>): CrossCheckResult {
  const result: CrossCheckResult = {
    agree: false,
    records: 0,
    matchedRecords: 0,
    compared: 0,
    exact: 0,
    mismatches: [],
    onlyInWandb: [],
    onlyInLocal: [],
    unmatched: [],
    runs: [],
    runsWithoutLocal: [],
  };
  const known = new Map(runs.map((r) => [r.runId, r] as const));
  for (const run of runs) if (!local.has(run.runId)) result.runsWithoutLocal.push(run.runId);

  for (const [runId, records] of local) {
    const run = known.get(runId);
    const round = run ? run.round : null;
    const sum: CrossCheckRunSummary = {
      runId,
      round,
      records: records.length,
      matchedRecords: 0,
      compared: 0,
      exact: 0,
      mismatches: 0,
      onlyInWandb: 0,
      onlyInLocal: 0,
      unmatchedRecords: 0,
      wandbRowsWithoutLocal: 0,
    };
    const rows = run ? run.rows : [];
    // Index the run's rows by local kind and step.
    const index = new Map<string, number[]>();
    let slimeRows = 0;
    rows.forEach((row, i) => {
      const spec = BY_CODE[classifyRowCode(row)];
      if (spec === undefined) return;
      slimeRows++;
      const key = spec.stepKeys.find((k) => k in row);
      if (key === undefined) return;
      const id = `${spec.kind}:${row[key]}`;
      const list = index.get(id);
      if (list) list.push(i);
      else index.set(id, [i]);
    });
    const used = new Set<number>();

    for (const rec of records) {
      const cands = index.get(`${rec.kind}:${rec.id}`);
      if (cands === undefined) {
        sum.unmatchedRecords++;
        result.unmatched.push({ runId, round, kind: rec.kind, step: rec.id, line: rec.line });
        continue;
      }
      const i = bestRow(rows, cands, rec, used);
      used.add(i);
      sum.matchedRecords++;
      const row = rows[i];
      for (const key in rec.values) {
        const lv = rec.values[key];
        if (!(key in row)) {
          sum.onlyInLocal++;
          result.onlyInLocal.push({ runId, round, kind: rec.kind, step: rec.id, key, line: rec.line });
          continue;
        }
        sum.compared++;
        const wv = row[key];
        if (same(wv, lv)) sum.exact++;
        else {
          sum.mismatches++;
          result.mismatches.push({ runId, round, kind: rec.kind, step: rec.id, key, wandb: wv, local: lv, line: rec.line });
        }
      }
      const added = ADDED_AFTER_LOGGING[rec.kind];
      for (const key in row) {
        if (key.charCodeAt(0) === 95 /* _ */ || key in rec.values || added.has(key)) continue;
        // A value the log printed as non-numeric (e.g. True) is not "missing" from the log.
        if (rec.skipped !== undefined && rec.skipped.includes(key)) continue;
        sum.onlyInWandb++;
        result.onlyInWandb.push({ runId, round, kind: rec.kind, step: rec.id, key, line: rec.line });
      }
    }
    sum.wandbRowsWithoutLocal = run ? slimeRows - used.size : 0;
    result.runs.push(sum);
    result.records += sum.records;
    result.matchedRecords += sum.matchedRecords;
    result.compared += sum.compared;
    result.exact += sum.exact;
  }
  result.agree =
    result.compared > 0 && result.mismatches.length === 0 && result.onlyInLocal.length === 0 && result.unmatched.length === 0;
  return result;
}

/** The candidate row sharing the most keys with the record; unused rows first, then row order. */
function bestRow(rows: HistoryRow[], cands: number[], rec: LocalLogRecord, used: Set<number>): number {
  if (cands.length === 1) return cands[0];
  let best = cands[0];
  let bestScore = -1;
  for (const i of cands) {
    let shared = 0;
    for (const k in rec.values) if (k in rows[i]) shared++;
    const score = shared * 2 + (used.has(i) ? 0 : 1);
    if (score > bestScore) {
      best = i;
      bestScore = score;
    }
  }
  return best;
}
