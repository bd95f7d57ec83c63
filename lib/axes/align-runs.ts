/**
 * Aligns the history rows of consecutive runs (rounds) on slime's explicit step keys: optimizer
 * updates on train/step, rollout batches on rollout/step, evals on eval/step. `_step` is kept only to
 * name rows in messages. No interpolation, no forward fill: a value not logged stays absent.
 */
import type { AlignedRuns, CoverageIssue, EvalRecord, HistoryRow, Reporter, RolloutRecord, RunHistory, UpdateRecord } from "../types";
import { checkCoverage } from "./coverage";
import { inferAxisMappingFromScans } from "./infer-axis-mapping";
import {
  CODE_EVAL,
  CODE_OPTIMIZER_UPDATE,
  CODE_OTHER,
  CODE_ROLLOUT_MANAGER,
  CODE_TRAINER_PERF,
  CODE_TRAINER_ROLLOUT,
  K_EVAL,
  K_INTERNAL,
  K_MULTI_TURN,
  K_PASSRATE,
  K_ROLLOUT_METRIC,
  K_ROLLOUT_RECORD,
  K_TRAIN,
  keyFlags,
  keyInfo,
} from "./key-flags";
import { scanRun } from "./scan-runs";
import { ValuesBuilder } from "./values-builder";

// Module-local copies for the per-row loops: imported bindings are getter calls under tsx (see key-flags.ts).
const flagsOf = keyFlags;
const infoOf = keyInfo;
const UPDATE = CODE_OPTIMIZER_UPDATE;
const MANAGER = CODE_ROLLOUT_MANAGER;
const TRAINER_ROLLOUT = CODE_TRAINER_ROLLOUT;
const TRAINER_PERF = CODE_TRAINER_PERF;
const EVAL = CODE_EVAL;
const OTHER = CODE_OTHER;
const F_TRAIN = K_TRAIN;
const F_EVAL = K_EVAL;
const F_RECORD = K_ROLLOUT_RECORD;
const F_ROLLOUT_METRIC = K_ROLLOUT_METRIC;
const F_MULTI_TURN = K_MULTI_TURN;
const F_PASSRATE = K_PASSRATE;
const F_INTERNAL = K_INTERNAL;
/** Placeholder until a rollout record's values are merged (replaced before alignRuns returns). */
const EMPTY: Record<string, number> = Object.freeze({}) as Record<string, number>;

/** Options of {@link alignRuns}. */
export interface AlignRunsOptions {
  /** Receives progress per run, an info line per run with critic rows, and one warning when there are issues. Default: none. */
  reporter?: Reporter;
  /** Force N (updates per rollout batch) instead of inferring it. Default: inferred. */
  n?: number;
}

/** Issue kinds whose step is a train/step (the others carry a rollout id). */
const UPDATE_AXIS_KINDS = new Set<CoverageIssue["kind"]>(["missing-update", "duplicate-update", "update-without-rollout"]);

/**
 * Row slots: which of the rows slime writes per rollout batch a row is; two rows in one slot are a
 * duplicate. 1 manager, 2 trainer perf, 8 + family mask for trainer rollout rows (the trainer writes
 * rollout/*, multi_turn/* and passrate/* as separate rows: mask 1 rollout, 2 multi_turn, 4 passrate).
 */
const SLOT_MANAGER = 1;
const SLOT_PERF = 2;
const SLOT_TRAINER = 8;

function slotName(slot: number): string {
  if (slot === SLOT_MANAGER) return "rollout-manager";
  if (slot === SLOT_PERF) return "trainer-perf";
  const fams = [slot & 1 ? "rollout" : "", slot & 2 ? "multi_turn" : "", slot & 4 ? "passrate" : ""].filter(Boolean);
  return `trainer-rollout (${fams.join("+") || "step only"})`;
}

/**
 * Aligns runs given in round order into update, rollout and eval records with coverage and issues.
 * Rows of one rollout batch (manager, trainer rollout, trainer perf) merge into one record; a key
 * with different values in two of them is left out and reported (`conflicting-values`).
 * @example const aligned = alignRuns(archive.runs); assertAligned(aligned);
 */
export function alignRuns(runs: RunHistory[], opts: AlignRunsOptions = {}): AlignedRuns {
  const reporter = opts.reporter;
  const seen = new Set<string>();
  for (const r of runs) {
    if (seen.has(r.runId)) throw new Error(`invalid runs: run ${r.runId} is listed twice`);
    seen.add(r.runId);
  }
  const scans = runs.map((run, i) => {
    const s = scanRun(run);
    reporter?.progress?.("classify rows", i + 1, runs.length);
    return s;
  });
  const mapping = inferAxisMappingFromScans(scans, { n: opts.n });
  const { n, r0 } = mapping;

  const updates: UpdateRecord[] = [];
  const rollouts: RolloutRecord[] = [];
  const evals: EvalRecord[] = [];
  const issues: CoverageIssue[] = [];

  // One builder per record kind: consecutive records of a kind mostly share their key sequence.
  const updateValues = new ValuesBuilder();
  const rolloutValues = new ValuesBuilder();
  const evalValues = new ValuesBuilder();
  for (let ri = 0; ri < scans.length; ri++) {
    const { run, codes, steps, counts } = scans[ri];
    const { runId, round } = run;
    const rows = run.rows;
    const firstUpdate = updates.length;
    const firstEval = evals.length;
    // Rollout records of this run: id -> index into recs; their rows as linked lists (head/tail per
    // record, rowNext per row), merged after the pass so that each values object is built once.
    const byId = new Map<number, number>();
    const recs: RolloutRecord[] = [];
    const head: number[] = [];
    const tail: number[] = [];
    const rowNext = new Int32Array(rows.length);
    const unclassified = new Map<string, { count: number; firstStep: number }>();

    for (let i = 0; i < rows.length; i++) {
      const row = rows[i];
      const code = codes[i];
      if (code === UPDATE) {
        const t = steps[i];
        updates.push({
          runId,
          round,
          trainStep: t,
          update: t - n * r0 + 1,
          rollout: Math.floor(t / n),
          updateInRollout: t % n,
          historyStep: row._step,
          values: pickFlags(updateValues, row, F_TRAIN),
        });
      } else if (code === MANAGER || code === TRAINER_ROLLOUT || code === TRAINER_PERF) {
        const r = steps[i];
        let idx = byId.get(r);
        if (idx === undefined) {
          idx = recs.length;
          byId.set(r, idx);
          recs.push({ runId, round, rollout: r, historySteps: [], values: EMPTY });
          head.push(i);
        } else {
          rowNext[tail[idx]] = i;
        }
        tail[idx] = i;
        rowNext[i] = -1;
        recs[idx].historySteps.push(row._step);
      } else if (code === EVAL) {
        evals.push({ runId, round, evalStep: steps[i], historyStep: row._step, values: pickFlags(evalValues, row, F_EVAL) });
      } else if (code === OTHER) {
        const keys = Object.keys(row).filter((k) => !(flagsOf(k) & F_INTERNAL));
        if (keys.length > 0) {
          const sig = keys.sort().join(", ");
          const u = unclassified.get(sig);
          if (u) u.count++;
          else unclassified.set(sig, { count: 1, firstStep: row._step });
        }
      }
    }

    for (const [sig, u] of unclassified) {
      issues.push({
        runId,
        round,
        kind: "unclassified-row",
        step: null,
        key: null,
        message: `run ${runId} (round ${round}): ${u.count} row(s) with keys ${sig} match no slime row kind (first at _step ${u.firstStep})`,
      });
    }
    for (let idx = 0; idx < recs.length; idx++) mergeRollout(recs[idx], head[idx], rowNext, run, codes, rolloutValues, issues);

    recs.sort((a, b) => a.rollout - b.rollout);
    for (const r of recs) rollouts.push(r);
    sortRange(updates, firstUpdate, (a, b) => a.trainStep - b.trainStep);
    sortRange(evals, firstEval, (a, b) => a.evalStep - b.evalStep);

    const critic = counts["critic-update"];
    if (critic > 0) {
      reporter?.info?.(`run ${runId} (round ${round}): ${critic} critic-update row(s) kept out of the optimizer updates`);
    }
    reporter?.progress?.("align runs", ri + 1, runs.length);
  }

  const runsMeta = runs.map((r) => ({ runId: r.runId, round: r.round, state: r.state, historyEvents: r.rows.length }));
  const cov = checkCoverage(mapping, runsMeta, rollouts, updates, issues);
  cov.coverage.forEach((c, i) => (c.rowKinds = { ...scans[i].counts }));
  const runIndex = new Map(runs.map((r, i) => [r.runId, i] as const));
  const all = issues.concat(cov.issues);
  const order = all.map((_, i) => i);
  // Run order, then the rollout the issue concerns (issues not tied to a step first); ties keep creation order.
  const at = all.map((x) => (x.step === null ? -Infinity : UPDATE_AXIS_KINDS.has(x.kind) ? Math.floor(x.step / n) : x.step));
  order.sort((a, b) => {
    const d = runIndex.get(all[a].runId)! - runIndex.get(all[b].runId)!;
    if (d !== 0) return d;
    if (at[a] !== at[b]) return at[a] < at[b] ? -1 : 1;
    return a - b;
  });
  const sorted = order.map((i) => all[i]);
  if (sorted.length > 0) {
    const nRuns = new Set(sorted.map((x) => x.runId)).size;
    reporter?.warn?.(`alignment found ${sorted.length} issue(s) in ${nRuns} run(s), first: ${sorted[0].message} (see aligned.issues)`);
  }
  return {
    mapping,
    rounds: runs.map((r) => r.round),
    runs: runsMeta,
    rollouts,
    updates,
    evals,
    coverage: cov.coverage,
    issues: sorted,
  };
}

/** The keys of a row carrying one of the given key flags (a new object; the row is left untouched). */
function pickFlags(vb: ValuesBuilder, row: HistoryRow, flags: number): Record<string, number> {
  vb.reset();
  for (const k in row) if (flagsOf(k) & flags) vb.push(k, row[k]);
  return vb.build();
}

/** Identifies the record being merged in the per-key scratch of key-flags.ts. */
let mergeStamp = 0;

/**
 * Merges the rows of one rollout batch (linked from `first` through `rowNext`) into its values:
 * a key with different values in two rows (=== or both NaN; 0 equals -0, which JSON cannot tell
 * apart) is reported once and left out. Reports rows that repeat a slot (duplicate-rollout).
 */
function mergeRollout(
  rec: RolloutRecord,
  first: number,
  rowNext: Int32Array,
  run: RunHistory,
  codes: Uint8Array,
  vb: ValuesBuilder,
  issues: CoverageIssue[],
): void {
  const rows = run.rows;
  const stamp = ++mergeStamp;
  vb.reset();
  let dropped: Set<string> | null = null;
  let mask = 0;
  let dupSlots: number[] | null = null;
  let slots: number[] | null = null; // slot per merged row, kept only once a duplicate shows up
  let k = 0;
  for (let i = first; i >= 0; i = rowNext[i], k++) {
    const row = rows[i];
    let families = 0;
    for (const key in row) {
      const info = infoOf(key);
      const f = info.flags;
      if (!(f & F_RECORD)) continue;
      families |= f;
      const v = row[key];
      if (info.stamp !== stamp) {
        info.stamp = stamp;
        info.slot = vb.n;
        vb.push(key, v);
        continue;
      }
      const prev = vb.vals[info.slot];
      if (prev === v || (prev !== prev && v !== v)) continue;
      if (dropped === null) dropped = new Set();
      if (dropped.has(key)) continue;
      dropped.add(key);
      issues.push({
        runId: run.runId,
        round: run.round,
        kind: "conflicting-values",
        step: rec.rollout,
        key,
        message: `run ${run.runId} (round ${run.round}): rollout ${rec.rollout} has ${key} = ${prev} and ${v} in two rows (second at _step ${row._step}); the key is left out of the rollout record`,
      });
    }
    const code = codes[i];
    const slot =
      code === MANAGER
        ? SLOT_MANAGER
        : code === TRAINER_PERF
          ? SLOT_PERF
          : SLOT_TRAINER | (families & F_ROLLOUT_METRIC ? 1 : 0) | (families & F_MULTI_TURN ? 2 : 0) | (families & F_PASSRATE ? 4 : 0);
    if (mask & (1 << slot)) {
      if (slots === null) {
        // Rebuild the slots of the rows before this one (rare: only for duplicated rows).
        slots = [];
        for (let p = first, q = 0; q < k; p = rowNext[p], q++) slots.push(slotOf(rows[p], codes[p]));
      }
      if (dupSlots === null) dupSlots = [];
      if (!dupSlots.includes(slot)) dupSlots.push(slot);
    }
    if (slots !== null) slots.push(slot);
    mask |= 1 << slot;
  }
  if (dropped !== null) vb.remove(dropped);
  rec.values = vb.build();
  if (dupSlots !== null && slots !== null) {
    for (const slot of dupSlots) {
      const steps = rec.historySteps.filter((_, q) => slots![q] === slot);
      issues.push({
        runId: run.runId,
        round: run.round,
        kind: "duplicate-rollout",
        step: rec.rollout,
        key: null,
        message: `run ${run.runId} (round ${run.round}): rollout ${rec.rollout} has ${steps.length} ${slotName(slot)} rows (_step ${steps.join(", ")})`,
      });
    }
  }
}

/** Slot of one rollout row (see SLOT_*). */
function slotOf(row: HistoryRow, code: number): number {
  if (code === MANAGER) return SLOT_MANAGER;
  if (code === TRAINER_PERF) return SLOT_PERF;
  let families = 0;
  for (const key in row) families |= flagsOf(key);
  return SLOT_TRAINER | (families & F_ROLLOUT_METRIC ? 1 : 0) | (families & F_MULTI_TURN ? 2 : 0) | (families & F_PASSRATE ? 4 : 0);
}

/** Sorts arr[from..] in place when it is not already ordered (stable; rows usually arrive sorted). */
function sortRange<T>(arr: T[], from: number, cmp: (a: T, b: T) => number): void {
  let sorted = true;
  for (let i = from + 1; i < arr.length; i++) {
    if (cmp(arr[i - 1], arr[i]) > 0) {
      sorted = false;
      break;
    }
  }
  if (sorted) return;
  const part = arr.slice(from).sort(cmp);
  for (let i = 0; i < part.length; i++) arr[from + i] = part[i];
}
