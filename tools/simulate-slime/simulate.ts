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
import type { PyValueKind } from "./python-repr";

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

/** One logged key/value with the Python type slime logs it as (decides the local-log repr). */
export interface LoggedValue {
  key: string;
  value: number;
  kind: PyValueKind;
}

/** Which slime writer produced a row. */
export type SimRowKind = "rollout-manager" | "trainer-rollout" | "optimizer-update" | "trainer-perf";

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

/** Row under construction: keeps slime's key order and Python value types. */
class RowValues {
  readonly values: LoggedValue[] = [];
  float(key: string, value: number): this {
    this.values.push({ key, value, kind: "float" });
    return this;
  }
  int(key: string, value: number): this {
    if (!Number.isInteger(value)) throw new Error(`${key}: ${value} is not an integer`);
    this.values.push({ key, value, kind: "int" });
    return this;
  }
  np(key: string, value: number): this {
    this.values.push({ key, value, kind: "np.float64" });
    return this;
  }
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

/** Simulates the four rounds. Pure and deterministic in `seed`. */
export function simulateSlime(opts: SimulateOptions = {}): Simulation {
  const seed = opts.seed ?? DEFAULT_SEED;
  const entity = opts.entity ?? SAMPLE_ENTITY;
  const project = opts.project ?? SAMPLE_PROJECT;
  let launchMs = opts.startMs ?? Date.UTC(2026, 0, 12, 8, 30, 0);
  const zeroGrad = new Set(ZERO_GRAD_NORM_UPDATES);
  const N = UPDATES_PER_ROLLOUT;
  const r0 = SIM_ARGS.firstRolloutId;
  const perRound = SIM_ARGS.rolloutsPerRound;
  const samplesPerBatch = SIM_ARGS.rolloutBatchSize * SIM_ARGS.nSamplesPerPrompt;

  const runs: SimRun[] = [];
  ROUND_TARGETS.forEach((target: RoundTarget, r: number) => {
    const prng = createPrng(deriveSeed(seed, `round-${r}`));
    const shape = ROUND_SHAPES[r];
    const rolloutIds = Array.from({ length: perRound }, (_, j) => r0 + r * perRound + j);
    const isZeroGrad = (rid: number, stepId: number) => zeroGrad.has(rid * N + stepId - N * r0 + 1);

    // --- sample-level structure of every batch
    const groups = rolloutIds.map((rid) =>
      drawGroups(
        prng.fork(`groups-${rid}`),
        shape.successRate,
        Array.from({ length: N }, (_, h) => isZeroGrad(rid, h)),
      ),
    );
    const truncTotal = Math.round(target.truncatedFraction * perRound * samplesPerBatch);
    const truncWeights = rolloutIds.map(() => Math.exp(prng.normal(0, 0.35)));
    const truncated = allocateInteger(
      truncTotal,
      truncWeights,
      groups.map((g) => Math.min(g.failures, 24)),
    );

    // --- rollout-level calibrated series
    const lenNoise = arNoise(prng, perRound, 16, 0.5);
    const lenDrift = ramp(perRound, prng.normal(0, 8), prng.normal(0, 8));
    const respMeanTarget = shiftToMean(
      lenNoise.map((e, j) => target.responseLen + e + lenDrift[j] + 25 * (truncated[j] / samplesPerBatch - target.truncatedFraction)),
      target.responseLen,
    );
    const effectiveSums = respMeanTarget.map((m) => Math.round(m * samplesPerBatch));
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

    // --- update-level calibrated series (index u = 0..39 inside the round)
    const nUpd = perRound * N;
    const updRid = (u: number) => rolloutIds[Math.floor(u / N)];
    const updStep = (u: number) => u % N;
    const zeroU = (u: number) => isZeroGrad(updRid(u), updStep(u));
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

    // --- timeline and rows
    const rows: SimRow[] = [];
    const logLines: SimLogLine[] = [];
    const pidManager = prng.int(1_200_000, 2_900_000);
    const pidTrainer = pidManager + prng.int(300, 900);
    const mgr = `(RolloutManager pid=${pidManager}) `;
    const trn = `(MegatronTrainRayActor pid=${pidTrainer}) `;
    const runId = simulatedRunId(seed, r);
    const displayName = `grpo-sample-${target.round}`;
    const startMs = launchMs;
    const initMs = startMs + prng.int(18_000, 32_000);
    const trainerReadyMs = initMs + prng.int(95_000, 140_000);
    const line = (timeMs: number, prefix: string, source: string | null, text: string) => logLines.push({ timeMs, prefix, source, text });
    const timerLines = (prefix: string, name: string, startAt: number, seconds: number) => {
      line(startAt, prefix, "timer.py:23", `Timer ${name} start`);
      line(startAt + Math.round(seconds * 1000), prefix, "timer.py:31", `Timer ${name} end (elapsed: ${seconds.toFixed(1)}s)`);
    };

    line(
      startMs,
      "",
      "train.py:28",
      `Launching slime GRPO round ${target.round}: start_rollout_id=${rolloutIds[0]}, num_rollout=${rolloutIds[perRound - 1] + 1}`,
    );
    line(startMs + 4_000, "", "placement_group.py:118", `Creating placement group with ${SIM_ARGS.trainWorldSize} GPUs (colocate).`);
    line(initMs - 1_500, "", null, "wandb: Tracking run with wandb version 0.21.0");
    line(initMs - 1_000, "", null, `wandb: Run data is saved locally in /root/slime/wandb/run-${compactStamp(initMs)}-${runId}`);
    line(initMs - 500, "", null, `wandb: Syncing run ${displayName}`);
    line(initMs + 21_000, mgr, "rollout.py:396", "import slime.rollout.sglang_rollout.generate_rollout as generate_rollout function.");
    line(initMs + 21_000, mgr, "rollout.py:397", "import slime.rollout.sglang_rollout.generate_rollout as eval_generate_rollout function.");
    line(
      trainerReadyMs - 30_000,
      trn,
      null,
      "/usr/local/lib/python3.12/dist-packages/megatron/core/tensor_parallel/layers.py:609: UserWarning: async_grad_allreduce is deprecated, not in use anymore and will be removed in a future release. Please use the overlap_grad_reduce option instead.",
    );
    line(trainerReadyMs - 30_000, trn, null, "  warnings.warn(");

    let trainEndPrevMs = trainerReadyMs; // train_wait starts when the actor's init returns
    let pendingUpdateWeights = prng.uniform(9, 13); // the initial weight sync before the first rollout
    let pendingSave: number | null = null;
    let rolloutStartMs = trainerReadyMs + Math.round(pendingUpdateWeights * 1000) + prng.int(15_000, 30_000);
    timerLines(trn, "update_weights", trainerReadyMs + 2_000, pendingUpdateWeights);
    let klBase = 0;

    rolloutIds.forEach((rid, j) => {
      const batch = samples[j];
      const rt = rolloutTime[j];
      const effLens = batch.map((s) => s.effectiveLen);
      const respLens = batch.map((s) => s.responseLen);
      const totalLens = batch.map((s) => s.promptLen + s.responseLen);
      const sortedEff = effLens.slice().sort((a, b) => a - b);
      const mid = sortedEff.length / 2;

      // Row 1: rollout manager (rollout extra metrics first, then sample metrics, then perf).
      const rolloutEndMs = rolloutStartMs + Math.round(rt * 1000);
      const m = new RowValues();
      const dropFail = prng.binomial(4, 0.3 * (1 - shape.successRate));
      const dropPass = prng.binomial(3, 0.35 * shape.successRate);
      if (dropFail > 0) m.int("rollout/dynamic_filter/drop_zero_std_0", dropFail);
      if (dropPass > 0) m.int("rollout/dynamic_filter/drop_zero_std_1", dropPass);
      m.float("rollout/response_len/mean", sum(effLens) / effLens.length);
      m.float("rollout/response_len/median", (sortedEff[mid - 1] + sortedEff[mid]) / 2);
      m.int("rollout/response_len/max", sortedEff[sortedEff.length - 1]);
      m.int("rollout/response_len/min", sortedEff[0]);
      // zero_std counts by reward value, in order of first appearance, only for values present.
      const zeroStd = new Map<number, number>();
      groups[j].successes.forEach((s) => {
        if (s === 0 || s === SIM_ARGS.nSamplesPerPrompt) {
          const rv = s === 0 ? 0 : 1;
          zeroStd.set(rv, (zeroStd.get(rv) ?? 0) + 1);
        }
      });
      for (const [rv, count] of zeroStd) m.int(`rollout/zero_std/count_${rv}`, count);
      const repetition = truncated[j] > 0 && prng.chance(0.12) ? 1 : 0;
      m.np("rollout/repetition_frac", repetition / batch.length);
      m.np("rollout/truncated_ratio", batch.filter((s) => s.truncated).length / batch.length);
      m.float("perf/rollout_time", rt);
      m.float("perf/tokens_per_gpu_per_sec", sum(respLens) / rt / SIM_ARGS.rolloutNumGpus);
      m.float("perf/longest_sample_tokens_per_sec", Math.max(...respLens) / rt);
      m.float("perf/effective_tokens_per_gpu_per_sec", sum(effLens) / rt / SIM_ARGS.rolloutNumGpus);
      m.float("perf/longest_effective_sample_tokens_per_sec", Math.max(...effLens) / rt);
      m.int("rollout/step", rid);
      const managerRowMs = rolloutEndMs + prng.int(60, 400);
      rows.push({ kind: "rollout-manager", rolloutId: rid, trainStep: null, timeMs: managerRowMs, values: m.values });
      const first = batch[0];
      line(
        rolloutStartMs + prng.int(8_000, 40_000),
        mgr,
        "sglang_rollout.py:438",
        `First rollout sample: ['<|im_start|>system\\nYou are a shopping assistant. Use the tools to find the product the user asks for.<|im_end|>\\n...'], label: sku-${prng.int(10000, 99999)}, reward: ${first.reward}`,
      );
      line(
        rolloutEndMs - prng.int(200, 900),
        mgr,
        "sglang_rollout.py:453",
        `Finish rollout: ['...'], label: sku-${prng.int(10000, 99999)}, reward: ${batch[batch.length - 1].reward}`,
      );

      // Trainer timers of this batch.
      const dataPreprocess = prng.uniform(0.6, 1.8);
      const tokens = sum(totalLens);
      const refLogProbs = tokens / prng.uniform(40_000, 46_000);
      const logProbs = tokens / prng.uniform(40_500, 46_500);
      const actorTrain = tokens / tokPerSTarget[j];
      const overheadBefore = prng.uniform(0.5, 1.3);
      const overheadAfter = prng.uniform(0.2, 0.6);
      const preprocessStartMs = managerRowMs + prng.int(300, 900);
      const trainStartMs = preprocessStartMs + Math.round(dataPreprocess * 1000) + prng.int(20, 80);
      const trainWait = (trainStartMs - trainEndPrevMs) / 1000 + prng.uniform(-4e-4, 4e-4);
      const refStartMs = trainStartMs + prng.int(100, 300);
      const lpStartMs = refStartMs + Math.round(refLogProbs * 1000) + prng.int(300, 700);
      const rolloutRowMs = lpStartMs + Math.round(logProbs * 1000) + Math.round(overheadBefore * 1000);
      const actorStartMs = rolloutRowMs + prng.int(80, 250);
      const actorEndMs = actorStartMs + Math.round(actorTrain * 1000);
      const trainEndMs = actorEndMs + Math.round(overheadAfter * 1000);
      const trainTime = (trainEndMs - trainStartMs) / 1000 + prng.uniform(-4e-4, 4e-4);
      timerLines(trn, "data_preprocess", preprocessStartMs, dataPreprocess);
      line(trainStartMs, trn, "timer.py:31", `Timer train_wait end (elapsed: ${trainWait.toFixed(1)}s)`);
      line(trainStartMs, trn, "timer.py:23", "Timer train start");
      timerLines(trn, "ref_log_probs", refStartMs, refLogProbs);
      timerLines(trn, "log_probs", lpStartMs, logProbs);

      // Row 2: trainer rollout means.
      const entBatch = mean(entropy.slice(j * N, j * N + N));
      klBase = Math.max(0.0003, 0.0011 + 0.00043 * (rid - r0) + prng.normal(0, 0.0006));
      const logProbMean = -(0.74 * entBatch) + prng.normal(0, 0.002);
      let advAcc = 0;
      for (const s of batch) advAcc = f32(advAcc + s.advantage);
      const t = new RowValues();
      t.float("rollout/response_lengths", sum(respLens) / batch.length);
      t.float("rollout/rewards", sum(batch.map((s) => s.advantage)) / batch.length);
      t.float("rollout/raw_reward", sum(batch.map((s) => s.reward)) / batch.length);
      t.float("rollout/truncated", batch.filter((s) => s.truncated).length / batch.length);
      t.float("rollout/total_lengths", tokens / batch.length);
      t.float("rollout/rollout_log_probs", logProbMean + prng.normal(0, 0.0012));
      t.float("rollout/ref_log_probs", logProbMean - klBase);
      t.float("rollout/log_probs", logProbMean);
      t.float("rollout/kl", NAN_KL_ROLLOUTS.has(rid) ? NaN : klBase * prng.uniform(0.97, 1.05));
      t.float("rollout/advantages", advAcc / batch.length);
      t.float("rollout/returns", advAcc / batch.length);
      t.int("rollout/step", rid);
      rows.push({ kind: "trainer-rollout", rolloutId: rid, trainStep: null, timeMs: rolloutRowMs, values: t.values });

      // Rows 3..2+N: optimizer updates.
      line(actorStartMs, trn, "timer.py:23", "Timer actor_train start");
      for (let stepId = 0; stepId < N; stepId++) {
        const u = j * N + stepId;
        const zero = zeroU(u);
        let pgLoss: number;
        let ppoKl: number;
        if (stepId === 0) {
          // Same weights as the log-prob pass: ratio 1, so ppo_kl is 0 up to numerical noise.
          ppoKl = prng.chance(0.7) ? 0 : prng.int(-6, 6) * 2 ** -33 || 2 ** -34;
          pgLoss = prng.normal(0, 0.004);
        } else {
          ppoKl = zero ? prng.normal(1.4e-4, 5e-5) : clipfrac[u] * prng.uniform(0.08, 0.2) + prng.normal(0, 4e-5);
          pgLoss = prng.normal(0.0008, 0.006);
        }
        if (zero) pgLoss = 0; // every advantage is 0, and entropy_coef = 0, kl_loss off
        const stepMs = actorStartMs + Math.round(((stepId + 1) / N) * actorTrain * 1000) - prng.int(40, 160);
        const trainStep = rid * N + stepId;
        const up = new RowValues();
        up.float("train/loss", pgLoss);
        up.float("train/pg_loss", pgLoss);
        up.float("train/entropy_loss", entropy[u]);
        up.float("train/pg_clipfrac", clipfrac[u]);
        up.float("train/ppo_kl", ppoKl);
        up.float("train/train_rollout_logprob_abs_diff", logprobGap[u]);
        up.float("train/grad_norm", gradNorm[u]);
        up.float("train/lr-pg_0", SIM_ARGS.lr);
        up.int("train/global_batch_size", SIM_ARGS.globalBatchSize);
        up.int("train/step", trainStep);
        rows.push({ kind: "optimizer-update", rolloutId: rid, trainStep, timeMs: stepMs, values: up.values });
      }
      line(actorEndMs, trn, "timer.py:31", `Timer actor_train end (elapsed: ${actorTrain.toFixed(1)}s)`);
      line(trainEndMs, trn, "timer.py:31", `Timer train end (elapsed: ${trainTime.toFixed(1)}s)`);
      line(trainEndMs, trn, "timer.py:23", "Timer train_wait start");

      // Row 3+N: trainer perf (timers in the order they ended since the last reset).
      const fwdTflopsPerGpu = (1.6e10 * tokens + 2.95e5 * sum(totalLens.map((l) => l * l))) / SIM_ARGS.trainWorldSize / 1e12;
      const p = new RowValues();
      if (pendingSave !== null) p.float("perf/save_model_time", pendingSave);
      p.float("perf/update_weights_time", pendingUpdateWeights);
      p.float("perf/data_preprocess_time", dataPreprocess);
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
      const perfMs = trainEndMs + prng.int(250, 700);
      rows.push({ kind: "trainer-perf", rolloutId: rid, trainStep: null, timeMs: perfMs, values: p.values });

      // Between batches: periodic save, weight sync, next rollout.
      let nextMs = perfMs + prng.int(100, 300);
      pendingSave = null;
      if (rid % SIM_ARGS.saveInterval === 0) {
        pendingSave = prng.uniform(28, 40);
        timerLines(trn, "save_model", nextMs, pendingSave);
        nextMs += Math.round(pendingSave * 1000) + prng.int(100, 300);
      }
      pendingUpdateWeights = prng.uniform(2.6, 4.2);
      timerLines(trn, "update_weights", nextMs, pendingUpdateWeights);
      nextMs += Math.round(pendingUpdateWeights * 1000);
      trainEndPrevMs = trainEndMs;
      rolloutStartMs = nextMs + prng.int(200, 800);
    });

    if (r === 2) {
      const at = rows[rows.length - 37].timeMs + 2_345;
      const stamp = new Date(at).toISOString().replace("T", " ").slice(0, 23).replace(".", ",");
      line(
        at,
        "",
        null,
        `(raylet) [${stamp} E ${pidManager - 611} ${pidManager - 611}] (raylet) file_system_monitor.cc:116: /tmp/ray/session_${compactStamp(startMs)} is over 95% full, available space: 21.3 GB; capacity: 450.0 GB. Object creation will fail if spilling is required.`,
      );
    }
    const endMs = rolloutStartMs + prng.int(30_000, 60_000);
    line(endMs - 4_000, "", null, "wandb: Synced 5 W&B file(s), 0 media file(s), 0 artifact file(s) and 0 other file(s)");

    runs.push({
      runId,
      round: target.round,
      displayName,
      config: {
        rollout_batch_size: SIM_ARGS.rolloutBatchSize,
        n_samples_per_prompt: SIM_ARGS.nSamplesPerPrompt,
        global_batch_size: SIM_ARGS.globalBatchSize,
        start_rollout_id: rolloutIds[0],
        num_rollout: rolloutIds[perRound - 1] + 1,
        advantage_estimator: "grpo",
        rollout_max_response_len: SIM_ARGS.rolloutMaxResponseLen,
        lr: SIM_ARGS.lr,
        eps_clip: SIM_ARGS.epsClip,
        entropy_coef: 0,
        use_kl_loss: false,
        dynamic_sampling_filter_path: "slime.rollout.filter_hub.dynamic_sampling_filters.check_reward_nonzero_std_with_fallback",
        save_interval: SIM_ARGS.saveInterval,
        simulated: true,
      },
      initMs,
      startMs,
      endMs,
      pids: { rolloutManager: pidManager, trainer: pidTrainer },
      rows,
      logLines,
    });
    launchMs = endMs + prng.int(4 * 60_000, 12 * 60_000);
  });
  return { seed, entity, project, runs };
}
