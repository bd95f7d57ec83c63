/**
 * Deterministic simulator of four consecutive slime GRPO rounds (one W&B run each), shaped like
 * what slime really logs (docs/slime-logging.md): per rollout batch a rollout-manager
 * row, a trainer rollout row, N = 2 optimizer-update rows and a trainer perf row, with slime's key
 * names, key order and Python value types. Sample-level quantities (rewards, truncation, lengths)
 * are drawn per sample and the logged means are computed from them the way slime computes them, so
 * the rows are consistent with each other (e.g. an update whose groups all had equal rewards has
 * zero advantages and a gradient norm of exactly 0). Round means are calibrated to
 * `ROUND_TARGETS`. Pure: the same seed gives the same simulation, bit for bit.
 */
import { ROUND_TARGETS, type RoundTarget, ZERO_GRAD_NORM_UPDATES } from "./calibration";
import { createPrng, deriveSeed, type Prng } from "./prng";
import { type BatchRowKind, buildRow, type LoggedValue, RowBuilder, SAMPLE_UPDATE_SHAPE } from "./slime-rows";

/** Default seed of the bundled sample. */
export const DEFAULT_SEED = 20260112;

/** The slime arguments of the simulated job (they fix N and the step arithmetic). */
export const SIM_ARGS = {
  rolloutBatchSize: 8,
  nSamplesPerPrompt: 8,
  globalBatchSize: 32,
  rolloutsPerRound: 20,
  /** First rollout id of R0: the job resumed after a rollout 0 (so r0 = 1). */
  firstRolloutId: 1,
  rolloutMaxResponseLen: 2048,
  rolloutNumGpus: 8,
  trainWorldSize: 8,
  lr: 1e-6,
  epsClip: 0.2,
  saveInterval: 10,
} as const;

/** Optimizer updates per rollout batch (rollout_batch_size * n_samples_per_prompt / global_batch_size). */
export const UPDATES_PER_ROLLOUT = (SIM_ARGS.rolloutBatchSize * SIM_ARGS.nSamplesPerPrompt) / SIM_ARGS.globalBatchSize;

/** Which slime writer produced a row. */
export type SimRowKind = BatchRowKind;

/** One `wandb.log` call of slime. */
export interface SimRow {
  kind: SimRowKind;
  rolloutId: number;
  /** `train/step` for update rows, else null. */
  trainStep: number | null;
  /** Wall time of the call, epoch ms (becomes `_timestamp`, and the local log line's time). */
  timeMs: number;
  /** The dict slime passes to `wandb.log`, in slime's key order, step key last. */
  values: LoggedValue[];
}

/** A non-metric line of the local training log. */
export interface SimLogLine {
  timeMs: number;
  /** Ray actor prefix, e.g. "(RolloutManager pid=1805485) ", "" for the driver. */
  prefix: string;
  /** Python-logging source `file.py:LINE`, or null for a raw line (warnings, wandb, raylet). */
  source: string | null;
  text: string;
}

/** One simulated W&B run (one round of training). */
export interface SimRun {
  runId: string;
  round: string;
  displayName: string;
  /** slime arguments as the run config (what wandb.init gets). */
  config: Record<string, unknown>;
  /** When `wandb.init` ran, epoch ms (the SDK's `_runtime` counts from here). */
  initMs: number;
  /** Launch and end of the job, epoch ms. */
  startMs: number;
  endMs: number;
  pids: { rolloutManager: number; trainer: number };
  rows: SimRow[];
  /** Non-metric local-log lines; metric lines are rendered from `rows`. */
  logLines: SimLogLine[];
}

/** A whole simulation. */
export interface Simulation {
  seed: number;
  entity: string;
  project: string;
  runs: SimRun[];
}

/** Options of `simulateSlime`. */
export interface SimulateOptions {
  seed?: number;
  entity?: string;
  project?: string;
  /** Launch time of R0, epoch ms. */
  startMs?: number;
}

/** Default entity and project of the bundled sample. */
export const SAMPLE_ENTITY = "sample-entity";
export const SAMPLE_PROJECT = "slime-grpo-sample";

/** Rollout ids whose kl mean is NaN in the trainer rollout row (a -inf ref log-prob token). */
const NAN_KL_ROLLOUTS = new Set([47]);

// ---------------------------------------------------------------------------------------------
// Small numeric helpers

const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);
const mean = (xs: readonly number[]) => sum(xs) / xs.length;
const clamp = (x: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, x));
const f32 = Math.fround;

/** AR(1) noise with stationary standard deviation `sd`. */
function arNoise(prng: Prng, n: number, sd: number, rho: number): number[] {
  const out: number[] = [];
  let e = prng.normal(0, sd);
  for (let i = 0; i < n; i++) {
    if (i > 0) e = rho * e + Math.sqrt(1 - rho * rho) * prng.normal(0, sd);
    out.push(e);
  }
  return out;
}

/** Linear ramp from a to b over n points. */
function ramp(n: number, a: number, b: number): number[] {
  return Array.from({ length: n }, (_, i) => (n === 1 ? a : a + ((b - a) * i) / (n - 1)));
}

/** Shifts values so their plain mean is `target`. */
function shiftToMean(values: number[], target: number): number[] {
  const d = target - mean(values);
  return values.map((v) => v + d);
}

/** Scales non-negative values so that their sum divided by `count` is `target`. */
function scaleToMean(values: number[], target: number, count: number): number[] {
  const s = sum(values);
  if (s <= 0) throw new Error("cannot scale an all-zero series");
  const k = (target * count) / s;
  return values.map((v) => v * k);
}

/** Split of the integer `total` proportional to weights (floors first, then one by one to the largest share), within caps. */
function allocateInteger(total: number, weights: number[], caps: number[]): number[] {
  const out = weights.map(() => 0);
  let left = total;
  while (left > 0) {
    const open = out.map((_, i) => i).filter((i) => out[i] < caps[i]);
    if (open.length === 0) throw new Error(`cannot allocate ${total}: caps too small`);
    const w = sum(open.map((i) => weights[i]));
    const shares = open.map((i) => (left * weights[i]) / w);
    let given = 0;
    open.forEach((i, j) => {
      const add = Math.min(Math.floor(shares[j]), caps[i] - out[i]);
      out[i] += add;
      given += add;
    });
    if (given === 0) {
      let best = 0;
      for (let j = 1; j < open.length; j++) if (shares[j] > shares[best]) best = j;
      out[open[best]]++;
      given = 1;
    }
    left -= given;
  }
  return out;
}

/** Adjusts integers by ±1 steps (random positions) until they sum to `total`, within [lo, hi]. */
function fixIntegerSum(prng: Prng, xs: number[], total: number, lo: number, hi: number): number[] {
  const out = xs.slice();
  let diff = total - sum(out);
  for (let guard = 0; diff !== 0; guard++) {
    if (guard > 1e6) throw new Error(`cannot reach sum ${total}`);
    const i = prng.int(0, out.length - 1);
    if (diff > 0 && out[i] < hi) {
      out[i]++;
      diff--;
    } else if (diff < 0 && out[i] > lo) {
      out[i]--;
      diff++;
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// One rollout batch at sample level

interface Sample {
  group: number;
  reward: number;
  truncated: boolean;
  /** Loss-masked (model-generated) tokens. */
  effectiveLen: number;
  /** All response tokens incl. tool observations (what truncation counts). */
  responseLen: number;
  promptLen: number;
  /** GRPO-normalised reward (float32), the sample's advantage. */
  advantage: number;
}

interface BatchGroups {
  /** Successes per group (rewards are 0/1). */
  successes: number[];
  failures: number;
}

/** Draws the group success counts of a batch; `zeroHalves[h]` forces update h to have only equal-reward groups. */
function drawGroups(prng: Prng, successRate: number, zeroHalves: boolean[]): BatchGroups {
  const n = SIM_ARGS.nSamplesPerPrompt;
  const groupsPerUpdate = SIM_ARGS.rolloutBatchSize / UPDATES_PER_ROLLOUT;
  const successes: number[] = [];
  for (let g = 0; g < SIM_ARGS.rolloutBatchSize; g++) {
    // Prompt difficulty varies a lot, so many groups are all-fail or all-pass.
    const p = clamp(successRate + prng.normal(0, 0.3), 0, 1);
    successes.push(prng.binomial(n, p));
  }
  zeroHalves.forEach((zero, h) => {
    const idx = Array.from({ length: groupsPerUpdate }, (_, i) => h * groupsPerUpdate + i);
    const isZeroStd = (g: number) => successes[g] === 0 || successes[g] === n;
    if (zero) {
      for (const g of idx) if (!isZeroStd(g)) successes[g] = prng.chance(0.8) ? 0 : n;
    } else if (idx.every(isZeroStd)) {
      successes[idx[prng.int(0, idx.length - 1)]] = prng.int(1, n - 1);
    }
  });
  return { successes, failures: sum(successes.map((s) => n - s)) };
}

/** GRPO reward normalisation of one group in float32: (r - mean) / (std + 1e-6), std unbiased. */
function normaliseGroup(rewards: number[]): number[] {
  const m = f32(sum(rewards) / rewards.length);
  const dev = rewards.map((r) => f32(r - m));
  const variance = f32(sum(dev.map((d) => f32(d * d))) / (rewards.length - 1));
  const denom = f32(f32(Math.sqrt(variance)) + 1e-6);
  return dev.map((d) => f32(d / denom));
}

/** Draws the samples of a batch with exactly `truncated` truncated samples and effective lengths summing to `effectiveSum`. */
function drawSamples(prng: Prng, groups: BatchGroups, truncated: number, effectiveSum: number): Sample[] {
  const n = SIM_ARGS.nSamplesPerPrompt;
  const maxLen = SIM_ARGS.rolloutMaxResponseLen;
  const rewards: number[] = [];
  const group: number[] = [];
  groups.successes.forEach((s, g) => {
    const r = prng.shuffle(Array.from({ length: n }, (_, i) => (i < s ? 1 : 0)));
    for (const x of r) {
      rewards.push(x);
      group.push(g);
    }
  });
  // Truncated samples hit the length limit and get reward 0.
  const failing = rewards.map((_r, i) => i).filter((i) => rewards[i] === 0);
  const truncSet = new Set(prng.shuffle(failing).slice(0, truncated));
  if (truncSet.size !== truncated) throw new Error(`batch has ${failing.length} failures, cannot truncate ${truncated}`);
  const raw = rewards.map((_, i) => Math.exp(prng.normal(0, 0.55)) * (truncSet.has(i) ? 1.9 : 1));
  const scale = effectiveSum / sum(raw);
  const effective = fixIntegerSum(
    prng,
    raw.map((x) => clamp(Math.round(x * scale), 12, 1900)),
    effectiveSum,
    12,
    1900,
  );
  const promptLens = groups.successes.map(() => prng.int(1650, 2350));
  const advantages: number[] = [];
  for (let g = 0; g < groups.successes.length; g++) advantages.push(...normaliseGroup(rewards.slice(g * n, g * n + n)));
  return rewards.map((reward, i) => {
    const isTrunc = truncSet.has(i);
    let responseLen: number;
    if (isTrunc) responseLen = maxLen;
    else {
      const turns = 1 + prng.binomial(4, 0.5);
      let obs = 0;
      for (let t = 0; t < turns; t++) obs += prng.int(40, 220);
      responseLen = Math.min(effective[i] + obs, maxLen - 1);
    }
    return {
      group: group[i],
      reward,
      truncated: isTrunc,
      effectiveLen: effective[i],
      responseLen,
      promptLen: promptLens[group[i]],
      advantage: advantages[i],
    };
  });
}

// ---------------------------------------------------------------------------------------------
// Round simulation

interface RoundShape {
  successRate: number;
  /** Per-round start offset of the logprob gap around 0.01. */
  logprobGap: number;
}

const ROUND_SHAPES: readonly RoundShape[] = [
  { successRate: 0.3, logprobGap: 0.0101 },
  { successRate: 0.36, logprobGap: 0.0099 },
  { successRate: 0.41, logprobGap: 0.0098 },
  { successRate: 0.45, logprobGap: 0.0102 },
];

/** Python-ish 'YYYYmmdd_HHMMSS' of epoch ms (UTC), as wandb names its run folders. */
function compactStamp(ms: number): string {
  const iso = new Date(ms).toISOString();
  return `${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}_${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}`;
}

/** Synthetic, clearly non-W&B run id: `sim-r<k>-` plus 4 base-36 characters from the seed. */
export function simulatedRunId(seed: number, roundIndex: number): string {
  const p = createPrng(deriveSeed(seed, `run-id-${roundIndex}`));
  const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789";
  let tail = "";
  for (let i = 0; i < 4; i++) tail += alphabet[p.int(0, alphabet.length - 1)];
  return `sim-r${roundIndex}-${tail}`;
}
// ---------------------------------------------------------------------------------------------
// A round's plan: every calibrated series, drawn before any row is written

/** The series one round's rows are made from (index j = rollout in the round, u = update in the round). */
interface RoundPlan {
  target: RoundTarget;
  shape: RoundShape;
  rolloutIds: number[];
  groups: BatchGroups[];
  /** Truncated samples per batch. */
  truncated: number[];
  samples: Sample[][];
  rolloutTime: number[];
  tokPerSTarget: number[];
  entropy: number[];
  clipfrac: number[];
  gradNorm: number[];
  logprobGap: number[];
  /** Update u has only equal-reward groups (gradient norm exactly 0). */
  zeroU: (u: number) => boolean;
}

const SAMPLES_PER_BATCH = SIM_ARGS.rolloutBatchSize * SIM_ARGS.nSamplesPerPrompt;

/** Sample structure and rollout-level series of a round: groups, truncation, samples, rollout times, actor throughput. */
function planRollouts(prng: Prng, target: RoundTarget, shape: RoundShape, rolloutIds: number[], isZeroGrad: (rid: number, stepId: number) => boolean) {
  const N = UPDATES_PER_ROLLOUT;
  const perRound = rolloutIds.length;
  const groups = rolloutIds.map((rid) =>
    drawGroups(
      prng.fork(`groups-${rid}`),
      shape.successRate,
      Array.from({ length: N }, (_, h) => isZeroGrad(rid, h)),
    ),
  );
  const truncTotal = Math.round(target.truncatedFraction * perRound * SAMPLES_PER_BATCH);
  const truncWeights = rolloutIds.map(() => Math.exp(prng.normal(0, 0.35)));
  const truncated = allocateInteger(
    truncTotal,
    truncWeights,
    groups.map((g) => Math.min(g.failures, 24)),
  );
  const lenNoise = arNoise(prng, perRound, 16, 0.5);
  const lenDrift = ramp(perRound, prng.normal(0, 8), prng.normal(0, 8));
  const respMeanTarget = shiftToMean(
    lenNoise.map((e, j) => target.responseLen + e + lenDrift[j] + 25 * (truncated[j] / SAMPLES_PER_BATCH - target.truncatedFraction)),
    target.responseLen,
  );
  const effectiveSums = respMeanTarget.map((m) => Math.round(m * SAMPLES_PER_BATCH));
  const samples = rolloutIds.map((rid, j) => drawSamples(prng.fork(`samples-${rid}`), groups[j], truncated[j], effectiveSums[j]));
  const respMean = samples.map((s) => sum(s.map((x) => x.effectiveLen)) / s.length);
  const rolloutTime = shiftToMean(
    respMean.map((m, j) => target.rolloutTime + 0.35 * (m - target.responseLen) + 1.1 * (truncated[j] - truncTotal / perRound) + prng.normal(0, 8)),
    target.rolloutTime,
  ).map((t) => t + prng.uniform(-5e-7, 5e-7));
  const tokPerSTarget = shiftToMean(
    arNoise(prng, perRound, 210, 0.3).map((e) => target.actorTokPerS + e),
    target.actorTokPerS,
  );
  return { groups, truncated, samples, rolloutTime, tokPerSTarget };
}

/** Update-level series of a round (u = 0..perRound*N-1): entropy, clip fraction, gradient norm, log-prob gap. */
function planUpdates(prng: Prng, target: RoundTarget, shape: RoundShape, rolloutIds: number[], isZeroGrad: (rid: number, stepId: number) => boolean) {
  const N = UPDATES_PER_ROLLOUT;
  const nUpd = rolloutIds.length * N;
  const updStep = (u: number) => u % N;
  const zeroU = (u: number) => isZeroGrad(rolloutIds[Math.floor(u / N)], updStep(u));
  const entropy = shiftToMean(
    arNoise(prng, nUpd, 0.0035, 0.6).map((e, u) => target.entropy + 0.011 - (0.022 * u) / (nUpd - 1) + e),
    target.entropy,
  );
  const clipRaw = Array.from({ length: nUpd }, (_, u) => (updStep(u) === 0 || zeroU(u) ? 0 : Math.exp(prng.normal(0, 0.45)) * (1.25 - (0.5 * u) / nUpd)));
  const clipfrac = scaleToMean(clipRaw, target.clipfrac, nUpd);
  const gnRaw = Array.from({ length: nUpd }, (_, u) => {
    if (zeroU(u)) return 0;
    const spike = prng.chance(0.06) ? prng.uniform(2, 3.2) : 1;
    return Math.exp(prng.normal(0, 0.3)) * spike * (1.15 - (0.3 * u) / nUpd);
  });
  const gradNorm = scaleToMean(gnRaw, target.gradNorm, nUpd);
  const logprobGap = arNoise(prng, nUpd, 0.00045, 0.5).map((e, u) => Math.max(0.006, shape.logprobGap + e - (0.0002 * u) / nUpd));
  return { entropy, clipfrac, gradNorm, logprobGap, zeroU };
}

/** The plan of round `r` (draws from the round's prng in a fixed order: rollouts first, then updates). */
function planRound(prng: Prng, r: number, target: RoundTarget): RoundPlan {
  const N = UPDATES_PER_ROLLOUT;
  const r0 = SIM_ARGS.firstRolloutId;
  const perRound = SIM_ARGS.rolloutsPerRound;
  const zeroGrad = new Set(ZERO_GRAD_NORM_UPDATES);
  const shape = ROUND_SHAPES[r];
  const rolloutIds = Array.from({ length: perRound }, (_, j) => r0 + r * perRound + j);
  const isZeroGrad = (rid: number, stepId: number) => zeroGrad.has(rid * N + stepId - N * r0 + 1);
  const rollouts = planRollouts(prng, target, shape, rolloutIds, isZeroGrad);
  return { target, shape, rolloutIds, ...rollouts, ...planUpdates(prng, target, shape, rolloutIds, isZeroGrad) };
}

// ---------------------------------------------------------------------------------------------
// A round's timeline: the state carried from batch to batch, and the log lines

/** What the simulation of one round carries from batch to batch. */
interface RoundState {
  prng: Prng;
  plan: RoundPlan;
  rows: SimRow[];
  logLines: SimLogLine[];
  /** Ray actor prefixes of the rollout manager and the trainer. */
  mgr: string;
  trn: string;
  /** End of the previous train step (train_wait starts there). */
  trainEndPrevMs: number;
  /** Weight-sync time that the next perf row reports. */
  pendingUpdateWeights: number;
  /** Save time that the next perf row reports, or null. */
  pendingSave: number | null;
  rolloutStartMs: number;
}

function line(st: RoundState, timeMs: number, prefix: string, source: string | null, text: string): void {
  st.logLines.push({ timeMs, prefix, source, text });
}

function timerLines(st: RoundState, prefix: string, name: string, startAt: number, seconds: number): void {
  line(st, startAt, prefix, "timer.py:23", `Timer ${name} start`);
  line(st, startAt + Math.round(seconds * 1000), prefix, "timer.py:31", `Timer ${name} end (elapsed: ${seconds.toFixed(1)}s)`);
}

/** Identity and start times of a round's job. */
interface RoundMeta {
  runId: string;
  displayName: string;
  startMs: number;
  initMs: number;
  pidManager: number;
  pidTrainer: number;
}

/** Draws the round's pids and start times and sets up its state (before the launch lines are written). */
function startRound(prng: Prng, plan: RoundPlan, seed: number, r: number, launchMs: number): { st: RoundState; meta: RoundMeta; trainerReadyMs: number } {
  const pidManager = prng.int(1_200_000, 2_900_000);
  const pidTrainer = pidManager + prng.int(300, 900);
  const startMs = launchMs;
  const initMs = startMs + prng.int(18_000, 32_000);
  const trainerReadyMs = initMs + prng.int(95_000, 140_000);
  const meta: RoundMeta = { runId: simulatedRunId(seed, r), displayName: `grpo-sample-${plan.target.round}`, startMs, initMs, pidManager, pidTrainer };
  const st: RoundState = {
    prng,
    plan,
    rows: [],
    logLines: [],
    mgr: `(RolloutManager pid=${pidManager}) `,
    trn: `(MegatronTrainRayActor pid=${pidTrainer}) `,
    trainEndPrevMs: trainerReadyMs, // train_wait starts when the actor's init returns
    pendingUpdateWeights: 0,
    pendingSave: null,
    rolloutStartMs: 0,
  };
  return { st, meta, trainerReadyMs };
}

/** The driver's, wandb's and the actors' lines before the first rollout, then the initial weight sync. */
function launchLines(st: RoundState, meta: RoundMeta, trainerReadyMs: number): void {
  const { rolloutIds } = st.plan;
  const { startMs, initMs, runId, displayName } = meta;
  line(
    st,
    startMs,
    "",
    "train.py:28",
    `Launching slime GRPO round ${st.plan.target.round}: start_rollout_id=${rolloutIds[0]}, num_rollout=${rolloutIds[rolloutIds.length - 1] + 1}`,
  );
  line(st, startMs + 4_000, "", "placement_group.py:118", `Creating placement group with ${SIM_ARGS.trainWorldSize} GPUs (colocate).`);
  line(st, initMs - 1_500, "", null, "wandb: Tracking run with wandb version 0.21.0");
  line(st, initMs - 1_000, "", null, `wandb: Run data is saved locally in /root/slime/wandb/run-${compactStamp(initMs)}-${runId}`);
  line(st, initMs - 500, "", null, `wandb: Syncing run ${displayName}`);
  line(st, initMs + 21_000, st.mgr, "rollout.py:396", "import slime.rollout.sglang_rollout.generate_rollout as generate_rollout function.");
  line(st, initMs + 21_000, st.mgr, "rollout.py:397", "import slime.rollout.sglang_rollout.generate_rollout as eval_generate_rollout function.");
  line(
    st,
    trainerReadyMs - 30_000,
    st.trn,
    null,
    "/usr/local/lib/python3.12/dist-packages/megatron/core/tensor_parallel/layers.py:609: UserWarning: async_grad_allreduce is deprecated, not in use anymore and will be removed in a future release. Please use the overlap_grad_reduce option instead.",
  );
  line(st, trainerReadyMs - 30_000, st.trn, null, "  warnings.warn(");
  st.pendingUpdateWeights = st.prng.uniform(9, 13); // the initial weight sync before the first rollout
  st.rolloutStartMs = trainerReadyMs + Math.round(st.pendingUpdateWeights * 1000) + st.prng.int(15_000, 30_000);
  timerLines(st, st.trn, "update_weights", trainerReadyMs + 2_000, st.pendingUpdateWeights);
}

// ---------------------------------------------------------------------------------------------
// One rollout batch: the four row kinds, in the order slime logs them

/** Row 1, rollout manager: rollout extra metrics first, then sample metrics, then perf. Returns its time and the rollout's end. */
function managerRow(st: RoundState, j: number): { rolloutEndMs: number; managerRowMs: number } {
  const { prng, plan } = st;
  const rid = plan.rolloutIds[j];
  const batch = plan.samples[j];
  const rt = plan.rolloutTime[j];
  const effLens = batch.map((s) => s.effectiveLen);
  const respLens = batch.map((s) => s.responseLen);
  const sortedEff = effLens.slice().sort((a, b) => a - b);
  const mid = sortedEff.length / 2;
  const rolloutEndMs = st.rolloutStartMs + Math.round(rt * 1000);
  const m = new RowBuilder();
  const dropFail = prng.binomial(4, 0.3 * (1 - plan.shape.successRate));
  const dropPass = prng.binomial(3, 0.35 * plan.shape.successRate);
  if (dropFail > 0) m.int("rollout/dynamic_filter/drop_zero_std_0", dropFail);
  if (dropPass > 0) m.int("rollout/dynamic_filter/drop_zero_std_1", dropPass);
  m.float("rollout/response_len/mean", sum(effLens) / effLens.length);
  m.float("rollout/response_len/median", (sortedEff[mid - 1] + sortedEff[mid]) / 2);
  m.int("rollout/response_len/max", sortedEff[sortedEff.length - 1]);
  m.int("rollout/response_len/min", sortedEff[0]);
  for (const [rv, count] of zeroStdCounts(plan.groups[j])) m.int(`rollout/zero_std/count_${rv}`, count);
  const repetition = plan.truncated[j] > 0 && prng.chance(0.12) ? 1 : 0;
  m.np("rollout/repetition_frac", repetition / batch.length);
  m.np("rollout/truncated_ratio", batch.filter((s) => s.truncated).length / batch.length);
  m.float("perf/rollout_time", rt);
  m.float("perf/tokens_per_gpu_per_sec", sum(respLens) / rt / SIM_ARGS.rolloutNumGpus);
  m.float("perf/longest_sample_tokens_per_sec", Math.max(...respLens) / rt);
  m.float("perf/effective_tokens_per_gpu_per_sec", sum(effLens) / rt / SIM_ARGS.rolloutNumGpus);
  m.float("perf/longest_effective_sample_tokens_per_sec", Math.max(...effLens) / rt);
  m.int("rollout/step", rid);
  const managerRowMs = rolloutEndMs + prng.int(60, 400);
  st.rows.push({ kind: "rollout-manager", rolloutId: rid, trainStep: null, timeMs: managerRowMs, values: m.values });
  return { rolloutEndMs, managerRowMs };
}

/** zero_std counts by reward value, in order of first appearance, only for values present. */
function zeroStdCounts(groups: BatchGroups): Map<number, number> {
  const zeroStd = new Map<number, number>();
  groups.successes.forEach((s) => {
    if (s === 0 || s === SIM_ARGS.nSamplesPerPrompt) {
      const rv = s === 0 ? 0 : 1;
      zeroStd.set(rv, (zeroStd.get(rv) ?? 0) + 1);
    }
  });
  return zeroStd;
}

/** The rollout manager's first-sample and finish lines of a batch. */
function rolloutLines(st: RoundState, j: number, rolloutEndMs: number): void {
  const { prng } = st;
  const batch = st.plan.samples[j];
  line(
    st,
    st.rolloutStartMs + prng.int(8_000, 40_000),
    st.mgr,
    "sglang_rollout.py:438",
    `First rollout sample: ['<|im_start|>system\\nYou are a shopping assistant. Use the tools to find the product the user asks for.<|im_end|>\\n...'], label: sku-${prng.int(10000, 99999)}, reward: ${batch[0].reward}`,
  );
  line(
    st,
    rolloutEndMs - prng.int(200, 900),
    st.mgr,
    "sglang_rollout.py:453",
    `Finish rollout: ['...'], label: sku-${prng.int(10000, 99999)}, reward: ${batch[batch.length - 1].reward}`,
  );
}

/** The trainer's timers of one batch (seconds) and when its steps happen (epoch ms). */
interface TrainTimes {
  tokens: number;
  dataPreprocess: number;
  refLogProbs: number;
  logProbs: number;
  actorTrain: number;
  trainWait: number;
  trainTime: number;
  rolloutRowMs: number;
  actorStartMs: number;
  actorEndMs: number;
  trainEndMs: number;
}

/** Draws the trainer's timeline of batch j after the manager row, and writes its timer lines up to log_probs. */
function trainTimes(st: RoundState, j: number, managerRowMs: number): TrainTimes {
  const { prng } = st;
  const tokens = sum(st.plan.samples[j].map((s) => s.promptLen + s.responseLen));
  const dataPreprocess = prng.uniform(0.6, 1.8);
  const refLogProbs = tokens / prng.uniform(40_000, 46_000);
  const logProbs = tokens / prng.uniform(40_500, 46_500);
  const actorTrain = tokens / st.plan.tokPerSTarget[j];
  const overheadBefore = prng.uniform(0.5, 1.3);
  const overheadAfter = prng.uniform(0.2, 0.6);
  const preprocessStartMs = managerRowMs + prng.int(300, 900);
  const trainStartMs = preprocessStartMs + Math.round(dataPreprocess * 1000) + prng.int(20, 80);
  const trainWait = (trainStartMs - st.trainEndPrevMs) / 1000 + prng.uniform(-4e-4, 4e-4);
  const refStartMs = trainStartMs + prng.int(100, 300);
  const lpStartMs = refStartMs + Math.round(refLogProbs * 1000) + prng.int(300, 700);
  const rolloutRowMs = lpStartMs + Math.round(logProbs * 1000) + Math.round(overheadBefore * 1000);
  const actorStartMs = rolloutRowMs + prng.int(80, 250);
  const actorEndMs = actorStartMs + Math.round(actorTrain * 1000);
  const trainEndMs = actorEndMs + Math.round(overheadAfter * 1000);
  const trainTime = (trainEndMs - trainStartMs) / 1000 + prng.uniform(-4e-4, 4e-4);
  timerLines(st, st.trn, "data_preprocess", preprocessStartMs, dataPreprocess);
  line(st, trainStartMs, st.trn, "timer.py:31", `Timer train_wait end (elapsed: ${trainWait.toFixed(1)}s)`);
  line(st, trainStartMs, st.trn, "timer.py:23", "Timer train start");
  timerLines(st, st.trn, "ref_log_probs", refStartMs, refLogProbs);
  timerLines(st, st.trn, "log_probs", lpStartMs, logProbs);
  return { tokens, dataPreprocess, refLogProbs, logProbs, actorTrain, trainWait, trainTime, rolloutRowMs, actorStartMs, actorEndMs, trainEndMs };
}

/** Row 2, trainer rollout means. */
function trainerRolloutRow(st: RoundState, j: number, times: TrainTimes): void {
  const { prng, plan } = st;
  const N = UPDATES_PER_ROLLOUT;
  const rid = plan.rolloutIds[j];
  const batch = plan.samples[j];
  const entBatch = mean(plan.entropy.slice(j * N, j * N + N));
  const klBase = Math.max(0.0003, 0.0011 + 0.00043 * (rid - SIM_ARGS.firstRolloutId) + prng.normal(0, 0.0006));
  const logProbMean = -(0.74 * entBatch) + prng.normal(0, 0.002);
  let advAcc = 0;
  for (const s of batch) advAcc = f32(advAcc + s.advantage);
  const t = new RowBuilder();
  t.float("rollout/response_lengths", sum(batch.map((s) => s.responseLen)) / batch.length);
  t.float("rollout/rewards", sum(batch.map((s) => s.advantage)) / batch.length);
  t.float("rollout/raw_reward", sum(batch.map((s) => s.reward)) / batch.length);
  t.float("rollout/truncated", batch.filter((s) => s.truncated).length / batch.length);
  t.float("rollout/total_lengths", times.tokens / batch.length);
  t.float("rollout/rollout_log_probs", logProbMean + prng.normal(0, 0.0012));
  t.float("rollout/ref_log_probs", logProbMean - klBase);
  t.float("rollout/log_probs", logProbMean);
  t.float("rollout/kl", NAN_KL_ROLLOUTS.has(rid) ? NaN : klBase * prng.uniform(0.97, 1.05));
  t.float("rollout/advantages", advAcc / batch.length);
  t.float("rollout/returns", advAcc / batch.length);
  t.int("rollout/step", rid);
  st.rows.push({ kind: "trainer-rollout", rolloutId: rid, trainStep: null, timeMs: times.rolloutRowMs, values: t.values });
}

/** Rows 3..2+N, one per optimizer update, with the actor_train timer around them. */
function updateRows(st: RoundState, j: number, times: TrainTimes): void {
  const { prng, plan } = st;
  const N = UPDATES_PER_ROLLOUT;
  const rid = plan.rolloutIds[j];
  line(st, times.actorStartMs, st.trn, "timer.py:23", "Timer actor_train start");
  for (let stepId = 0; stepId < N; stepId++) {
    const u = j * N + stepId;
    const zero = plan.zeroU(u);
    let pgLoss: number;
    let ppoKl: number;
    if (stepId === 0) {
      // Same weights as the log-prob pass: ratio 1, so ppo_kl is 0 up to numerical noise.
      ppoKl = prng.chance(0.7) ? 0 : prng.int(-6, 6) * 2 ** -33 || 2 ** -34;
      pgLoss = prng.normal(0, 0.004);
    } else {
      ppoKl = zero ? prng.normal(1.4e-4, 5e-5) : plan.clipfrac[u] * prng.uniform(0.08, 0.2) + prng.normal(0, 4e-5);
      pgLoss = prng.normal(0.0008, 0.006);
    }
    if (zero) pgLoss = 0; // every advantage is 0, and entropy_coef = 0, kl_loss off
    const stepMs = times.actorStartMs + Math.round(((stepId + 1) / N) * times.actorTrain * 1000) - prng.int(40, 160);
    const trainStep = rid * N + stepId;
    const values = buildRow(SAMPLE_UPDATE_SHAPE, {
      "train/loss": pgLoss,
      "train/pg_loss": pgLoss,
      "train/entropy_loss": plan.entropy[u],
      "train/pg_clipfrac": plan.clipfrac[u],
      "train/ppo_kl": ppoKl,
      "train/train_rollout_logprob_abs_diff": plan.logprobGap[u],
      "train/grad_norm": plan.gradNorm[u],
      "train/lr-pg_0": SIM_ARGS.lr,
      "train/global_batch_size": SIM_ARGS.globalBatchSize,
      "train/step": trainStep,
    });
    st.rows.push({ kind: "optimizer-update", rolloutId: rid, trainStep, timeMs: stepMs, values });
  }
  line(st, times.actorEndMs, st.trn, "timer.py:31", `Timer actor_train end (elapsed: ${times.actorTrain.toFixed(1)}s)`);
  line(st, times.trainEndMs, st.trn, "timer.py:31", `Timer train end (elapsed: ${times.trainTime.toFixed(1)}s)`);
  line(st, times.trainEndMs, st.trn, "timer.py:23", "Timer train_wait start");
}

/** Row 3+N, trainer perf: timers in the order they ended since the last reset. Returns its time. */
function trainerPerfRow(st: RoundState, j: number, times: TrainTimes): number {
  const rid = st.plan.rolloutIds[j];
  const totalLens = st.plan.samples[j].map((s) => s.promptLen + s.responseLen);
  const { tokens, logProbs, refLogProbs, actorTrain, trainWait, trainTime } = times;
  const fwdTflopsPerGpu = (1.6e10 * tokens + 2.95e5 * sum(totalLens.map((l) => l * l))) / SIM_ARGS.trainWorldSize / 1e12;
  const p = new RowBuilder();
  if (st.pendingSave !== null) p.float("perf/save_model_time", st.pendingSave);
  p.float("perf/update_weights_time", st.pendingUpdateWeights);
  p.float("perf/data_preprocess_time", times.dataPreprocess);
  p.float("perf/train_wait_time", trainWait);
  p.float("perf/ref_log_probs_time", refLogProbs);
  p.float("perf/log_probs_time", logProbs);
  p.float("perf/actor_train_time", actorTrain);
  p.float("perf/train_time", trainTime);
  p.float("perf/log_probs_tflops", fwdTflopsPerGpu / logProbs);
  p.float("perf/ref_log_probs_tflops", fwdTflopsPerGpu / refLogProbs);
  p.float("perf/actor_train_tflops", (3 * fwdTflopsPerGpu) / actorTrain);
  p.float("perf/actor_train_tok_per_s", tokens / actorTrain);
  p.float("perf/step_time", trainWait + trainTime);
  p.float("perf/wait_time_ratio", trainWait / (trainWait + trainTime));
  p.int("rollout/step", rid);
  const perfMs = times.trainEndMs + st.prng.int(250, 700);
  st.rows.push({ kind: "trainer-perf", rolloutId: rid, trainStep: null, timeMs: perfMs, values: p.values });
  return perfMs;
}

/** Between batches: periodic save, weight sync, start of the next rollout. */
function betweenBatches(st: RoundState, rid: number, perfMs: number, trainEndMs: number): void {
  const { prng } = st;
  let nextMs = perfMs + prng.int(100, 300);
  st.pendingSave = null;
  if (rid % SIM_ARGS.saveInterval === 0) {
    st.pendingSave = prng.uniform(28, 40);
    timerLines(st, st.trn, "save_model", nextMs, st.pendingSave);
    nextMs += Math.round(st.pendingSave * 1000) + prng.int(100, 300);
  }
  st.pendingUpdateWeights = prng.uniform(2.6, 4.2);
  timerLines(st, st.trn, "update_weights", nextMs, st.pendingUpdateWeights);
  nextMs += Math.round(st.pendingUpdateWeights * 1000);
  st.trainEndPrevMs = trainEndMs;
  st.rolloutStartMs = nextMs + prng.int(200, 800);
}

/** All rows and lines of rollout batch j, in the order slime writes them. */
function simulateBatch(st: RoundState, j: number): void {
  const { rolloutEndMs, managerRowMs } = managerRow(st, j);
  rolloutLines(st, j, rolloutEndMs);
  const times = trainTimes(st, j, managerRowMs);
  trainerRolloutRow(st, j, times);
  updateRows(st, j, times);
  const perfMs = trainerPerfRow(st, j, times);
  betweenBatches(st, st.plan.rolloutIds[j], perfMs, times.trainEndMs);
}

// ---------------------------------------------------------------------------------------------
// Rounds and the whole simulation

/** R2's raylet warning about a nearly full /tmp, 2.3 s after the row 37 rows before the end. */
function rayletLine(st: RoundState, meta: RoundMeta): void {
  const at = st.rows[st.rows.length - 37].timeMs + 2_345;
  const stamp = new Date(at).toISOString().replace("T", " ").slice(0, 23).replace(".", ",");
  const pid = meta.pidManager - 611;
  line(
    st,
    at,
    "",
    null,
    `(raylet) [${stamp} E ${pid} ${pid}] (raylet) file_system_monitor.cc:116: /tmp/ray/session_${compactStamp(meta.startMs)} is over 95% full, available space: 21.3 GB; capacity: 450.0 GB. Object creation will fail if spilling is required.`,
  );
}

/** The run config of a round (what wandb.init gets), with slime's argument names. */
function sampleRunConfig(rolloutIds: number[]): Record<string, unknown> {
  return {
    rollout_batch_size: SIM_ARGS.rolloutBatchSize,
    n_samples_per_prompt: SIM_ARGS.nSamplesPerPrompt,
    global_batch_size: SIM_ARGS.globalBatchSize,
    start_rollout_id: rolloutIds[0],
    num_rollout: rolloutIds[rolloutIds.length - 1] + 1,
    advantage_estimator: "grpo",
    rollout_max_response_len: SIM_ARGS.rolloutMaxResponseLen,
    lr: SIM_ARGS.lr,
    eps_clip: SIM_ARGS.epsClip,
    entropy_coef: 0,
    use_kl_loss: false,
    dynamic_sampling_filter_path: "slime.rollout.filter_hub.dynamic_sampling_filters.check_reward_nonzero_std_with_fallback",
    save_interval: SIM_ARGS.saveInterval,
    simulated: true,
  };
}

/** One round launched at `launchMs`: its run, and when the next round launches. */
function simulateRound(seed: number, r: number, target: RoundTarget, launchMs: number): { run: SimRun; nextLaunchMs: number } {
  const prng = createPrng(deriveSeed(seed, `round-${r}`));
  const plan = planRound(prng, r, target);
  const { st, meta, trainerReadyMs } = startRound(prng, plan, seed, r, launchMs);
  launchLines(st, meta, trainerReadyMs);
  plan.rolloutIds.forEach((_, j) => simulateBatch(st, j));
  if (r === 2) rayletLine(st, meta);
  const endMs = st.rolloutStartMs + prng.int(30_000, 60_000);
  line(st, endMs - 4_000, "", null, "wandb: Synced 5 W&B file(s), 0 media file(s), 0 artifact file(s) and 0 other file(s)");
  const run: SimRun = {
    runId: meta.runId,
    round: target.round,
    displayName: meta.displayName,
    config: sampleRunConfig(plan.rolloutIds),
    initMs: meta.initMs,
    startMs: meta.startMs,
    endMs,
    pids: { rolloutManager: meta.pidManager, trainer: meta.pidTrainer },
    rows: st.rows,
    logLines: st.logLines,
  };
  return { run, nextLaunchMs: endMs + prng.int(4 * 60_000, 12 * 60_000) };
}

/** Simulates the four rounds. Pure and deterministic in `seed`. */
export function simulateSlime(opts: SimulateOptions = {}): Simulation {
  const seed = opts.seed ?? DEFAULT_SEED;
  let launchMs = opts.startMs ?? Date.UTC(2026, 0, 12, 8, 30, 0);
  const runs: SimRun[] = [];
  ROUND_TARGETS.forEach((target, r) => {
    const { run, nextLaunchMs } = simulateRound(seed, r, target, launchMs);
    runs.push(run);
    launchMs = nextLaunchMs;
  });
  return { seed, entity: opts.entity ?? SAMPLE_ENTITY, project: opts.project ?? SAMPLE_PROJECT, runs };
}
