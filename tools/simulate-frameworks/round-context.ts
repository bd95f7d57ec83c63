/**
 * What a framework's row generator needs for one round, and small value helpers shared by the
 * generators (verl.ts, openrlhf.ts, trl.ts).
 */
import type { Prng } from "../simulate-slime/prng";
import type { Anomaly, FwRow, FwValue } from "./types";

/** Options after defaults (simulate.ts `resolveOptions`). */
export interface ResolvedOptions {
  seed: number;
  testFreq: number;
  valBeforeTrain: boolean;
  refPolicy: boolean;
  saveFreq: number;
  rewardExtraInfo: string[];
  datasets: string[];
  evalSamplesPerPrompt: number;
  extraLogs: string[];
  entropyCoef: number | null;
  samplesTable: boolean;
  evalSteps: number | null;
  loggingSteps: number;
  beta: number;
  rewardFuncs: string[];
  importanceSampling: boolean;
  generation: "vllm" | "transformers";
  numIterations: number;
  finalScalarsInHistory: boolean;
  profiling: boolean;
  stepSync: boolean;
  anomalies: Anomaly[];
}

/** One round to generate. */
export interface RoundContext {
  roundIndex: number;
  /** Step restored from (0 for the first round): training steps are checkpointStep+1 .. lastStep. */
  checkpointStep: number;
  lastStep: number;
  crashed: boolean;
  initMs: number;
  /** Seed of the round: values depend on round and step, so a re-logged step gets new values. */
  seed: number;
  opts: ResolvedOptions;
  /** State carried across rounds by step (TRL's cumulative token count as saved in the checkpoint). */
  carry: Map<number, number>;
}

/** A generated row before `_step` is assigned. */
export type GenRow = Omit<FwRow, "historyStep">;

/** The generated rows of a round plus its summary-only values. */
export interface RoundRows {
  rows: GenRow[];
  summary: Record<string, number>;
}

/** The planted grad-norm value at (round, step), or null. */
export function anomalyAt(ctx: RoundContext, step: number): "nan" | "zero" | null {
  for (const a of ctx.opts.anomalies) if (a.round === ctx.roundIndex && a.step === step) return a.kind;
  return null;
}

/** A grad norm with the planted anomaly applied. */
export function gradNorm(ctx: RoundContext, step: number, value: number): number {
  const a = anomalyAt(ctx, step);
  return a === "nan" ? NaN : a === "zero" ? 0 : value;
}

/** `base * (1 + rel * N(0,1))`, never below `min`. */
export function noisy(p: Prng, base: number, rel: number, min = 0): number {
  return Math.max(min, base * (1 + rel * p.normal()));
}

/** Rounds to `digits` decimals (frameworks log float32-ish values; short numbers keep files small). */
export function round(x: number, digits = 6): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

/** A list of values from [key, value] pairs, keeping order. */
export function values(pairs: Array<[string, FwValue["value"]]>): FwValue[] {
  return pairs.map(([key, value]) => ({ key, value }));
}

/** Fraction of the run done at `step` (drives trends: entropy falls, length and reward rise). */
export function progress(step: number, horizon = 100): number {
  return Math.min(1, step / horizon);
}
