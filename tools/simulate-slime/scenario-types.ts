/**
 * The rows a scenario (scenario.ts) generates and the flags of its runs: shared by the generator and
 * its ground truth (scenario-truth.ts), which would otherwise import each other.
 */
import type { SlimeVersionName } from "./profiles";
import type { LoggedValue } from "./slime-rows";

/** Kinds of scenario rows (the writer and site that produced them). */
export type ScenarioRowKind =
  | "rollout-manager"
  | "trainer-rollout"
  | "multi-turn"
  | "passrate"
  | "optimizer-update"
  | "critic-update"
  | "trainer-perf"
  | "eval";

/** The slime process that wrote a row. */
export type Writer = "manager" | "actor" | "critic";

/** One `wandb.log` call of a scenario. */
export interface ScenarioRow {
  kind: ScenarioRowKind;
  writer: Writer;
  /** The true rollout id (what the local log prints in `perf N:` / `rollout N:` / `eval N:`). */
  rolloutId: number;
  /** `train/step` of step rows, else null. */
  trainStep: number | null;
  /** 0 for the first process of the run, 1 after a resume in place. */
  segment: number;
  timeMs: number;
  /** The logged dict in slime's order, step key last. */
  values: LoggedValue[];
  /** `_step` in the run's history (filled when the run's rows are ordered). */
  historyStep: number;
}

/** Flags in effect for one run (also written to its config). */
export interface ScenarioFlags {
  profile: SlimeVersionName;
  alwaysUseTrainStep: boolean;
  critic: boolean;
  numCriticOnlySteps: number;
  async: boolean;
  evalInterval: number | null;
  skipEvalBeforeTrain: boolean;
  preTrainEvalOnlyAtZero: boolean;
  klCoef: number;
  colocate: boolean;
  interleaveWriters: boolean;
}

/** A generated rollout of one segment, before ordering (scenario-truth.ts reads these). */
export interface GenRollout {
  roundIndex: number;
  segment: number;
  rolloutId: number;
  crashed: boolean;
  criticOnly: boolean;
  manager: ScenarioRow;
  trainer: ScenarioRow[];
  actorSteps: ScenarioRow[];
  criticSteps: ScenarioRow[];
}

/** A generated eval. */
export interface GenEval {
  roundIndex: number;
  segment: number;
  rolloutId: number;
  kind: "pre-train" | "periodic";
  row: ScenarioRow;
}
