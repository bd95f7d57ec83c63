/**
 * Field-by-field comparison of the aligned W&B records with the metric dicts slime printed to its
 * local log. Pairing uses the aligned records' ids, never raw step values: `perf N:`, `rollout N:`
 * (multi_turn, passrate, no-filter) and `eval N:` lines pair by their raw rollout id N with the
 * rollout record (AxisRecord.rollout) or eval record (EvalRecord.evalStep) of that rollout id, so a
 * run logged with --wandb-always-use-train-step pairs correctly once alignment has converted its
 * rollout/step values to rollout ids; `step N:` and `critic-step N:` lines pair by train/step with the
 * update record (UpdateRecord.trainStep; critic keys `train/critic-*` merged into it). Every field
 * present in both must be exactly equal (=== or both NaN; 0 equals -0, since JSON drops the sign of
 * zero). Metric lines that did not parse are carried into the verdict: it never says "agree" while
 * one was skipped.
 */
import { classifyRow } from "../align/index";
import { STEP_KEYS } from "../registry/profile-slime";
import type { AlignedRuns } from "../types";
import type { LocalLogKind, LocalLogRecord, MalformedLine, SlimeLogStats } from "./parse-slime-log";
import { keysOf } from "../values/compact-values";

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

/** A local record without a W&B record of its axis and id. */
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
  /** Aligned W&B records (rollout, update, eval) that no local record paired with (e.g. a log that starts late). */
  wandbRecordsWithoutLocal: number;
  /** Metric lines of the run's log that did not parse (not compared). */
  malformedLines: number;
  /** Local records of superseded W&B records (a later logging replaced them), not compared: an earlier logging of an id that survives is superseded too. */
  supersededRecords: number;
}

/** A metric line that did not parse, with its run. */
export interface CrossCheckMalformed extends MalformedLine {
  runId: string;
}

/** The aligned records the check pairs with (an AlignedRuns, or the parts of it the check reads). */
export type CrossCheckAligned = Pick<AlignedRuns, "runs" | "rollouts" | "updates" | "evals"> & Partial<Pick<AlignedRuns, "superseded" | "criticOnly">>;

/** The parsed local logs: records by run id, and per log file its counts and malformed lines (as readLocalLogFiles returns them). */
export interface CrossCheckLocal {
  records: Map<string, LocalLogRecord[]>;
  stats: readonly { runId: string; file: string; stats: SlimeLogStats; malformed?: readonly MalformedLine[] }[];
}

/** Result of {@link crossCheck}. */
export interface CrossCheckResult {
  /**
   * True when at least one field was compared, every compared field agreed exactly, no local field
   * was missing from W&B, every local record had a W&B record, and no metric line was malformed.
   * Fields only in W&B do not count against agreement (they are listed).
   */
  agree: boolean;
  /** One sentence: the agreement, or what stands against it (malformed lines named by file:line and reason). */
  verdict: string;
  records: number;
  matchedRecords: number;
  compared: number;
  exact: number;
  mismatches: CrossCheckMismatch[];
  onlyInWandb: CrossCheckField[];
  onlyInLocal: CrossCheckField[];
  unmatched: CrossCheckUnmatched[];
  /** Metric lines that did not parse, in file order per log; their fields were not compared. */
  malformed: CrossCheckMalformed[];
  runs: CrossCheckRunSummary[];
  /** W&B runs with no local records (not checked). */
  runsWithoutLocal: string[];
}

/** Which aligned record a local record pairs with. */
type Axis = "rollout" | "update" | "eval";

/** One aligned W&B record of a run and the local records paired with it. */
interface Target {
  axis: Axis;
  /** Rollout id (rollout, eval) or train/step (update). */
  id: number;
  values: Record<string, number>;
  paired: LocalLogRecord[];
}

const AXIS_OF: Record<LocalLogKind, Axis> = {
  "rollout-manager-perf": "rollout",
  "trainer-perf": "rollout",
  rollout: "rollout",
  step: "update",
  "critic-step": "update",
  eval: "eval",
};

/**
 * Step keys never compared: slime adds rollout/step and eval/step after printing the dict (only the
 * rollout-buffer plugin prints rollout/step), and --wandb-always-use-train-step scales their W&B
 * value; the pairing already used the ids. `step N:` lines print train/step, so it is compared.
 */
const AXIS_KEYS: Record<Axis, ReadonlySet<string>> = {
  rollout: new Set([STEP_KEYS.rollout]),
  update: new Set(),
  eval: new Set([STEP_KEYS.eval]),
};

/** Malformed lines named in the verdict before "...". */
const VERDICT_LINES = 3;

function same(a: number, b: number): boolean {
  return a === b || (a !== a && b !== b);
}

/** One run's aligned records by kind, as references: its pairing targets are built only while it is checked. */
interface RunRecords {
  rollouts: CrossCheckAligned["rollouts"];
  updates: CrossCheckAligned["updates"];
  criticOnly: NonNullable<CrossCheckAligned["criticOnly"]>;
  evals: CrossCheckAligned["evals"];
}

/**
 * The aligned records of the runs in `runIds` (the runs with local records), grouped by run in record
 * order. References only: a target object per record for every run at once was ~150 MB at 10^6
 * updates, and built even for runs without a local log.
 */
function recordsByRun(aligned: CrossCheckAligned, runIds: readonly string[]): Map<string, RunRecords> {
  const out = new Map<string, RunRecords>();
  for (const runId of runIds) out.set(runId, { rollouts: [], updates: [], criticOnly: [], evals: [] });
  for (const r of aligned.rollouts) out.get(r.runId)?.rollouts.push(r);
  for (const u of aligned.updates) out.get(u.runId)?.updates.push(u);
  for (const u of aligned.criticOnly ?? []) out.get(u.runId)?.criticOnly.push(u);
  for (const e of aligned.evals) out.get(e.runId)?.evals.push(e);
  return out;
}

/** A run's records as pairing targets, in the order ties are broken in: rollouts, updates, critic-only steps, evals. */
function targetsOf(records: RunRecords): Target[] {
  const out: Target[] = [];
  for (const r of records.rollouts) out.push({ axis: "rollout", id: r.rollout, values: r.values, paired: [] });
  for (const u of records.updates) out.push({ axis: "update", id: u.trainStep, values: u.values, paired: [] });
  // Critic-only steps (--num-critic-only-steps) are not actor updates, but their critic-step lines pair with them.
  for (const u of records.criticOnly) out.push({ axis: "update", id: u.trainStep, values: u.values, paired: [] });
  for (const e of records.evals) out.push({ axis: "eval", id: e.rollout, values: e.values, paired: [] });
  return out;
}

/**
 * Compares the parsed local logs (by run id) with the aligned W&B records of the same runs.
 * @example crossCheck(aligned, readLocalLogFiles("data/local", runIds)).verdict
 */
export function crossCheck(aligned: CrossCheckAligned, local: CrossCheckLocal): CrossCheckResult {
  const result: CrossCheckResult = {
    agree: false,
    verdict: "",
    records: 0,
    matchedRecords: 0,
    compared: 0,
    exact: 0,
    mismatches: [],
    onlyInWandb: [],
    onlyInLocal: [],
    unmatched: [],
    malformed: [],
    runs: [],
    runsWithoutLocal: [],
  };
  const known = new Map(aligned.runs.map((r) => [r.runId, r] as const));
  const malformedCount = new Map<string, number>();
  for (const s of local.stats) {
    malformedCount.set(s.runId, (malformedCount.get(s.runId) ?? 0) + s.stats.malformed);
    for (const m of s.malformed ?? []) result.malformed.push({ runId: s.runId, ...m });
  }
  const runIds = Array.from(local.records.keys());
  for (const s of local.stats) if (!local.records.has(s.runId) && !runIds.includes(s.runId)) runIds.push(s.runId);
  for (const run of aligned.runs) if (!runIds.includes(run.runId)) result.runsWithoutLocal.push(run.runId);
  const grouped = recordsByRun(aligned, runIds);

  for (const runId of runIds) {
    const run = known.get(runId);
    const ids = supersededIds(aligned, runId);
    const records = dropSuperseded(local.records.get(runId) ?? [], ids);
    const sum = checkRun(runId, run ? run.round : null, records.kept, run ? targetsOf(grouped.get(runId)!) : null, result, ids);
    grouped.delete(runId);
    sum.supersededRecords += records.dropped;
    sum.malformedLines = malformedCount.get(runId) ?? 0;
    result.runs.push(sum);
    result.records += sum.records;
    result.matchedRecords += sum.matchedRecords;
    result.compared += sum.compared;
    result.exact += sum.exact;
  }
  const malformed = result.runs.reduce((a, r) => a + r.malformedLines, 0);
  const clean = result.mismatches.length === 0 && result.onlyInLocal.length === 0 && result.unmatched.length === 0;
  result.agree = result.compared > 0 && clean && malformed === 0;
  result.verdict = verdictOf(result, clean, malformed);
  return result;
}

/** `axis:id` keys of a run's superseded records (rollout ids of rollout rows, train/steps of updates). */
function supersededIds(aligned: CrossCheckAligned, runId: string): Set<string> {
  const out = new Set<string>();
  for (const s of aligned.superseded ?? []) {
    if (s.runId !== runId) continue;
    for (const r of s.rollouts) out.add(`rollout:${r}`);
    for (const t of s.trainSteps) out.add(`update:${t}`);
    for (const r of s.evalRollouts ?? []) out.add(`eval:${r}`);
  }
  return out;
}

/**
 * Leaves out the local records of superseded W&B records: of each superseded id only the last local
 * record per kind is kept (it belongs to the surviving logging when the run was resumed in place;
 * when a later round took the id over, it finds no W&B record of this run and is dropped too).
 */
function dropSuperseded(records: LocalLogRecord[], ids: Set<string>): { kept: LocalLogRecord[]; dropped: number } {
  if (ids.size === 0) return { kept: records, dropped: 0 };
  const last = new Map<string, number>();
  records.forEach((rec, i) => {
    const key = `${AXIS_OF[rec.kind]}:${rec.id}`;
    if (ids.has(key)) last.set(`${rec.kind}|${key}`, i);
  });
  const kept: LocalLogRecord[] = [];
  let dropped = 0;
  records.forEach((rec, i) => {
    const key = `${AXIS_OF[rec.kind]}:${rec.id}`;
    if (ids.has(key) && last.get(`${rec.kind}|${key}`) !== i) dropped++;
    else kept.push(rec);
  });
  return { kept, dropped };
}

/** Pairs and compares one run's local records; pushes the findings into `result`. `targets` is null for a run W&B does not know. */
function checkRun(
  runId: string,
  round: string | null,
  records: LocalLogRecord[],
  targets: Target[] | null,
  result: CrossCheckResult,
  supersededHere: Set<string> | null = null,
): CrossCheckRunSummary {
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
    wandbRecordsWithoutLocal: 0,
    malformedLines: 0,
    supersededRecords: 0,
  };
  const index = targetIndex(targets ?? []);
  const pairedOrder: Target[] = [];
  for (const rec of records) {
    const axis = AXIS_OF[rec.kind];
    const cands = index.get(`${axis}:${rec.id}`);
    if (cands === undefined && supersededHere !== null && supersededHere.has(`${axis}:${rec.id}`)) {
      sum.supersededRecords++;
      continue;
    }
    if (cands === undefined) {
      sum.unmatchedRecords++;
      result.unmatched.push({ runId, round, kind: rec.kind, step: rec.id, line: rec.line });
      continue;
    }
    const t = bestTarget(cands, rec);
    if (t.paired.length === 0) pairedOrder.push(t);
    t.paired.push(rec);
    sum.matchedRecords++;
    compareValues(rec, t, sum, result);
  }
  listOnlyInWandb(pairedOrder, sum, result);
  sum.wandbRecordsWithoutLocal = targets ? targets.length - pairedOrder.length : 0;
  return sum;
}

/** W&B records by `axis:id` (several per id when a run logged one twice). */
function targetIndex(targets: readonly Target[]): Map<string, Target[]> {
  const index = new Map<string, Target[]>();
  for (const t of targets) {
    const id = `${t.axis}:${t.id}`;
    const list = index.get(id);
    if (list) list.push(t);
    else index.set(id, [t]);
  }
  return index;
}

/** Compares every value of a local record with its W&B record (axis keys left out); counts into `sum`, lists into `result`. */
function compareValues(rec: LocalLogRecord, t: Target, sum: CrossCheckRunSummary, result: CrossCheckResult): void {
  const { runId, round } = sum;
  const skip = AXIS_KEYS[AXIS_OF[rec.kind]];
  for (const key in rec.values) {
    if (skip.has(key)) continue;
    const lv = rec.values[key];
    if (!(key in t.values)) {
      sum.onlyInLocal++;
      result.onlyInLocal.push({ runId, round, kind: rec.kind, step: rec.id, key, line: rec.line });
      continue;
    }
    sum.compared++;
    const wv = t.values[key];
    if (same(wv, lv)) sum.exact++;
    else {
      sum.mismatches++;
      result.mismatches.push({ runId, round, kind: rec.kind, step: rec.id, key, wandb: wv, local: lv, line: rec.line });
    }
  }
}

/** Keys of each paired W&B record that none of its local lines printed (a value printed as non-numeric, e.g. None, counts as printed). */
function listOnlyInWandb(paired: Target[], sum: CrossCheckRunSummary, result: CrossCheckResult): void {
  const { runId, round } = sum;
  for (const t of paired) {
    const printed = new Set<string>();
    for (const rec of t.paired) {
      for (const k in rec.values) printed.add(k);
      for (const k of rec.skipped ?? []) printed.add(k);
    }
    const skip = AXIS_KEYS[t.axis];
    for (const key of keysOf(t.values)) {
      if (key.charCodeAt(0) === 95 /* _ */ || printed.has(key) || skip.has(key)) continue;
      const kind = kindOfKey(t.axis, key);
      const line = (t.paired.find((r) => r.kind === kind) ?? t.paired[0]).line;
      sum.onlyInWandb++;
      result.onlyInWandb.push({ runId, round, kind, step: t.id, key, line });
    }
  }
}

/** The local kind that prints a W&B key, judged from the key alone (for listing fields only in W&B). */
function kindOfKey(axis: Axis, key: string): LocalLogKind {
  if (axis === "update") return key.startsWith("train/critic-") ? "critic-step" : "step";
  if (axis === "eval") return "eval";
  const kind = classifyRow({ [key]: 0, [STEP_KEYS.rollout]: 0 });
  return kind === "rollout-manager" ? "rollout-manager-perf" : kind === "trainer-perf" ? "trainer-perf" : "rollout";
}

/** The candidate record sharing the most keys with the local record; not yet paired first, then record order. */
function bestTarget(cands: Target[], rec: LocalLogRecord): Target {
  if (cands.length === 1) return cands[0];
  let best = cands[0];
  let bestScore = -1;
  for (const t of cands) {
    let shared = 0;
    for (const k in rec.values) if (k in t.values) shared++;
    const score = shared * 2 + (t.paired.length === 0 ? 1 : 0);
    if (score > bestScore) {
      best = t;
      bestScore = score;
    }
  }
  return best;
}

/** The verdict sentence of a finished check. */
function verdictOf(r: CrossCheckResult, clean: boolean, malformed: number): string {
  let bad = "";
  if (malformed > 0) {
    const named = r.malformed.slice(0, VERDICT_LINES).map((m) => `${m.file}:${m.line} (${m.message}: ${m.reason})`);
    const more = named.length > 0 && malformed > named.length ? ", ... (see check.malformed)" : "";
    bad = `${malformed} metric line(s) were malformed and not compared${named.length > 0 ? ": " + named.join(", ") : ""}${more}`;
  }
  const scope = `${r.compared} field(s) of ${r.matchedRecords} paired record(s)`;
  if (r.compared === 0) return `nothing compared: ${r.records} local record(s), none sharing a field with a W&B record${bad ? "; " + bad : ""}`;
  if (!clean) {
    const what = [
      r.mismatches.length ? `${r.mismatches.length} mismatch(es)` : "",
      r.onlyInLocal.length ? `${r.onlyInLocal.length} field(s) only in the local logs` : "",
      r.unmatched.length ? `${r.unmatched.length} local record(s) without a W&B record` : "",
    ].filter(Boolean);
    return `W&B and the local logs DISAGREE: ${what.join(", ")} (${scope})${bad ? "; also " + bad : ""}`;
  }
  if (bad) return `W&B and the local logs agree on the ${r.matchedRecords} parsed record(s) (${r.compared} field(s)), but ${bad}: not verified`;
  return `W&B and the local logs agree exactly: ${scope}`;
}
