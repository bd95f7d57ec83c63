/**
 * Framework simulator: small verl, OpenRLHF and TRL GRPO histories with each framework's real key
 * names, step axis, val/eval rows and restarts (a new W&B run resuming from a checkpoint `k` steps
 * before the previous run's last step, re-logging those steps with new values). Pure, seeded and in
 * memory: `simulateFramework` returns each run's `wandb.log` calls, its history rows exactly as the
 * frozen archive holds them (numeric keys only: a samples-table row keeps only `_step`, `_runtime`,
 * `_timestamp`), and a ground truth computed from what was generated (truth.ts).
 */
import { parseFrozenRow, serializeFrozenRow } from "../../lib/values/frozen-row";
import { PROFILE_NAMES } from "../../lib/registry/profiles";
import type { HistoryRow } from "../../lib/types";
import { createPrng, deriveSeed } from "../simulate-slime/prng";
import { openrlhfRound } from "./openrlhf";
import type { GenRow, ResolvedOptions, RoundContext, RoundRows } from "./round-context";
import { trlRound } from "./trl";
import { computeFrameworkTruth } from "./truth";
import type { Framework, FrameworkOptions, FrameworkRound, FrameworkSimulation, FwRow, FwRun, FwValue } from "./types";
import { verlRound } from "./verl";

const GENERATORS: Record<Framework, (ctx: RoundContext) => RoundRows> = { verl: verlRound, openrlhf: openrlhfRound, trl: trlRound };

/** The frameworks simulated, in registry order: the profiles with a generator. */
export const FRAMEWORKS: readonly Framework[] = PROFILE_NAMES.filter((n): n is Framework => n in GENERATORS);

/** Default eval interval per framework: OpenRLHF's eval steps; null where the framework's evals follow its own setting. */
const DEFAULT_EVAL_STEPS: Record<Framework, number | null> = { verl: null, openrlhf: 5, trl: null };

/** Default rounds per framework: two rounds (TRL steps are optimizer steps, logged every 10). */
const DEFAULT_ROUNDS: Record<Framework, FrameworkRound[]> = {
  verl: [{ steps: 12 }, { steps: 12 }],
  openrlhf: [{ steps: 12 }, { steps: 12 }],
  trl: [{ steps: 60 }, { steps: 60 }],
};

/** Default planted anomalies: NaN grad norms at two steps and an exact 0 at one, all in round 0. */
const DEFAULT_ANOMALIES: Record<Framework, FrameworkOptions["anomalies"]> = {
  verl: [
    { round: 0, step: 4, kind: "nan" },
    { round: 0, step: 9, kind: "nan" },
    { round: 0, step: 6, kind: "zero" },
  ],
  openrlhf: [
    { round: 0, step: 4, kind: "nan" },
    { round: 0, step: 9, kind: "nan" },
    { round: 0, step: 6, kind: "zero" },
  ],
  trl: [
    { round: 0, step: 20, kind: "nan" },
    { round: 0, step: 40, kind: "nan" },
    { round: 0, step: 30, kind: "zero" },
  ],
};

const isPosInt = (x: unknown) => typeof x === "number" && Number.isInteger(x) && x > 0;
const isNonNegInt = (x: unknown) => typeof x === "number" && Number.isInteger(x) && x >= 0;

/** Checks and completes the options; throws `invalid <option>: <value>`. */
export function resolveOptions(opts: FrameworkOptions): ResolvedOptions & { framework: Framework; rounds: FrameworkRound[]; restartOverlap: number } {
  const bad = (name: string, v: unknown) => new Error(`invalid ${name}: ${JSON.stringify(v)}`);
  if (!opts || !FRAMEWORKS.includes(opts.framework)) throw bad("framework", opts?.framework);
  const fw = opts.framework;
  const rounds = opts.rounds ?? DEFAULT_ROUNDS[fw];
  if (!Array.isArray(rounds) || rounds.length === 0) throw bad("rounds", rounds);
  for (const r of rounds) {
    if (!r || !isPosInt(r.steps) || (r.state !== undefined && r.state !== "finished" && r.state !== "crashed")) throw bad("rounds", r);
  }
  const restartOverlap = opts.restartOverlap ?? 0;
  if (!isNonNegInt(restartOverlap)) throw bad("restartOverlap", restartOverlap);
  const seed = opts.seed ?? 7;
  if (!isNonNegInt(seed)) throw bad("seed", seed);
  const testFreq = opts.testFreq ?? 5;
  if (!isNonNegInt(testFreq)) throw bad("testFreq", testFreq);
  const loggingSteps = opts.loggingSteps ?? 10;
  if (!isPosInt(loggingSteps)) throw bad("loggingSteps", loggingSteps);
  const evalSteps = opts.evalSteps === undefined ? DEFAULT_EVAL_STEPS[fw] : opts.evalSteps;
  if (evalSteps !== null && !isPosInt(evalSteps)) throw bad("evalSteps", evalSteps);
  const datasets = opts.datasets ?? ["gsm8k"];
  if (!Array.isArray(datasets) || datasets.length === 0 || datasets.some((d) => typeof d !== "string" || !/^[A-Za-z0-9_.-]+$/.test(d)))
    throw bad("datasets", datasets);
  const saveFreq = opts.saveFreq ?? 0;
  if (!isNonNegInt(saveFreq)) throw bad("saveFreq", saveFreq);
  const names = (v: unknown) => Array.isArray(v) && v.every((d) => typeof d === "string" && /^[A-Za-z0-9_.-]+$/.test(d)) && new Set(v).size === v.length;
  const rewardExtraInfo = opts.rewardExtraInfo ?? [];
  if (!names(rewardExtraInfo) || rewardExtraInfo.includes("reward")) throw bad("rewardExtraInfo", rewardExtraInfo);
  const evalSamplesPerPrompt = opts.evalSamplesPerPrompt ?? 4;
  if (!isPosInt(evalSamplesPerPrompt)) throw bad("evalSamplesPerPrompt", evalSamplesPerPrompt);
  const extraLogs = opts.extraLogs ?? [];
  if (!names(extraLogs)) throw bad("extraLogs", extraLogs);
  const generation = opts.generation ?? "vllm";
  if (generation !== "vllm" && generation !== "transformers") throw bad("generation", generation);
  const numIterations = opts.numIterations ?? 1;
  if (!isPosInt(numIterations)) throw bad("numIterations", numIterations);
  const rewardFuncs = opts.rewardFuncs ?? ["accuracy_reward", "format_reward"];
  if (!Array.isArray(rewardFuncs) || rewardFuncs.length === 0 || rewardFuncs.some((d) => typeof d !== "string" || !d)) throw bad("rewardFuncs", rewardFuncs);
  const entropyCoef = opts.entropyCoef ?? null;
  if (entropyCoef !== null && !Number.isFinite(entropyCoef)) throw bad("entropyCoef", entropyCoef);
  const beta = opts.beta ?? 0;
  if (!Number.isFinite(beta)) throw bad("beta", beta);
  const anomalies = opts.anomalies ?? DEFAULT_ANOMALIES[fw] ?? [];
  if (!Array.isArray(anomalies) || anomalies.some((a) => !a || !isNonNegInt(a.round) || !isPosInt(a.step) || (a.kind !== "nan" && a.kind !== "zero"))) {
    throw bad("anomalies", anomalies);
  }
  return {
    framework: fw,
    rounds,
    restartOverlap,
    seed,
    testFreq,
    valBeforeTrain: opts.valBeforeTrain ?? true,
    refPolicy: opts.refPolicy ?? true,
    saveFreq,
    rewardExtraInfo,
    datasets,
    evalSamplesPerPrompt,
    extraLogs,
    entropyCoef,
    samplesTable: opts.samplesTable ?? false,
    evalSteps,
    loggingSteps,
    beta,
    rewardFuncs,
    importanceSampling: opts.importanceSampling ?? true,
    generation,
    numIterations,
    finalScalarsInHistory: opts.finalScalarsInHistory ?? false,
    profiling: opts.profiling ?? false,
    stepSync: opts.stepSync ?? false,
    anomalies,
  };
}

/** One `define_metric(glob, step_metric=..., step_sync=True)` of a framework's W&B logger. */
interface StepSyncRule {
  covers: (key: string) => boolean;
  stepMetric: string;
}

/**
 * The step_sync declarations: OpenRLHF's `WandbLogger` ("train/*" -> train/global_step, "eval/*" ->
 * eval/epoch, which it never logs) and transformers' `WandbCallback` ("*" -> train/global_step); verl none.
 */
const STEP_SYNC_RULES: Record<Framework, StepSyncRule[]> = {
  verl: [],
  openrlhf: [
    { covers: (k) => k.startsWith("train/"), stepMetric: "train/global_step" },
    { covers: (k) => k.startsWith("eval/"), stepMetric: "eval/epoch" },
  ],
  trl: [{ covers: () => true, stepMetric: "train/global_step" }],
};

/**
 * The Python SDK's step_sync: a row with a covered key and without the step metric gets the metric's
 * last logged value in the run, 0 before the first (wandb 0.21.0, checked offline: a samples table
 * logged before any `train/global_step` gets 0, an OpenRLHF eval row gets `eval/epoch` 0).
 */
export function applyStepSync(fw: Framework, rows: GenRow[]): GenRow[] {
  const rules = STEP_SYNC_RULES[fw];
  const last = new Map<string, number>();
  return rows.map((row) => {
    const added: FwValue[] = [];
    for (const rule of rules) {
      const own = row.values.find((v) => v.key === rule.stepMetric);
      if (own && typeof own.value === "number") last.set(rule.stepMetric, own.value);
      else if (row.values.some((v) => v.key !== rule.stepMetric && rule.covers(v.key)) && !added.some((v) => v.key === rule.stepMetric)) {
        added.push({ key: rule.stepMetric, value: last.get(rule.stepMetric) ?? 0 });
      }
    }
    return added.length ? { ...row, values: [...row.values, ...added] } : row;
  });
}

/** An 8-character W&B-style run id (lowercase base 36), seeded. */
function runIdFor(seed: number, fw: Framework, i: number): string {
  const p = createPrng(deriveSeed(seed, `run-id:${fw}:${i}`));
  let id = "";
  for (let k = 0; k < 8; k++) id += "abcdefghijklmnopqrstuvwxyz0123456789"[p.int(0, k === 0 ? 25 : 35)];
  return id;
}

/** The frozen form of one logged row: numeric values plus bookkeeping, through the archive's serializer. */
export function frozenRow(row: FwRow, initMs: number): HistoryRow {
  const obj: HistoryRow = { _step: row.historyStep, _runtime: (row.timeMs - initMs) / 1000, _timestamp: row.timeMs / 1000 };
  for (const v of row.values) if (typeof v.value === "number") obj[v.key] = v.value;
  return parseFrozenRow(serializeFrozenRow(obj));
}

/** Simulates the rounds of one framework (see the file comment). */
export function simulateFramework(opts: FrameworkOptions): FrameworkSimulation {
  const r = resolveOptions(opts);
  const fw = r.framework;
  const entity = opts.entity ?? "sim-entity";
  const project = opts.project ?? `${fw}-grpo`;
  let initMs = opts.startMs ?? Date.UTC(2026, 5, 1, 8, 0, 0);
  const carry = new Map<number, number>([[0, 0]]);
  const runs: FwRun[] = [];
  for (let i = 0; i < r.rounds.length; i++) {
    const spec = r.rounds[i];
    const prev = runs[i - 1];
    const checkpointStep = prev ? prev.lastStep - r.restartOverlap : 0;
    if (prev && checkpointStep < (prev.checkpointStep ?? 0))
      throw new Error(`invalid restartOverlap: ${r.restartOverlap} (round ${i}: before round ${i - 1}'s first step)`);
    const crashed = spec.state === "crashed";
    const ctx: RoundContext = {
      roundIndex: i,
      checkpointStep,
      lastStep: checkpointStep + spec.steps,
      crashed,
      initMs,
      seed: deriveSeed(r.seed, `${fw}:round:${i}`),
      opts: r,
      carry,
    };
    const gen = GENERATORS[fw](ctx);
    const genRows = r.stepSync ? applyStepSync(fw, gen.rows) : gen.rows;
    const rows: FwRow[] = genRows.map((g, k) => ({ ...g, historyStep: g.explicitStep ?? k }));
    const runId = runIdFor(r.seed, fw, i);
    runs.push({
      runId,
      round: `R${i}`,
      state: crashed ? "crashed" : "finished",
      checkpointStep: prev ? checkpointStep : null,
      firstStep: checkpointStep + 1,
      lastStep: ctx.lastStep,
      initMs,
      config: { framework: fw, seed: r.seed, round: i, resumeFromStep: prev ? checkpointStep : null },
      summary: gen.summary,
      rows,
      history: rows.map((row) => frozenRow(row, initMs)),
    });
    const lastMs = rows.length ? rows[rows.length - 1].timeMs : initMs;
    initMs = lastMs + 10 * 60_000;
  }
  return { framework: fw, seed: r.seed, entity, project, runs, truth: computeFrameworkTruth(fw, runs) };
}
