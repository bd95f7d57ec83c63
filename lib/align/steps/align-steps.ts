/**
 * Alignment of frameworks that log one row per training (or logging) step: verl, OpenRLHF, TRL
 * (lib/registry/profile-*.ts). Each training row becomes one record on the profile's step key
 * (`rollouts`, the step in `rollout`); rows whose keys are all eval keys become evals; rows of run
 * totals (TRL's final row) and rows holding bookkeeping only (a non-numeric samples table) are left
 * out. Single optimizer updates are not observable: `updates` stays empty and the mapping says why.
 * Superseding as for slime: a run whose step goes back re-logged from there (resumed in place), and a
 * later round replaces every record of earlier rounds from its first step on. Nothing is interpolated.
 */
import type {
  AlignedRuns,
  AxisAlignment,
  AlignmentNote,
  CoverageIssue,
  EvalRecord,
  HistoryRow,
  Reporter,
  AxisRecord,
  RunAxis,
  RunCoverage,
  RunHistory,
  SupersededRecords,
} from "../../types";
import { mappedKeys, singular, type FrameworkProfile, type LoggingInterval } from "../../registry/framework-profile";
import { stepAxisOf, type AxisOfKind } from "../../registry/profile-axis";
import { expectedBetween, knownInterval } from "../../registry/logging-interval";
import { keyRowsOf } from "../key-rows";
import { rowReader } from "../row-reader";
import { runMetaOf } from "../run-meta";
import { isView, keysOf } from "../../values/compact-values";
import type { AlignMemo, RunPassMemo } from "../pass-memo";

type StepAxis = AxisOfKind<"step">;

/** Options of {@link alignSteps}. */
export interface AlignStepsOptions {
  reporter?: Reporter;
  /** What earlier alignments of the same runs built (AlignRunsOptions.memo): rows' values reused where the rows are the same objects. */
  memo?: AlignMemo;
}

/** A row's role under a step profile ("own": a row the framework logs about itself, see ProfileAxis.ownRows). */
type Role = "train" | "eval" | "summary" | "own" | "empty" | "other";

interface RowInfo {
  role: Role;
  /** The step of a train or eval row; for an own row, the index of its `ownRows` family; NaN otherwise. */
  step: number;
  /** Index of the run whose logging replaced the row; -1 while live. */
  by: number;
}

function isEvalKey(axis: StepAxis, k: string): boolean {
  return axis.evalPrefixes.some((p) => k.startsWith(p));
}

function ownFamilyOf(axis: StepAxis, k: string): number {
  return axis.ownRows.findIndex((o) => k.startsWith(o.prefix));
}

/** What a row's keys alone say of it: its role when they decide it (null: its step keys decide), its own family, whether every metric key is an eval key. */
interface KeyFacts {
  role: "summary" | "empty" | "own" | null;
  own: number;
  evalOnly: boolean;
}

/** The facts of one key list (see KeyFacts). */
function keyFacts(axis: StepAxis, keys: readonly string[]): KeyFacts {
  let metric = false;
  let evalOnly = true;
  let own = -2; // -2: no metric key yet; -1: a key outside every own family; >= 0: the one family so far
  for (const k of keys) {
    if (k.charCodeAt(0) === 95 /* _ */ || axis.stepKeys.includes(k)) continue;
    if (axis.summaryKeys.includes(k)) return { role: "summary", own: -1, evalOnly: false };
    metric = true;
    if (!isEvalKey(axis, k)) evalOnly = false;
    const family = own === -1 ? -1 : ownFamilyOf(axis, k);
    own = own === -2 || own === family ? family : -1;
  }
  if (!metric) return { role: "empty", own: -1, evalOnly: false };
  if (own >= 0) return { role: "own", own, evalOnly: false };
  return { role: null, own: -1, evalOnly };
}

/**
 * Role and step of each row of a run; throws naming run, key and _step for a step that is not a
 * non-negative integer. A row of the framework's own (every metric key in one `ownRows` family) gets
 * no step: the step W&B's step_sync stamps on it is the last training step's, not its own. The facts
 * of a compact row's keys are worked out once per key list (rows of one shape share it).
 */
function rowInfos(axis: StepAxis, run: RunHistory): RowInfo[] {
  const byShape = new Map<readonly string[], KeyFacts>();
  return run.rows.map((row) => {
    const keys = keysOf(row);
    let facts = isView(row) ? byShape.get(keys) : undefined;
    if (facts === undefined) {
      facts = keyFacts(axis, keys);
      if (isView(row)) byShape.set(keys, facts);
    }
    return rowInfo(axis, row, run, facts);
  });
}

/** Role and step of one row, given what its keys say (see rowInfos). */
function rowInfo(axis: StepAxis, row: HistoryRow, run: RunHistory, facts: KeyFacts): RowInfo {
  if (facts.role !== null) return { role: facts.role, step: facts.role === "own" ? facts.own : NaN, by: -1 };
  const key = axis.stepKeys.find((k) => row[k] !== undefined);
  const step = key === undefined ? row._step : row[key];
  if (!Number.isInteger(step) || step < 0) {
    throw new Error(`run ${run.runId} (round ${run.round}): ${key ?? "_step"} = ${step} at _step ${row._step} is not a non-negative integer`);
  }
  if (facts.evalOnly) return { role: "eval", step, by: -1 };
  if (row[axis.stepKey] === undefined) return { role: "other", step, by: -1 };
  return { role: "train", step, by: -1 };
}

/**
 * Aligns runs of a step profile given in round order.
 * @example alignSteps(archive.runs, VERL_PROFILE).rollouts.map((r) => r.rollout) // training steps
 */
export function alignSteps(runs: RunHistory[], profile: FrameworkProfile, opts: AlignStepsOptions = {}): AxisAlignment {
  const axis = stepAxisOf(profile);
  if (axis === null) throw new Error(`invalid profile: ${profile.name} (alignSteps needs a step profile)`);
  const infos = runs.map((run) => rowInfos(axis, run));
  // Within a run: a training step at or below the last one re-logs from there (resumed in place).
  infos.forEach((info, ri) => supersedeBackwards(info, ri));
  const firsts = infos.map((info) => firstTrainStep(info));
  supersedeAcross(infos, firsts);
  const rollouts: AxisRecord[] = [];
  const evals: EvalRecord[] = [];
  const issues: CoverageIssue[] = [];
  const notes: AlignmentNote[] = [];
  runs.forEach((run, ri) => {
    const memo = opts.memo?.of(run.runId, run.round) ?? null;
    memo?.begin(run.rows);
    collectRecords(axis, run, infos[ri], { rollouts, evals, issues, notes }, memo);
    memo?.end();
  });
  const superseded = supersededOf(runs, infos);
  for (const s of superseded) notes.push({ runId: s.runId, round: s.round, kind: "superseded", step: s.rollouts[0] ?? null, message: s.message });
  const coverage = coverageOf(runs, rollouts, issues, axis.interval);
  const keys = mappedKeys(profile);
  const keyRows = runs.flatMap((run, ri) =>
    keyRowsOf(
      run,
      rowReader(run),
      infos[ri].map((x) => x.by),
      keys,
    ),
  );
  for (const note of notes) opts.reporter?.info?.(note.message);
  if (issues.length > 0) opts.reporter?.warn?.(`alignment found ${issues.length} issue(s), first: ${issues[0].message} (see aligned.issues)`);
  return {
    mapping: stepMapping(runs, profile, axis, firsts),
    rounds: runs.map((r) => r.round),
    runs: runs.map((r) => runMetaOf(r, r.rows.length)),
    rollouts,
    updates: [],
    evals,
    superseded,
    criticOnly: [],
    coverage,
    issues,
    notes,
    keyRows,
  };
}

/** Across runs: a later round replaces every record of earlier rounds from its first step on. */
function supersedeAcross(infos: RowInfo[][], firsts: (number | null)[]): void {
  for (let j = 0; j < infos.length; j++) {
    for (const x of infos[j]) {
      if (x.by !== -1 || (x.role !== "train" && x.role !== "eval")) continue;
      for (let k = j + 1; k < infos.length; k++) if (firsts[k] !== null && x.step >= firsts[k]!) x.by = k;
    }
  }
}

/** The axis mapping of a step profile: one record per step, no observable updates, r0 the first step. */
function stepMapping(runs: RunHistory[], profile: FrameworkProfile, axis: StepAxis, firsts: (number | null)[]): AlignedRuns["mapping"] {
  let r0 = Infinity;
  for (const f of firsts) if (f !== null) r0 = Math.min(r0, f);
  const runAxes: RunAxis[] = runs.map((run, i) => ({
    runId: run.runId,
    round: run.round,
    n: 0,
    alwaysUseTrainStep: null,
    flagEvidence: `${profile.label}: ${profile.stepAxis}`,
    firstRollout: firsts[i],
    updateBase: 0,
    formula: `record = ${axis.stepKey}; optimizer updates not observable`,
  }));
  return {
    n: 0,
    r0: r0 === Infinity ? 0 : r0,
    formulas: {
      update: `optimizer updates are not observable: ${profile.updates.note}`,
      rollout: `record = ${axis.stepKey} (one per ${singular(profile.recordNoun)})`,
      updateInRollout: "not observable",
    },
    runs: runAxes,
  };
}

function supersedeBackwards(info: RowInfo[], self: number): void {
  let prev = -Infinity;
  const restarts: { at: number; from: number }[] = [];
  info.forEach((x, i) => {
    if (x.role !== "train") return;
    if (x.step <= prev) restarts.push({ at: i, from: x.step });
    prev = x.step;
  });
  for (const r of restarts) {
    for (let i = 0; i < r.at; i++) {
      const x = info[i];
      if (x.by === -1 && (x.role === "train" || x.role === "eval") && x.step >= r.from) x.by = self;
    }
  }
}

function firstTrainStep(info: RowInfo[]): number | null {
  let first = Infinity;
  for (const x of info) if (x.role === "train" && x.step < first) first = x.step;
  return first === Infinity ? null : first;
}

function valuesOf(row: HistoryRow): Record<string, number> {
  const out: Record<string, number> = {};
  for (const k of keysOf(row)) if (k.charCodeAt(0) !== 95) out[k] = row[k];
  return out;
}

/** Where collectRecords puts what it finds. */
interface StepRecords {
  rollouts: AxisRecord[];
  evals: EvalRecord[];
  issues: CoverageIssue[];
  notes: AlignmentNote[];
}

/** Row i's values as a record holds them: as the last alignment built them from the same row (memo), else now. */
function recordValues(row: HistoryRow, i: number, memo: RunPassMemo | null): Record<string, number> {
  const had = memo?.rowValues(i);
  if (had !== undefined) return had;
  const values = valuesOf(row);
  return memo === null ? values : memo.keepRowValues(i, values);
}

function collectRecords(axis: StepAxis, run: RunHistory, info: RowInfo[], out: StepRecords, memo: RunPassMemo | null): void {
  const { rollouts, evals, issues, notes } = out;
  const { runId, round } = run;
  const mine: AxisRecord[] = [];
  let summaries = 0;
  const others: number[] = [];
  const own = new Array<number>(axis.ownRows.length).fill(0);
  run.rows.forEach((row, i) => {
    const x = info[i];
    if (x.role === "summary") summaries++;
    if (x.role === "own") own[x.step]++;
    if (x.role === "other") others.push(row._step);
    if (x.by !== -1) return;
    if (x.role === "train") mine.push({ runId, round, rollout: x.step, historySteps: [row._step], values: recordValues(row, i, memo) });
    else if (x.role === "eval") evals.push({ runId, round, evalStep: x.step, rollout: x.step, historyStep: row._step, values: recordValues(row, i, memo) });
  });
  mine.sort((a, b) => a.rollout - b.rollout);
  for (const r of mine) rollouts.push(r);
  if (summaries > 0) {
    notes.push({
      runId,
      round,
      kind: "run-totals",
      step: null,
      message: `run ${runId} (round ${round}): ${summaries} row(s) of run totals (e.g. train_runtime) kept out of the step records`,
    });
  }
  axis.ownRows.forEach((o, f) => {
    if (own[f] === 0) return;
    notes.push({
      runId,
      round,
      kind: "own-rows",
      step: null,
      message: `run ${runId} (round ${round}): ${own[f]} row(s) of ${o.what} (keys ${o.prefix}*) kept out of the step records and of superseding: the step W&B stamped on them is the last training step's`,
    });
  });
  if (others.length > 0) {
    issues.push({
      runId,
      round,
      kind: "unclassified-row",
      step: null,
      key: null,
      message: `run ${runId} (round ${round}): ${others.length} row(s) with metrics but no step key (first at _step ${others[0]})`,
    });
  }
}

function supersededOf(runs: RunHistory[], infos: RowInfo[][]): SupersededRecords[] {
  const out: SupersededRecords[] = [];
  runs.forEach((run, j) => {
    const groups = new Map<number, { steps: Set<number>; evals: number[]; rows: number }>();
    infos[j].forEach((x) => {
      if (x.by === -1) return;
      let g = groups.get(x.by);
      if (g === undefined) {
        g = { steps: new Set(), evals: [], rows: 0 };
        groups.set(x.by, g);
      }
      g.rows++;
      if (x.role === "train") g.steps.add(x.step);
      else g.evals.push(x.step);
    });
    for (const k of [...groups.keys()].sort((a, b) => a - b)) {
      const g = groups.get(k)!;
      const steps = [...g.steps].sort((a, b) => a - b);
      const by = runs[k];
      const how = k === j ? "re-logged by the same run (its step went back)" : `replaced by round ${by.round} (run ${by.runId})`;
      out.push({
        runId: run.runId,
        round: run.round,
        byRunId: by.runId,
        byRound: by.round,
        rollouts: steps,
        updates: [],
        trainSteps: [],
        evals: g.evals.length,
        evalRollouts: g.evals.sort((a, b) => a - b),
        rows: g.rows,
        message: `run ${run.runId} (round ${run.round}): ${g.rows} row(s) superseded, ${how}: ${steps.length > 0 ? `steps ${steps[0]}..${steps[steps.length - 1]} (${steps.length})` : "no training rows"}${g.evals.length > 0 ? `, ${g.evals.length} eval row(s)` : ""}; excluded from every record, mean and export`,
      });
    }
  });
  return out;
}

/** The steps a run must have a row at between two logged steps, and how that is known (for messages). */
interface SpacingRule {
  between(after: number, before: number): { first: number; last: number } | null;
  how: string;
}

/** The rule of a run: its logging setting where the profile declares one and its flags hold it, else the most common spacing. */
function spacingRule(interval: LoggingInterval | undefined, run: RunHistory, common: number): SpacingRule {
  const known = knownInterval(interval, run.flags);
  if (known !== null) return { between: (a, b) => expectedBetween(known, a, b), how: `a row every ${known.every} steps: ${known.setting}` };
  return {
    between: (a, b) => (b - a > common ? { first: a + common, last: b - common } : null),
    how: `a row every ${common} step${common === 1 ? "" : "s"}: the most common spacing of the records`,
  };
}

/**
 * The most common spacing of consecutive records over all runs, the larger on a tie; 1 when no run
 * has two records. Never the smallest: a partial last logging interval (TRL's 15 -> 16 under
 * logging_steps 3) would make every full interval look like a hole.
 */
function commonSpacing(byRun: Map<string, number[]>): number {
  const counts = new Map<number, number>();
  for (const steps of byRun.values())
    for (let i = 1; i < steps.length; i++) if (steps[i] > steps[i - 1]) counts.set(steps[i] - steps[i - 1], (counts.get(steps[i] - steps[i - 1]) ?? 0) + 1);
  let best = 1;
  let most = 0;
  for (const [d, n] of counts) if (n > most || (n === most && d > best)) [best, most] = [d, n];
  return best;
}

/**
 * Coverage per run: records owned, holes (steps the run's logging setting says must have a row, or
 * further apart than the most common spacing when no setting is known), gaps between rounds.
 */
function coverageOf(runs: RunHistory[], rollouts: AxisRecord[], issues: CoverageIssue[], interval: LoggingInterval | undefined): RunCoverage[] {
  const byRun = new Map<string, number[]>();
  for (const r of rollouts) {
    const list = byRun.get(r.runId);
    if (list) list.push(r.rollout);
    else byRun.set(r.runId, [r.rollout]);
  }
  const common = commonSpacing(byRun);
  let prevLast: number | null = null;
  let prevRun: RunHistory | null = null;
  return runs.map((run) => {
    const steps = byRun.get(run.runId) ?? [];
    const rule = spacingRule(interval, run, common);
    const add = (step: number, message: string, kind: CoverageIssue["kind"]) =>
      issues.push({ runId: run.runId, round: run.round, kind, step, key: null, message: `run ${run.runId} (round ${run.round}): ${message} (${rule.how})` });
    for (let i = 1; i < steps.length; i++) {
      const hole = rule.between(steps[i - 1], steps[i]);
      if (hole !== null) add(hole.first, `steps ${hole.first}..${hole.last} missing between ${steps[i - 1]} and ${steps[i]}`, "missing-rollout");
    }
    const gap = steps.length > 0 && prevLast !== null ? rule.between(prevLast, steps[0]) : null;
    if (gap !== null && prevRun !== null) {
      add(
        gap.first,
        `steps ${gap.first}..${gap.last} missing between round ${prevRun.round} (run ${prevRun.runId}), which ends at step ${prevLast}, and this round, which starts at step ${steps[0]}`,
        "gap-between-rounds",
      );
    }
    if (steps.length > 0) {
      prevLast = steps[steps.length - 1];
      prevRun = run;
    }
    const ok = !issues.some((x) => x.runId === run.runId);
    return {
      runId: run.runId,
      round: run.round,
      historyEvents: run.rows.length,
      rollouts: steps.length,
      updates: 0,
      firstRollout: steps.length ? steps[0] : null,
      lastRollout: steps.length ? steps[steps.length - 1] : null,
      firstUpdate: null,
      lastUpdate: null,
      ok,
    };
  });
}
