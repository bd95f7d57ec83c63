/**
 * Scenario simulator: small slime histories with the traits real runs have (doc
 * docs/slime-logging.md): a versioned key set (profiles.ts),
 * `--wandb-always-use-train-step`, a PPO critic written by another process, `--num-critic-only-steps`,
 * `train_async.py` row order, pre-training and periodic evals, N changed between rounds, a round
 * restarted from an older checkpoint, a W&B run resumed in place, a crash, and writers interleaving
 * `_step`. Pure and in memory (no SDK, no server): `simulateScenario` returns each run's history rows
 * exactly as the frozen archive holds them, plus a ground truth (scenario-truth.ts) computed from what
 * was generated, never from the rows. The bundled sample (simulate.ts) is a different, calibrated generator.
 */
import { parseFrozenRow, serializeFrozenRow } from "../../lib/values/frozen-row";
import type { HistoryRow, RunHistory } from "../../lib/types";
import { type SlimeVersionName, type SlimeVersionSpec, slimeVersionSpec } from "./profiles";
import { createPrng, deriveSeed, type Prng } from "./prng";
import {
  actorStepDict,
  type BatchContext,
  criticStepDict,
  evalDict,
  managerDict,
  multiTurnDict,
  passrateDict,
  trainerPerfDict,
  trainerRolloutDict,
} from "./scenario-rows";
import { computeScenarioTruth, type ScenarioTruth } from "./scenario-truth";
import type { GenEval, GenRollout, ScenarioFlags, ScenarioRow, ScenarioRowKind, Writer } from "./scenario-types";
import { type LoggedValue, STEP_KEY } from "./slime-rows";

export type { GenEval, GenRollout, ScenarioFlags, ScenarioRow, ScenarioRowKind, Writer } from "./scenario-types";

/** One round (one W&B run) of a scenario. */
export interface RoundSpec {
  /** Rollout ids the round logs, from `start` on, a crashed trailing one included. */
  rollouts: number;
  /** First rollout id; default: the previous round's last + 1 - `restartOverlap` (the first round: `firstRolloutId`). */
  start?: number;
  /** Optimizer steps per rollout in this round (global_batch_size changed between rounds); default `n`. */
  n?: number;
  /** The round dies after the manager row of its last rollout (no trainer rows for it); run state "crashed". */
  crash?: boolean;
  /**
   * The run crashes after `crashAfter` complete rollouts plus the manager row of the next one, and is
   * resumed in place (same W&B run, resume=allow, `_step` continuing) from a checkpoint `relog`
   * rollouts before the crashed one, so those rollouts and the crashed one are logged again.
   */
  resumeInPlace?: { crashAfter: number; relog: number };
}

/** Options of `simulateScenario`; every flag is independent of the others. */
export interface ScenarioOptions {
  seed?: number;
  /** Key-set profile (profiles.ts); default "2026-08" (slime HEAD). */
  profile?: SlimeVersionName;
  /** Optimizer steps per rollout (N) unless a round sets its own; default 2. */
  n?: number;
  /** Rounds in order; default one round of 6 rollouts. */
  rounds?: RoundSpec[];
  /** First rollout id of the first round; default 0. */
  firstRolloutId?: number;
  /** Rollouts every round after the first re-logs from the previous one (resume from an older checkpoint); default 0. */
  restartOverlap?: number;
  /** `--wandb-always-use-train-step`: rollout/step and eval/step are rollout_id * N. */
  alwaysUseTrainStep?: boolean;
  /** `--use-critic`: `train/critic-*` rows with the actor's `train/step`, before or after the actor's row. */
  critic?: boolean;
  /** `--num-critic-only-steps k`: rollout ids below k have critic rows only (needs `critic`). */
  numCriticOnlySteps?: number;
  /** `train_async.py`: the manager row of rollout r+1 comes before the trainer rows of r; no pre-training eval. */
  async?: boolean;
  /** `--eval-interval`: periodic evals after rollout r when (r+1) % interval == 0; null = no evals. */
  evalInterval?: number | null;
  /** `--skip-eval-before-train`. */
  skipEvalBeforeTrain?: boolean;
  /**
   * The pre-training eval runs only when a process starts at rollout id 0 (the reading of train.py:50-51
   * in slime-real-logging.md) instead of at every process's first rollout id (default false).
   */
  preTrainEvalOnlyAtZero?: boolean;
  evalDatasets?: string[];
  /** `--save-interval`: a save after rollout r when (r+1) % interval == 0 (its time lands on rollout r+1's perf row); default 4. */
  saveInterval?: number;
  /** `--kl-coef`; 0 (default) means no ref model: no ref keys and rollout/kl = 0.0. */
  klCoef?: number;
  /** `--use-kl-loss` (adds the ref model and `train/kl_loss`). */
  useKlLoss?: boolean;
  /** Colocated actor (offload_train): perf/sleep_time and perf/wake_up_time on every perf row; default true. */
  colocate?: boolean;
  /** Speculative decoding: spec_accept_* keys (double-prefixed in the 2025-12 profile). */
  specDecoding?: boolean;
  /** `--log-multi-turn`: a multi_turn/* trainer row per rollout. */
  logMultiTurn?: boolean;
  /** `--log-passrate`: a passrate/* trainer row per rollout (and eval/<d>-pass@k). */
  logPassrate?: boolean;
  /** Rows of the manager, actor and critic writers interleave in `_step` (M6), each writer keeping its own order. */
  interleaveWriters?: boolean;
  rolloutBatchSize?: number;
  nSamplesPerPrompt?: number;
  entity?: string;
  project?: string;
  startMs?: number;
}

/** One simulated run. */
export interface ScenarioRun {
  runId: string;
  round: string;
  state: "finished" | "crashed";
  n: number;
  flags: ScenarioFlags;
  config: Record<string, unknown>;
  pids: { rolloutManager: number; actor: number; critic: number };
  /** Rows in `_step` order. */
  rows: ScenarioRow[];
  /** Rows in the order the processes printed them (the local log's order; differs from `rows` only with `interleaveWriters`). */
  printedRows: ScenarioRow[];
  /** The frozen history rows (`_step`, `_runtime`, `_timestamp` and the logged keys, sorted as frozen). */
  history: HistoryRow[];
  /** Launch time of each segment (process), epoch ms. */
  segmentStartMs: number[];
}

/** A whole scenario: runs in round order and the ground truth. */
export interface Scenario {
  seed: number;
  entity: string;
  project: string;
  profile: SlimeVersionName;
  runs: ScenarioRun[];
  truth: ScenarioTruth;
}

interface Resolved {
  seed: number;
  profile: SlimeVersionSpec;
  flags: ScenarioFlags;
  n: number;
  roundsResolved: { rollouts: number; start: number; n: number; crash: boolean; resumeInPlace: RoundSpec["resumeInPlace"] }[];
  evalDatasets: string[];
  saveInterval: number;
  useKlLoss: boolean;
  specDecoding: boolean;
  logMultiTurn: boolean;
  logPassrate: boolean;
  rolloutBatchSize: number;
  nSamplesPerPrompt: number;
  entity: string;
  project: string;
  startMs: number;
}

const isCount = (x: unknown, min: number) => typeof x === "number" && Number.isSafeInteger(x) && x >= min;

/** Validates options (`invalid <option>: <value>`) and fills defaults. */
function resolveOptions(opts: ScenarioOptions): Resolved {
  const seed = opts.seed ?? 1;
  if (!isCount(seed, 0)) throw new Error(`invalid seed: ${seed}`);
  const profile = slimeVersionSpec(opts.profile ?? "2026-08");
  const n = opts.n ?? 2;
  if (!isCount(n, 1)) throw new Error(`invalid n: ${n}`);
  const critic = opts.critic ?? false;
  const numCriticOnlySteps = opts.numCriticOnlySteps ?? 0;
  if (!isCount(numCriticOnlySteps, 0)) throw new Error(`invalid numCriticOnlySteps: ${numCriticOnlySteps}`);
  if (numCriticOnlySteps > 0 && !critic) throw new Error(`invalid numCriticOnlySteps: ${numCriticOnlySteps} (needs critic: true)`);
  const evalInterval = opts.evalInterval ?? null;
  if (evalInterval !== null && !isCount(evalInterval, 1)) throw new Error(`invalid evalInterval: ${evalInterval}`);
  const overlap = opts.restartOverlap ?? 0;
  if (!isCount(overlap, 0)) throw new Error(`invalid restartOverlap: ${overlap}`);
  const first = opts.firstRolloutId ?? 0;
  if (!isCount(first, 0)) throw new Error(`invalid firstRolloutId: ${first}`);
  const saveInterval = opts.saveInterval ?? 4;
  if (!isCount(saveInterval, 1)) throw new Error(`invalid saveInterval: ${saveInterval}`);
  const rolloutBatchSize = opts.rolloutBatchSize ?? 6;
  if (!isCount(rolloutBatchSize, 1)) throw new Error(`invalid rolloutBatchSize: ${rolloutBatchSize}`);
  const nSamplesPerPrompt = opts.nSamplesPerPrompt ?? 8;
  if (!isCount(nSamplesPerPrompt, 1)) throw new Error(`invalid nSamplesPerPrompt: ${nSamplesPerPrompt}`);
  const specs = opts.rounds ?? [{ rollouts: 6 }];
  if (!Array.isArray(specs) || specs.length === 0) throw new Error(`invalid rounds: ${JSON.stringify(specs)}`);
  const roundsResolved: Resolved["roundsResolved"] = [];
  let nextStart = first;
  specs.forEach((spec, k) => {
    if (!isCount(spec.rollouts, 1)) throw new Error(`invalid rounds[${k}].rollouts: ${spec.rollouts}`);
    const start = spec.start ?? (k === 0 ? first : Math.max(0, nextStart - overlap));
    if (!isCount(start, 0)) throw new Error(`invalid rounds[${k}].start: ${spec.start}`);
    const rn = spec.n ?? n;
    // slime floors: gbs = samples // N must give back N = samples // gbs.
    const samples = rolloutBatchSize * nSamplesPerPrompt;
    if (!isCount(rn, 1) || rn > samples || Math.floor(samples / Math.floor(samples / rn)) !== rn) throw new Error(`invalid rounds[${k}].n: ${rn}`);
    const rip = spec.resumeInPlace;
    if (rip !== undefined && (!isCount(rip.crashAfter, 1) || !isCount(rip.relog, 0) || rip.relog > rip.crashAfter || rip.crashAfter >= spec.rollouts)) {
      throw new Error(`invalid rounds[${k}].resumeInPlace: ${JSON.stringify(rip)}`);
    }
    roundsResolved.push({ rollouts: spec.rollouts, start, n: rn, crash: spec.crash ?? false, resumeInPlace: rip });
    nextStart = start + spec.rollouts;
  });
  const flags: ScenarioFlags = {
    profile: profile.name,
    alwaysUseTrainStep: opts.alwaysUseTrainStep ?? false,
    critic,
    numCriticOnlySteps,
    async: opts.async ?? false,
    evalInterval,
    skipEvalBeforeTrain: opts.skipEvalBeforeTrain ?? false,
    preTrainEvalOnlyAtZero: opts.preTrainEvalOnlyAtZero ?? false,
    klCoef: opts.klCoef ?? 0,
    colocate: opts.colocate ?? true,
    interleaveWriters: opts.interleaveWriters ?? false,
  };
  return {
    seed,
    profile,
    flags,
    n,
    roundsResolved,
    evalDatasets: opts.evalDatasets ?? ["aime"],
    saveInterval,
    useKlLoss: opts.useKlLoss ?? false,
    specDecoding: opts.specDecoding ?? false,
    logMultiTurn: opts.logMultiTurn ?? false,
    logPassrate: opts.logPassrate ?? false,
    rolloutBatchSize,
    nSamplesPerPrompt,
    entity: opts.entity ?? "scenario-entity",
    project: opts.project ?? "slime-scenario",
    startMs: opts.startMs ?? Date.UTC(2026, 7, 25, 6, 0, 0),
  };
}

/** Synthetic run id of round k: `scn-r<k>-` plus 4 base-36 characters from the seed. */
export function scenarioRunId(seed: number, roundIndex: number): string {
  const p = createPrng(deriveSeed(seed, `scenario-run-id-${roundIndex}`));
  const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789";
  let tail = "";
  for (let i = 0; i < 4; i++) tail += alphabet[p.int(0, alphabet.length - 1)];
  return `scn-r${roundIndex}-${tail}`;
}

/** A row with its step key appended (slime adds it right before wandb.log). */
function row(
  kind: ScenarioRowKind,
  writer: Writer,
  rid: number,
  segment: number,
  values: LoggedValue[],
  stepKey: string,
  stepValue: number,
  trainStep: number | null = null,
): ScenarioRow {
  return { kind, writer, rolloutId: rid, trainStep, segment, timeMs: 0, values: [...values, { key: stepKey, value: stepValue, kind: "int" }], historyStep: -1 };
}

/** What the rows of one segment (one process lifetime) are made from. */
interface SegmentContext {
  r: Resolved;
  ctx: BatchContext;
  roundIndex: number;
  segment: number;
  /** compute_rollout_step of slime. */
  rolloutStep: (rid: number) => number;
  /** An independent random stream per label, so adding draws in one place shifts nothing else. */
  fork: (label: string) => Prng;
}

/** The rows of one rollout: manager row, then (unless crashed) trainer rows, steps (critic rows before or after the actor's) and perf. */
function simulateRollout(sc: SegmentContext, rid: number, first: boolean, crashed: boolean, savedBefore: boolean): { gen: GenRollout; trainer: ScenarioRow[] } {
  const { r, ctx, segment, rolloutStep } = sc;
  const { flags } = r;
  const prng = sc.fork(`rollout-${rid}`);
  const criticOnly = flags.critic && rid < flags.numCriticOnlySteps;
  const manager = row("rollout-manager", "manager", rid, segment, managerDict(ctx, prng.fork("manager")), STEP_KEY["rollout-manager"], rolloutStep(rid));
  const gen: GenRollout = { roundIndex: sc.roundIndex, segment, rolloutId: rid, crashed, criticOnly, manager, trainer: [], actorSteps: [], criticSteps: [] };
  const trainer: ScenarioRow[] = [];
  if (crashed) return { gen, trainer };
  const rolloutRow = (kind: ScenarioRowKind, values: LoggedValue[]) => row(kind, "actor", rid, segment, values, STEP_KEY["trainer-rollout"], rolloutStep(rid));
  if (!criticOnly) {
    gen.trainer.push(rolloutRow("trainer-rollout", trainerRolloutDict(ctx, prng.fork("trainer-rollout"))));
    if (r.logMultiTurn) gen.trainer.push(rolloutRow("multi-turn", multiTurnDict(prng.fork("multi-turn"))));
    if (r.logPassrate) gen.trainer.push(rolloutRow("passrate", passrateDict(ctx, prng.fork("passrate"))));
    trainer.push(...gen.trainer);
  }
  const coin = prng.fork("critic-order");
  for (let stepId = 0; stepId < ctx.n; stepId++) {
    const trainStep = rid * ctx.n + stepId;
    const actor = criticOnly
      ? null
      : row(
          "optimizer-update",
          "actor",
          rid,
          segment,
          actorStepDict(ctx, prng.fork(`step-${stepId}`), stepId),
          STEP_KEY["optimizer-update"],
          trainStep,
          trainStep,
        );
    const critic = flags.critic
      ? row("critic-update", "critic", rid, segment, criticStepDict(ctx, prng.fork(`critic-${stepId}`)), STEP_KEY["optimizer-update"], trainStep, trainStep)
      : null;
    if (actor) gen.actorSteps.push(actor);
    if (critic) gen.criticSteps.push(critic);
    // The critic is another process: its row of a train/step lands before or after the actor's.
    const pair = critic && actor && coin.chance(0.5) ? [critic, actor] : [actor, critic];
    for (const x of pair) if (x) trainer.push(x);
  }
  if (!criticOnly) {
    // Save and weight-sync times of the previous iteration land on this perf row; the first includes the initial sync.
    const times = { saveModel: savedBefore ? prng.uniform(20, 40) : null, updateWeights: first ? prng.uniform(9, 13) : prng.uniform(2.6, 4.2) };
    const perf = rolloutRow("trainer-perf", trainerPerfDict(ctx, prng.fork("perf"), times));
    gen.trainer.push(perf);
    trainer.push(perf);
  }
  return { gen, trainer };
}

/** Rows of one segment (one process lifetime) in the order slime prints them, with the generation records. */
function simulateSegment(
  r: Resolved,
  ctx: BatchContext,
  roundIndex: number,
  segment: number,
  rids: number[],
  crashLast: boolean,
): { order: ScenarioRow[]; rollouts: GenRollout[]; evals: GenEval[] } {
  const { flags } = r;
  const sc: SegmentContext = {
    r,
    ctx,
    roundIndex,
    segment,
    // rollout_id * rbs * nspp // gbs: rollout_id * N only when gbs divides the batch.
    rolloutStep: (rid) => (flags.alwaysUseTrainStep ? Math.floor((rid * ctx.samples) / ctx.globalBatchSize) : rid),
    fork: (label) => createPrng(deriveSeed(r.seed, `r${roundIndex}/s${segment}/${label}`)),
  };
  const rollouts: GenRollout[] = [];
  const evals: GenEval[] = [];
  const makeEval = (rid: number, kind: GenEval["kind"]): ScenarioRow => {
    const ev = row("eval", "manager", rid, segment, evalDict(ctx, sc.fork(`eval-${kind}-${rid}`)), STEP_KEY.eval, sc.rolloutStep(rid));
    if (r.logPassrate) {
      const pass = r.evalDatasets.flatMap((d) => passrateDict(ctx, sc.fork(`eval-pass-${kind}-${rid}-${d}`), `eval/${d}-pass@`));
      ev.values.splice(ev.values.length - 1, 0, ...pass);
    }
    evals.push({ roundIndex, segment, rolloutId: rid, kind, row: ev });
    return ev;
  };
  const order: ScenarioRow[] = [];
  // train.py evaluates before the first rollout of the process; train_async.py never does.
  const preTrain = flags.evalInterval !== null && !flags.skipEvalBeforeTrain && !flags.async && (!flags.preTrainEvalOnlyAtZero || rids[0] === 0);
  if (preTrain) order.push(makeEval(rids[0], "pre-train"));
  const blocks: { manager: ScenarioRow; trainer: ScenarioRow[]; after: ScenarioRow[] }[] = [];
  let savedBefore = false;
  rids.forEach((rid, j) => {
    const crashed = crashLast && j === rids.length - 1;
    const { gen, trainer } = simulateRollout(sc, rid, j === 0, crashed, savedBefore);
    savedBefore = !crashed && (rid + 1) % r.saveInterval === 0;
    const after = !crashed && flags.evalInterval !== null && (rid + 1) % flags.evalInterval === 0 ? [makeEval(rid, "periodic")] : [];
    rollouts.push(gen);
    blocks.push({ manager: gen.manager, trainer, after });
  });
  if (flags.async) {
    // train_async.py: generation of r+1 finishes while the trainer works on r.
    order.push(blocks[0].manager);
    blocks.forEach((b, j) => {
      if (j + 1 < blocks.length) order.push(blocks[j + 1].manager);
      order.push(...b.trainer, ...b.after);
    });
  } else {
    for (const b of blocks) order.push(b.manager, ...b.trainer, ...b.after);
  }
  return { order, rollouts, evals };
}

/** Seconds between a row and the one before it, by kind (a rough slime timeline). */
function gapMs(prng: Prng, kind: ScenarioRowKind): number {
  switch (kind) {
    case "rollout-manager":
      return prng.int(120_000, 300_000);
    case "trainer-rollout":
      return prng.int(20_000, 40_000);
    case "eval":
      return prng.int(30_000, 90_000);
    case "optimizer-update":
    case "critic-update":
      return prng.int(4_000, 20_000);
    default:
      return prng.int(300, 3_000);
  }
}

/** `_step` order of a segment's rows: as printed, or (interleaveWriters) each writer delayed by a random 0..90 s, writers keeping their own order. */
function stepOrder(printed: ScenarioRow[], interleave: boolean, prng: Prng): ScenarioRow[] {
  if (!interleave) return printed.slice();
  const last = new Map<Writer, number>();
  const keyed = printed.map((x, i) => {
    const key = Math.max(x.timeMs + prng.int(0, 90_000), last.get(x.writer) ?? -Infinity);
    last.set(x.writer, key);
    return { x, i, key };
  });
  keyed.sort((a, b) => a.key - b.key || a.i - b.i);
  return keyed.map((k) => k.x);
}

/** The frozen form of a row (what lib/archive's loader returns): via the archive's own serializer. */
function frozenHistoryRow(x: ScenarioRow, runtimeS: number): HistoryRow {
  const obj: HistoryRow = { _step: x.historyStep, _runtime: runtimeS, _timestamp: x.timeMs / 1000 };
  for (const v of x.values) obj[v.key] = v.value;
  return parseFrozenRow(serializeFrozenRow(obj));
}

type ResolvedRound = Resolved["roundsResolved"][number];

/** The job facts the row builders need, for one round. */
function batchContext(r: Resolved, spec: ResolvedRound): BatchContext {
  const samples = r.rolloutBatchSize * r.nSamplesPerPrompt;
  return {
    profile: r.profile,
    samples,
    n: spec.n,
    globalBatchSize: Math.floor(samples / spec.n),
    klCoef: r.flags.klCoef,
    useKlLoss: r.useKlLoss,
    critic: r.flags.critic,
    colocate: r.flags.colocate,
    specDecoding: r.specDecoding,
    evalDatasets: r.evalDatasets,
    nSamplesPerPrompt: r.nSamplesPerPrompt,
  };
}

/** The run config (what wandb.init gets) of a round, with slime's argument names. */
function runConfig(r: Resolved, spec: ResolvedRound, ctx: BatchContext): Record<string, unknown> {
  return {
    rollout_batch_size: r.rolloutBatchSize,
    n_samples_per_prompt: r.nSamplesPerPrompt,
    global_batch_size: ctx.globalBatchSize,
    start_rollout_id: spec.start,
    num_rollout: spec.start + spec.rollouts,
    wandb_always_use_train_step: r.flags.alwaysUseTrainStep,
    use_critic: r.flags.critic,
    num_critic_only_steps: r.flags.numCriticOnlySteps,
    advantage_estimator: r.flags.critic ? "ppo" : "grpo",
    eval_interval: r.flags.evalInterval,
    skip_eval_before_train: r.flags.skipEvalBeforeTrain,
    save_interval: r.saveInterval,
    kl_coef: r.flags.klCoef,
    use_kl_loss: r.useKlLoss,
    colocate: r.flags.colocate,
    simulated: true,
    simulated_profile: r.profile.name,
  };
}

/** The processes of a round: one, or with a resume in place the crashed one and the resumed one. */
function roundSegments(spec: ResolvedRound): { rids: number[]; crashLast: boolean }[] {
  const ids = Array.from({ length: spec.rollouts }, (_, i) => spec.start + i);
  const rip = spec.resumeInPlace;
  if (!rip) return [{ rids: ids, crashLast: spec.crash }];
  return [
    { rids: ids.slice(0, rip.crashAfter + 1), crashLast: true },
    { rids: ids.slice(rip.crashAfter - rip.relog), crashLast: spec.crash },
  ];
}

/** Simulates a scenario. Pure and deterministic in its options. */
export function simulateScenario(opts: ScenarioOptions = {}): Scenario {
  const r = resolveOptions(opts);
  const runs: ScenarioRun[] = [];
  const allRollouts: GenRollout[] = [];
  const allEvals: GenEval[] = [];
  let launchMs = r.startMs;
  r.roundsResolved.forEach((spec, k) => {
    const prng = createPrng(deriveSeed(r.seed, `round-${k}`));
    const ctx = batchContext(r, spec);
    const rows: ScenarioRow[] = [];
    const printedRows: ScenarioRow[] = [];
    const history: HistoryRow[] = [];
    const segmentStartMs: number[] = [];
    let runtimeOffsetS = 0;
    roundSegments(spec).forEach((seg, s) => {
      const out = simulateSegment(r, ctx, k, s, seg.rids, seg.crashLast);
      segmentStartMs.push(launchMs);
      const initMs = launchMs + prng.int(15_000, 30_000);
      let t = initMs + prng.int(60_000, 120_000);
      for (const x of out.order) {
        t += gapMs(prng, x.kind);
        x.timeMs = t;
      }
      let lastRuntime = runtimeOffsetS;
      for (const x of stepOrder(out.order, r.flags.interleaveWriters, prng.fork(`interleave-${s}`))) {
        x.historyStep = rows.length;
        rows.push(x);
        lastRuntime = runtimeOffsetS + (x.timeMs - initMs) / 1000;
        history.push(frozenHistoryRow(x, lastRuntime));
      }
      printedRows.push(...out.order);
      allRollouts.push(...out.rollouts);
      allEvals.push(...out.evals);
      // A resumed W&B run continues `_runtime` from where the crashed process left it.
      runtimeOffsetS = lastRuntime;
      launchMs = t + prng.int(5 * 60_000, 20 * 60_000);
    });
    runs.push({
      runId: scenarioRunId(r.seed, k),
      round: `R${k}`,
      state: spec.crash ? "crashed" : "finished",
      n: spec.n,
      flags: { ...r.flags },
      config: runConfig(r, spec, ctx),
      pids: { rolloutManager: 100_000 + prng.int(0, 899_999), actor: 1_000_000 + prng.int(0, 899_999), critic: 2_000_000 + prng.int(0, 899_999) },
      rows,
      printedRows,
      history,
      segmentStartMs,
    });
  });
  const truth = computeScenarioTruth(
    runs.map((run) => ({ round: run.round, runId: run.runId, state: run.state, n: run.n, flags: run.flags, historyEvents: run.rows.length })),
    allRollouts,
    allEvals,
  );
  return { seed: r.seed, entity: r.entity, project: r.project, profile: r.profile.name, runs, truth };
}

/** The runs as lib/archive's `loadArchive` returns them (RunHistory), in round order. */
export function scenarioRunHistories(s: Scenario): RunHistory[] {
  return s.runs.map((run) => ({ runId: run.runId, round: run.round, entity: s.entity, project: s.project, state: run.state, rows: run.history }));
}
