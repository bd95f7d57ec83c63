/**
 * Aligns the history rows of consecutive runs (rounds) on slime's explicit step keys: optimizer
 * updates on train/step, rollout batches on rollout/step, evals on eval/step, each run with its own N
 * and rollout/step reading (lib/axes/infer-axis-mapping.ts). Rows a later logging replaced are
 * superseded (lib/axes/supersede.ts) and listed, never counted. `_step` orders one writer's rows and
 * names rows in messages; it is never an axis. No interpolation, no forward fill: a value not logged
 * stays absent.
 */
import type {
  AlignedRuns,
  AlignmentNote,
  CoverageIssue,
  EvalRecord,
  KeyRows,
  Reporter,
  RolloutRecord,
  RunAxis,
  RunHistory,
  SupersededRecords,
  UpdateRecord,
} from "../types";
import { runUpdateNumber } from "./axis-formulas";
import { idRanges } from "./axis-report";
import { detectProfile } from "../registry/detect-profile";
import { tensorboardAsLogged } from "../tensorboard/step-rows";
import { alignSteps } from "./align-steps";
import { checkCoverage } from "./coverage";
import { buildRunAxes, decideRunAxes, firstRolloutOf, mappingFromRunAxes, type InferAxisMappingOptions } from "./infer-axis-mapping";
import {
  CODE_CRITIC_UPDATE,
  CODE_EVAL,
  CODE_OPTIMIZER_UPDATE,
  CODE_OTHER,
  CODE_ROLLOUT_MANAGER,
  CODE_TRAINER_PERF,
  CODE_TRAINER_ROLLOUT,
  K_INTERNAL,
  K_MULTI_TURN,
  K_PASSRATE,
  K_ROLLOUT_METRIC,
  keyFlags,
  keyInfo,
  type KeyInfo,
} from "./key-flags";
import { noRows, type RowReader } from "./row-reader";
import { scanRun, type RunScan } from "./scan-runs";
import { LIVE, rowRollouts, supersedeAcrossRuns, supersedeWithinRun, type Restart } from "./supersede";
import { keysOf, ValuesArena } from "../values/compact-values";
import { mappedKeys } from "../registry/framework-profile";
import { keyRowsOf } from "./key-rows";
import { supersedingIssues } from "./superseding-guard";
import { ValuesBuilder } from "../values/values-builder";

// Module-local copies for the per-row loops: imported bindings are getter calls under tsx (see key-flags.ts).
const flagsOf = keyFlags;
const infoOf = keyInfo;
const UPDATE = CODE_OPTIMIZER_UPDATE;
const CRITIC = CODE_CRITIC_UPDATE;
const MANAGER = CODE_ROLLOUT_MANAGER;
const TRAINER_ROLLOUT = CODE_TRAINER_ROLLOUT;
const TRAINER_PERF = CODE_TRAINER_PERF;
const EVAL = CODE_EVAL;
const OTHER = CODE_OTHER;
const _F_ROLLOUT_METRIC = K_ROLLOUT_METRIC;
const _F_MULTI_TURN = K_MULTI_TURN;
const _F_PASSRATE = K_PASSRATE;
const F_INTERNAL = K_INTERNAL;
/** Placeholders until a rollout record's rows are merged (replaced before alignRuns returns). */
const EMPTY: Record<string, number> = Object.freeze({}) as Record<string, number>;
const NO_STEPS: number[] = [];

/** Options of {@link alignRuns}. */
export interface AlignRunsOptions {
  /** Receives progress per run, info lines (flags, N per run, critic rows, superseded records) and one warning when there are issues. Default: none. */
  reporter?: Reporter;
  /** Force N (updates per rollout batch) for every run or per run id instead of inferring it. Default: inferred per run. */
  n?: InferAxisMappingOptions["n"];
  /** Force how rollout/step was logged, for every run or per run id (see InferAxisMappingOptions). Default: decided from the data. */
  alwaysUseTrainStep?: InferAxisMappingOptions["alwaysUseTrainStep"];
  /** Framework profile name (lib/registry/profiles.ts). Default: detected from the runs' keys. */
  profile?: string;
  /**
   * Record values as compact views (lib/values/compact-values.ts): read like plain objects, 8 bytes
   * per value outside the JS heap. Default false: plain objects.
   */
  compact?: boolean;
  /**
   * Empty each run's `rows` once its records are built (slime runs one by one, step-profile runs once
   * all are aligned), for a caller that keeps only the
   * alignment (writeExports): the archive's rows and the records then never coexist whole, which at
   * 10^6 updates is most of the peak memory. Default false: the runs are left as given.
   */
  releaseRows?: boolean;
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

/** Per run: the rollout id of each row and which run's logging replaced it (LIVE when none). */
interface RunRows {
  scan: RunScan;
  axis: RunAxis;
  rollouts: Float64Array;
  by: Int32Array;
  restarts: Restart[];
}

/**
 * Aligns runs given in round order into update, rollout and eval records with coverage and issues.
 * Rows of one rollout batch (manager, trainer rollout, trainer perf) merge into one record; a key
 * with different values in two of them is left out and reported (`conflicting-values`). Critic rows
 * merge into the update of their train/step. Superseded rows are listed in `superseded`, not in the records.
 * @example const aligned = alignRuns(archive.runs); assertAligned(aligned);
 */
export function alignRuns(runs: RunHistory[], opts: AlignRunsOptions = {}): AlignedRuns {
  const reporter = opts.reporter;
  const seen = new Set<string>();
  for (const r of runs) {
    if (seen.has(r.runId)) throw new Error(`invalid runs: run ${r.runId} is listed twice`);
    seen.add(r.runId);
  }
  const detected = runs.length === 0 && opts.profile === undefined ? null : detectProfile(runs, opts.profile);
  const profile = detected === null ? undefined : { name: detected.profile.name, how: detected.how, evidence: detected.evidence };
  let aligned: AlignedRuns;
  // Runs read from TensorBoard (one row per step) are read as the profile declares (lib/tensorboard/step-rows.ts).
  const asLogged = detected === null ? runs : runs.map((r) => tensorboardAsLogged(r, detected.profile));
  if (detected !== null && detected.profile.axis.kind === "step") {
    aligned = alignSteps(asLogged, detected.profile, { reporter });
    // TensorBoard runs count their frozen rows (one per step), not the rows split out for alignment.
    aligned.runs.forEach((r, i) => {
      if (runs[i].sourceKind === "tensorboard") r.historyEvents = runs[i].rows.length;
    });
    // Step records copy their values, so the rows can go once all are aligned (slime runs go one by one).
    if (opts.releaseRows) for (const run of runs) run.rows = [];
  } else {
    aligned = alignSlimeRuns(runs, opts, detected === null ? [] : mappedKeys(detected.profile));
  }
  const guard = supersedingIssues(aligned, aligned.keyRows ?? []);
  for (const x of guard) reporter?.warn?.(`${x.kind}: ${x.message}`);
  return { ...aligned, issues: aligned.issues.concat(guard), profile };
}

/** alignRuns for slime runs (rollout/step, train/step); `conceptKeys` are counted per run into `keyRows`. */
function alignSlimeRuns(runs: RunHistory[], opts: AlignRunsOptions, conceptKeys: readonly string[]): AlignedRuns {
  const reporter = opts.reporter;
  const scans = runs.map((run, i) => {
    const s = scanRun(run);
    reporter?.progress?.("classify rows", i + 1, runs.length);
    return s;
  });
  const per = runRowsOf(scans, opts);
  const mapping = mappingFromRunAxes(per.map((p) => p.axis));
  const runsMeta = runs.map((r, i) => ({ runId: r.runId, round: r.round, state: r.state, historyEvents: scans[i].codes.length }));
  const out = new SlimeRecords(opts.compact === true);
  per.forEach((rr, ri) => {
    new RunPass(rr, out).collect();
    out.keyRows.push(...keyRowsOf(rr.scan.run, rr.scan.reader, rr.by, conceptKeys));
    if (opts.releaseRows) {
      rr.scan.run.rows = [];
      // The reader holds the rows' values (packed rows' arena chunks): let them go with the rows.
      rr.scan.reader = noRows();
    }
    reporter?.progress?.("align runs", ri + 1, runs.length);
  });
  const superseded = supersededRecords(per);
  runNotes(per, superseded, out.notes);
  const cov = checkCoverage(mapping, runsMeta, out.rollouts, out.updates, out.issues, out.noUpdatesExpected);
  cov.coverage.forEach((c, i) => (c.rowKinds = { ...scans[i].counts }));
  const sorted = sortIssues(out.issues.concat(cov.issues), runs, per);
  for (const note of out.notes) reporter?.info?.(note.message);
  if (sorted.length > 0) {
    const nRuns = new Set(sorted.map((x) => x.runId)).size;
    reporter?.warn?.(`alignment found ${sorted.length} issue(s) in ${nRuns} run(s), first: ${sorted[0].message} (see aligned.issues)`);
  }
  const { updates, rollouts, evals, criticOnly, notes, keyRows } = out;
  return {
    mapping,
    rounds: runs.map((r) => r.round),
    runs: runsMeta,
    rollouts,
    updates,
    evals,
    superseded,
    criticOnly,
    coverage: cov.coverage,
    issues: sorted,
    notes,
    keyRows,
  };
}

/** What slime alignment collects over its runs: records, issues, notes, and the values builders they share. */
class SlimeRecords {
  readonly updates: UpdateRecord[] = [];
  readonly rollouts: RolloutRecord[] = [];
  readonly evals: EvalRecord[] = [];
  readonly issues: CoverageIssue[] = [];
  readonly notes: AlignmentNote[] = [];
  /** Per run: rollout ids for which no updates are expected (critic-only, a trailing manager-only rollout). */
  readonly noUpdatesExpected: Set<number>[] = [];
  readonly criticOnly: UpdateRecord[] = [];
  readonly keyRows: KeyRows[] = [];
  // One builder per record kind: consecutive records of a kind mostly share their key sequence.
  // Shared chunks: the CSV worker formats records straight from them (lib/export/csv-worker.ts).
  readonly updateValues: ValuesBuilder;
  readonly rolloutValues: ValuesBuilder;
  readonly evalValues: ValuesBuilder;

  constructor(compact: boolean) {
    const arena = compact ? new ValuesArena({ shared: true }) : null;
    this.updateValues = new ValuesBuilder(arena);
    this.rolloutValues = new ValuesBuilder(arena);
    this.evalValues = new ValuesBuilder(arena);
  }
}

/**
 * One run's pass over its live rows, with its scratch state: rollout records by id, their rows as
 * linked lists (head/tail per record, rowNext per row) merged after the pass so that each values
 * object is built once, which records have trainer rows, critic rows by train/step, unclassified rows.
 */
class RunPass {
  private readonly keyInfos: ShapeKeyInfos;
  private readonly byId: IdIndex;
  private readonly recs: RolloutRecord[] = [];
  private readonly head: number[] = [];
  private readonly tail: number[] = [];
  private readonly rowNext: Int32Array;
  /** Per record: 1 when a trainer row (rollout or perf) belongs to it. */
  private readonly trainerRows: number[] = [];
  private readonly unclassified = new Map<string, { count: number; firstStep: number }>();
  private readonly critic = new Map<number, { values: Record<string, number>; historyStep: number }>();
  private readonly firstUpdate: number;
  private readonly firstEval: number;

  constructor(
    private readonly rr: RunRows,
    private readonly out: SlimeRecords,
  ) {
    this.keyInfos = new ShapeKeyInfos(rr.scan.reader);
    this.byId = new IdIndex(rr.rollouts, rr.scan.codes);
    this.rowNext = new Int32Array(rr.scan.codes.length);
    this.firstUpdate = out.updates.length;
    this.firstEval = out.evals.length;
  }

  /** The run's records, in their lists, and its issues and notes. */
  collect(): void {
    this.readRows();
    this.reportUnclassified();
    this.mergeRollouts();
    const skip = new Set<number>();
    const { out, rr } = this;
    mergeCritic(out.updates, this.firstUpdate, this.critic, rr.axis, out.notes, skip, out.criticOnly, out.updateValues);
    this.noteTrailingRollout(skip);
    out.noUpdatesExpected.push(skip);
  }

  /** One pass over the live rows: updates, evals and critic rows as they come, rollout rows linked per id. */
  private readRows(): void {
    const { out, rr, keyInfos, byId, recs, head, tail, rowNext, trainerRows } = this;
    const { axis, by } = rr;
    const { run, codes, steps, historySteps, reader } = rr.scan;
    const ids = rr.rollouts;
    const { runId, round } = run;
    const n = axis.n;
    for (let i = 0; i < codes.length; i++) {
      if (by[i] !== LIVE) continue;
      const code = codes[i];
      if (code === UPDATE) {
        const t = steps[i];
        const values = pickKeys(out.updateValues, reader, keyInfos, i);
        const historyStep = historyStepOf(historySteps, i);
        out.updates.push({
          runId,
          round,
          trainStep: int(t),
          update: int(runUpdateNumber(axis, t)),
          rollout: int(ids[i]),
          updateInRollout: int(t % n),
          historyStep,
          values,
        });
      } else if (code === MANAGER || code === TRAINER_ROLLOUT || code === TRAINER_PERF) {
        const r = ids[i];
        let idx = byId.get(r);
        if (idx < 0) {
          idx = recs.length;
          byId.set(r, idx);
          recs.push({ runId, round, rollout: int(r), historySteps: NO_STEPS, values: EMPTY });
          head.push(i);
          trainerRows.push(0);
        } else {
          rowNext[tail[idx]] = i;
        }
        if (code !== MANAGER) trainerRows[idx] = 1;
        tail[idx] = i;
        rowNext[i] = -1;
      } else if (code === CRITIC) {
        this.critic.set(steps[i], { values: criticValues(reader, i), historyStep: historyStepOf(historySteps, i) });
      } else if (code === EVAL) {
        const values = pickKeys(out.evalValues, reader, keyInfos, i);
        out.evals.push({ runId, round, evalStep: int(steps[i]), rollout: int(ids[i]), historyStep: historyStepOf(historySteps, i), values });
      } else if (code === OTHER) {
        this.countUnclassified(i);
      }
    }
  }

  /** Counts a row of no slime kind by its key set (bookkeeping keys left out). */
  private countUnclassified(i: number): void {
    const keys = this.rr.scan.reader.keys(i).filter((k) => !(flagsOf(k) & F_INTERNAL));
    if (keys.length === 0) return;
    const sig = keys.sort().join(", ");
    const u = this.unclassified.get(sig);
    if (u) u.count++;
    else this.unclassified.set(sig, { count: 1, firstStep: this.rr.scan.historySteps[i] });
  }

  private reportUnclassified(): void {
    const { runId, round } = this.rr.scan.run;
    for (const [sig, u] of this.unclassified) {
      this.out.issues.push({
        runId,
        round,
        kind: "unclassified-row",
        step: null,
        key: null,
        message: `run ${runId} (round ${round}): ${u.count} row(s) with keys ${sig} match no slime row kind (first at _step ${u.firstStep})`,
      });
    }
  }

  /** Builds each rollout record's values from its linked rows, then adds the run's records, updates and evals in order. */
  private mergeRollouts(): void {
    const { out, recs } = this;
    for (let idx = 0; idx < recs.length; idx++)
      mergeRollout(recs[idx], this.head[idx], this.rowNext, this.rr.scan, this.keyInfos, out.rolloutValues, out.issues);
    recs.sort((a, b) => a.rollout - b.rollout);
    for (const r of recs) out.rollouts.push(r);
    sortRange(out.updates, this.firstUpdate, (a, b) => a.trainStep - b.trainStep);
    sortRange(out.evals, this.firstEval, (a, b) => a.evalStep - b.evalStep || a.historyStep - b.historyStep);
  }

  /** A crashed run's last rollout with manager rows only: kept, noted, no updates expected for it. */
  private noteTrailingRollout(skip: Set<number>): void {
    const { recs, out } = this;
    const { run } = this.rr.scan;
    const n = this.rr.axis.n;
    const last = recs.length > 0 ? recs[recs.length - 1].rollout : null;
    if (last === null || this.trainerRows[this.byId.get(last)] || hasUpdateOf(out.updates, this.firstUpdate, last) || this.critic.has(last * n)) return;
    skip.add(last);
    out.notes.push({
      runId: run.runId,
      round: run.round,
      kind: "trailing-rollout",
      step: last,
      message: `run ${run.runId} (round ${run.round}, state ${run.state}): rollout ${last}, the run's last, has rows of the rollout manager only (no trainer rows, no updates): kept as a rollout record with its logged values; no updates are expected for it`,
    });
  }
}

/** Decides each run's axes, marks superseded rows within and across runs, and numbers display updates. */
function runRowsOf(scans: RunScan[], opts: AlignRunsOptions): RunRows[] {
  const decisions = decideRunAxes(scans, { n: opts.n, alwaysUseTrainStep: opts.alwaysUseTrainStep });
  const ids = scans.map((s, i) => rowRollouts(s, decisions[i].n, decisions[i].alwaysUseTrainStep));
  const by = scans.map((s) => new Int32Array(s.codes.length).fill(LIVE));
  const restarts = scans.map((s, i) => supersedeWithinRun(s, ids[i], decisions[i].n, by[i], i));
  const firsts = scans.map((s, i) => firstRolloutOf(s, decisions[i]));
  supersedeAcrossRuns(ids, firsts, by);
  const axes = buildRunAxes(decisions, firsts);
  return scans.map((scan, i) => ({ scan, axis: axes[i], rollouts: ids[i], by: by[i], restarts: restarts[i] }));
}

/** `{ ...a, ...b }` built by `vb` (a view in compact mode, where spreading a view would give nothing). */
function mergedValues(vb: ValuesBuilder, a: Record<string, number>, b: Record<string, number>): Record<string, number> {
  const aKeys = keysOf(a);
  const bKeys = keysOf(b);
  const inA = new Set(aKeys);
  const inB = new Set(bKeys);
  vb.reset();
  for (const k of aKeys) vb.push(k, inB.has(k) ? b[k] : a[k]);
  for (const k of bKeys) if (!inA.has(k)) vb.push(k, b[k]);
  return vb.build();
}

/**
 * An integer as V8 stores it unboxed (axis numbers come from Float64Arrays: a double in a record field
 * is a 16-byte heap number of its own, 30% of a compact update record). Non-integers pass unchanged.
 */
function int(x: number): number {
  return (x | 0) === x ? x | 0 : x;
}

/** The keys of a critic row that go into the update record (train/critic-*; train/step is the actor's). */
function criticValues(reader: RowReader, i: number): Record<string, number> {
  const out: Record<string, number> = {};
  const keys = reader.read(i, rowScratch);
  for (let j = 0; j < keys.length; j++) if (keys[j].startsWith("train/critic-")) out[keys[j]] = rowScratch[j];
  return out;
}

/** A row's `_step` as a record field (an unboxed integer, see int). */
function historyStepOf(historySteps: Float64Array, i: number): number {
  return int(historySteps[i]);
}

/** True when an update from `from` on belongs to rollout `id`. */
function hasUpdateOf(updates: UpdateRecord[], from: number, id: number): boolean {
  for (let k = updates.length - 1; k >= from; k--) if (updates[k].rollout === id) return true;
  return false;
}

/**
 * Rollout id -> record index of one run: a dense Int32Array over the run's id range (ids are
 * consecutive batches), a Map when the ids are too sparse for that. A Map of a million entries per
 * run was a tenth of the alignment at 10^7 updates.
 */
class IdIndex {
  private readonly dense: Int32Array | null;
  private readonly min: number;
  private readonly map = new Map<number, number>();
  constructor(ids: Float64Array, codes: Uint8Array) {
    let min = Infinity;
    let max = -Infinity;
    let count = 0;
    for (let i = 0; i < ids.length; i++) {
      const c = codes[i];
      if (!(c === MANAGER || c === TRAINER_ROLLOUT || c === TRAINER_PERF)) continue;
      count++;
      if (ids[i] < min) min = ids[i];
      if (ids[i] > max) max = ids[i];
    }
    const span = max - min + 1;
    this.min = min;
    this.dense = count > 0 && Number.isInteger(min) && span <= 2 * count + 1024 ? new Int32Array(span).fill(-1) : null;
  }
  /** Record index of rollout `id`, -1 when it has none yet. */
  get(id: number): number {
    if (this.dense !== null) return this.dense[id - this.min];
    return this.map.get(id) ?? -1;
  }
  set(id: number, idx: number): void {
    if (this.dense !== null) this.dense[id - this.min] = idx;
    else this.map.set(id, idx);
  }
}

/**
 * Key facts (flags, merge scratch) per key list of one run's rows: rows of one shape share the list,
 * so its keys are looked up once per shape instead of once per key of every row.
 */
class ShapeKeyInfos {
  private readonly byShape: (KeyInfo[] | undefined)[] = [];
  constructor(private readonly reader: RowReader) {}
  /** The facts of row i's keys, in key order (`keys` as the reader returned them for row i). */
  of(i: number, keys: readonly string[]): KeyInfo[] {
    const s = this.reader.shape(i);
    if (s < 0) return keys.map(infoOf);
    let infos = this.byShape[s];
    if (infos === undefined) this.byShape[s] = infos = keys.map(infoOf);
    return infos;
  }
}

/**
 * Merges critic rows into the update records of their train/step (from `from` on); critic rows
 * without an actor update (`--num-critic-only-steps`) become critic-only records, are noted per run of
 * consecutive rollouts, and those rollouts added to `skip` (no actor updates expected).
 */
function mergeCritic(
  updates: UpdateRecord[],
  from: number,
  critic: Map<number, { values: Record<string, number>; historyStep: number }>,
  axis: RunAxis,
  notes: AlignmentNote[],
  skip: Set<number>,
  criticOnly: UpdateRecord[],
  vb: ValuesBuilder,
): void {
  if (critic.size === 0) return;
  const { runId, round, n } = axis;
  let merged = 0;
  const actorSteps = new Set<number>();
  for (let k = from; k < updates.length; k++) {
    const u = updates[k];
    actorSteps.add(u.trainStep);
    const c = critic.get(u.trainStep);
    if (c === undefined) continue;
    u.values = mergedValues(vb, u.values, c.values);
    merged++;
  }
  const only = [...critic.keys()].filter((t) => !actorSteps.has(t)).sort((a, b) => a - b);
  for (const t of only) {
    const c = critic.get(t)!;
    criticOnly.push({
      runId,
      round,
      trainStep: t,
      update: runUpdateNumber(axis, t),
      rollout: Math.floor(t / n),
      updateInRollout: t % n,
      historyStep: c.historyStep,
      values: { ...c.values, "train/step": t },
    });
  }
  const onlyRollouts = [...new Set(only.map((t) => Math.floor(t / n)))];
  const actorRollouts = new Set([...actorSteps].map((t) => Math.floor(t / n)));
  const onlyCritic = onlyRollouts.filter((r) => !actorRollouts.has(r));
  for (const r of onlyCritic) skip.add(r);
  notes.push({
    runId,
    round,
    kind: "critic-rows",
    step: null,
    message: `run ${runId} (round ${round}): ${critic.size} critic row(s) (train/critic-*): ${merged} merged into the actor's update of the same train/step; never counted as updates or in the actor's means`,
  });
  if (onlyCritic.length > 0) {
    notes.push({
      runId,
      round,
      kind: "critic-only",
      step: onlyCritic[0],
      message: `run ${runId} (round ${round}): ${ranges(onlyCritic, "rollout")} trained the critic only (critic rows, no actor rows: slime's --num-critic-only-steps); no actor updates are expected there`,
    });
  }
}

/** Superseded rows grouped by (run, replacing run), in run order. */
function supersededRecords(per: RunRows[]): SupersededRecords[] {
  const out: SupersededRecords[] = [];
  for (let j = 0; j < per.length; j++) {
    const { scan, axis, by, rollouts: ids } = per[j];
    const groups = new Map<number, { rollouts: Set<number>; steps: Set<number>; evals: Set<number>; evalRows: number; rows: number }>();
    for (let i = 0; i < by.length; i++) {
      const k = by[i];
      if (k === LIVE) continue;
      let g = groups.get(k);
      if (g === undefined) {
        g = { rollouts: new Set(), steps: new Set(), evals: new Set(), evalRows: 0, rows: 0 };
        groups.set(k, g);
      }
      g.rows++;
      const c = scan.codes[i];
      if (c === UPDATE) g.steps.add(scan.steps[i]);
      else if (c === MANAGER || c === TRAINER_ROLLOUT || c === TRAINER_PERF) g.rollouts.add(ids[i]);
      else if (c === EVAL) {
        g.evals.add(ids[i]);
        g.evalRows++;
      }
    }
    for (const k of [...groups.keys()].sort((a, b) => a - b)) {
      const g = groups.get(k)!;
      const byRun = per[k].axis;
      const rolloutIds = [...g.rollouts].sort((a, b) => a - b);
      const trainSteps = [...g.steps].sort((a, b) => a - b);
      const updates = trainSteps.map((t) => runUpdateNumber(axis, t));
      const how =
        k === j
          ? `re-logged by the same run after a restart (resumed in place)`
          : `replaced by round ${byRun.round} (run ${byRun.runId}), which starts at rollout ${byRun.firstRollout}`;
      out.push({
        runId: axis.runId,
        round: axis.round,
        byRunId: byRun.runId,
        byRound: byRun.round,
        rollouts: rolloutIds,
        updates,
        trainSteps,
        evals: g.evalRows,
        evalRollouts: [...g.evals].sort((a, b) => a - b),
        rows: g.rows,
        message:
          `run ${axis.runId} (round ${axis.round}): ${g.rows} row(s) superseded, ${how}: ` +
          `${rolloutIds.length > 0 ? ranges(rolloutIds, "rollout") : "no rollout rows"}, ` +
          `${updates.length > 0 ? ranges(updates, "update") : "no updates"}${g.evalRows > 0 ? `, ${g.evalRows} eval row(s)` : ""}; excluded from every record, mean and export`,
      });
    }
  }
  return out;
}

/** Notes on the flag reading, N per run and superseded records. */
function runNotes(per: RunRows[], superseded: SupersededRecords[], notes: AlignmentNote[]): void {
  const ns = new Set(per.map((p) => p.axis.n));
  for (const { axis } of per) {
    if (axis.alwaysUseTrainStep === true) {
      notes.push({
        runId: axis.runId,
        round: axis.round,
        kind: "always-use-train-step",
        step: null,
        message: `run ${axis.runId} (round ${axis.round}): rollout/step and eval/step were logged as rollout_id * ${axis.n} (slime's --wandb-always-use-train-step) and are read as rollout ids divided by ${axis.n}; evidence: ${axis.flagEvidence}`,
      });
    }
    if (ns.size > 1) {
      notes.push({
        runId: axis.runId,
        round: axis.round,
        kind: "n-per-run",
        step: null,
        message: `run ${axis.runId} (round ${axis.round}): N = ${axis.n} updates per rollout batch (N differs between runs); ${axis.formula}`,
      });
    }
  }
  for (const s of superseded)
    notes.push({ runId: s.runId, round: s.round, kind: "superseded", step: s.rollouts.length > 0 ? s.rollouts[0] : null, message: s.message });
}

/** Run order, then the rollout the issue concerns (issues not tied to a step first); ties keep creation order. */
function sortIssues(all: CoverageIssue[], runs: RunHistory[], per: RunRows[]): CoverageIssue[] {
  const runIndex = new Map(runs.map((r, i) => [r.runId, i] as const));
  const at = all.map((x) => {
    if (x.step === null) return -Infinity;
    if (!UPDATE_AXIS_KINDS.has(x.kind)) return x.step;
    return Math.floor(x.step / per[runIndex.get(x.runId)!].axis.n);
  });
  const order = all.map((_, i) => i);
  order.sort((a, b) => {
    const d = runIndex.get(all[a].runId)! - runIndex.get(all[b].runId)!;
    if (d !== 0) return d;
    if (at[a] !== at[b]) return at[a] < at[b] ? -1 : 1;
    return a - b;
  });
  return order.map((i) => all[i]);
}

/** "rollouts 3..5, 9" style ranges of sorted integers. */
function ranges(sorted: number[], what: string): string {
  return `${what}${sorted.length === 1 ? "" : "s"} ${idRanges(sorted)}`;
}

/**
 * Every key of row i but W&B bookkeeping (a new object; the row is left untouched): keys of no known
 * family are carried through to the exports, never dropped.
 */
function pickKeys(vb: ValuesBuilder, reader: RowReader, infos: ShapeKeyInfos, i: number): Record<string, number> {
  vb.reset();
  const keys = reader.read(i, rowScratch);
  const info = infos.of(i, keys);
  for (let j = 0; j < keys.length; j++) if (!(info[j].flags & F_INTERNAL)) vb.push(keys[j], rowScratch[j]);
  return vb.build();
}

/** The values of the row being read (readValues fills it: no getter call per key of a compact row). */
const rowScratch: number[] = [];

/** Identifies the record being merged in the per-key scratch of key-flags.ts. */
let mergeStamp = 0;

/**
 * Merges the rows of one rollout batch (linked from `first` through `rowNext`) into its values and
 * history steps: a key with different values in two rows (=== or both NaN; 0 equals -0, which JSON
 * cannot tell apart) is reported once and left out. Reports rows that repeat a slot (duplicate-rollout).
 */
function mergeRollout(
  rec: RolloutRecord,
  first: number,
  rowNext: Int32Array,
  scan: RunScan,
  infos: ShapeKeyInfos,
  vb: ValuesBuilder,
  issues: CoverageIssue[],
): void {
  const { run, reader, codes, families, historySteps } = scan;
  const stamp = ++mergeStamp;
  vb.reset();
  let dropped: Set<string> | null = null;
  let mask = 0;
  let dupSlots: number[] | null = null;
  let count = 0;
  for (let i = first; i >= 0; i = rowNext[i]) {
    count++;
    const keys = reader.read(i, rowScratch);
    const info = infos.of(i, keys);
    for (let j = 0; j < keys.length; j++) {
      const ki = info[j];
      if (ki.flags & F_INTERNAL) continue;
      const v = rowScratch[j];
      if (ki.stamp !== stamp) {
        ki.stamp = stamp;
        ki.slot = vb.n;
        vb.push(keys[j], v);
        continue;
      }
      const prev = vb.vals[ki.slot];
      if (prev === v || (prev !== prev && v !== v)) continue;
      const key = keys[j];
      if (dropped === null) dropped = new Set();
      if (dropped.has(key)) continue;
      dropped.add(key);
      issues.push({
        runId: run.runId,
        round: run.round,
        kind: "conflicting-values",
        step: rec.rollout,
        key,
        message: `run ${run.runId} (round ${run.round}): rollout ${rec.rollout} has ${key} = ${prev} and ${v} in two rows (second at _step ${historySteps[i]}); the key is left out of the rollout record`,
      });
    }
    const slot = slotOf(codes[i], families[i]);
    if (mask & (1 << slot)) {
      if (dupSlots === null) dupSlots = [];
      if (!dupSlots.includes(slot)) dupSlots.push(slot);
    }
    mask |= 1 << slot;
  }
  if (dropped !== null) vb.remove(dropped);
  rec.values = vb.build();
  // Exactly as many places as rows (push() would leave room for 16 numbers in 10^6 records).
  const steps = new Array<number>(count);
  for (let i = first, q = 0; i >= 0; i = rowNext[i], q++) steps[q] = historyStepOf(historySteps, i);
  rec.historySteps = steps;
  if (dupSlots !== null) {
    for (const slot of dupSlots) {
      const dup: number[] = [];
      for (let i = first; i >= 0; i = rowNext[i]) if (slotOf(codes[i], families[i]) === slot) dup.push(historyStepOf(historySteps, i));
      issues.push({
        runId: run.runId,
        round: run.round,
        kind: "duplicate-rollout",
        step: rec.rollout,
        key: null,
        message: `run ${run.runId} (round ${run.round}): rollout ${rec.rollout} has ${dup.length} ${slotName(slot)} rows (_step ${dup.join(", ")})`,
      });
    }
  }
}

/** Slot of one rollout row (see SLOT_*) from its kind code and family bits (RunScan.families). */
function slotOf(code: number, families: number): number {
  if (code === MANAGER) return SLOT_MANAGER;
  if (code === TRAINER_PERF) return SLOT_PERF;
  return SLOT_TRAINER | families;
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
