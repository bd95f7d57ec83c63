/**
 * Types of the framework simulator (simulate.ts): options, the `wandb.log` calls it makes and the
 * runs it returns. Key names, step axes and restart behaviour per framework follow the upstream
 * sources cited in each generator (verl.ts, openrlhf.ts, trl.ts).
 */
import type { ProfileName } from "../../lib/registry/profiles";
import type { HistoryRow } from "../../lib/types";

/** The frameworks simulated: registry profile names (lib/registry/profiles.ts) that have a generator here. */
export type Framework = Extract<ProfileName, "verl" | "openrlhf" | "trl">;

/** One round: one W&B run. */
export interface FrameworkRound {
  /** Training steps the round logs after its checkpoint (TRL: optimizer steps, logged every `loggingSteps`). */
  steps: number;
  /** "crashed": the run stops after its last step (no final validation, no TRL end-of-training row). */
  state?: "finished" | "crashed";
}

/** A planted value: NaN or exactly 0 in the framework's grad-norm key at one step of one round. */
export interface Anomaly {
  round: number;
  step: number;
  kind: "nan" | "zero";
}

/** Options of `simulateFramework`. Defaults are per framework (see `resolveOptions`). */
export interface FrameworkOptions {
  framework: Framework;
  seed?: number;
  /** Rounds in order; default two rounds of 12 steps (TRL: 60 steps). */
  rounds?: FrameworkRound[];
  /** A round after the first resumes from a checkpoint this many steps before the previous round's last step; default 0. */
  restartOverlap?: number;
  /** NaN / zero grad norms; default a NaN at two steps and a 0 at one step of round 0. */
  anomalies?: Anomaly[];
  entity?: string;
  project?: string;
  startMs?: number;
  /** verl `trainer.test_freq`: val keys merged into every test_freq-th step row (and the last step of a finished run); default 5. */
  testFreq?: number;
  /** verl `trainer.val_before_train`; default true. */
  valBeforeTrain?: boolean;
  /** verl reference policy (`use_kl_loss`): `actor/kl_loss`, `actor/kl_coef`, `timing_s/ref`; default true. */
  refPolicy?: boolean;
  /** verl `trainer.save_freq`: `timing_s/save_checkpoint` in every save_freq-th step row and the last step of a finished run; default 0 = no checkpoints. */
  saveFreq?: number;
  /**
   * verl: the keys of the dict the reward function returns (its `reward_extra_info`, e.g. ["score", "acc"]);
   * each gets its val keys after `reward`'s, and `acc`, when present, is the val-core variable. Default []
   * (the reward function returns a float: `reward` only).
   */
  rewardExtraInfo?: string[];
  /** Validation / eval data sets (verl val, OpenRLHF and TRL eval); default ["gsm8k"]. */
  datasets?: string[];
  /** OpenRLHF `--eval.n_samples_per_prompt`: eval keys `eval_<ds>_pass<n>` (n > 1) and `eval_<ds>_pass1`; default 4 (OpenRLHF's). */
  evalSamplesPerPrompt?: number;
  /** OpenRLHF: the `extra_logs` keys the reward function returns, logged as `train/<key>`; default []. */
  extraLogs?: string[];
  /** OpenRLHF `--actor.entropy_coef`; null (default) = not set, `train/entropy_loss` absent. */
  entropyCoef?: number | null;
  /**
   * OpenRLHF: a samples-table `wandb.log` (`train/generated_samples`) as the first call of each step, before
   * the metrics row; OpenRLHF 0.11.2 logs it at every step. Default false (fewer rows).
   */
  samplesTable?: boolean;
  /** OpenRLHF / TRL eval every k steps; default 5 (OpenRLHF), null = none (TRL). */
  evalSteps?: number | null;
  /** TRL `logging_steps`; default 10. */
  loggingSteps?: number;
  /** TRL `beta` (KL to the reference); 0 (default) = `train/kl` absent. */
  beta?: number;
  /** TRL reward function names (`train/rewards/<fn>/mean|std`); default ["accuracy_reward", "format_reward"]. */
  rewardFuncs?: string[];
  /** TRL vLLM importance-sampling correction (`train/sampling/*`); default true. */
  importanceSampling?: boolean;
  /**
   * TRL generation backend, which names the profiling blocks: "vllm" (default: `sync_weights`,
   * `vLLM.generate`; from source, no real vLLM run here) or "transformers" (`transformers.generate`;
   * checked against real TRL 1.16 runs, test/simulate-frameworks/real-traits-trl.test.ts).
   */
  generation?: "vllm" | "transformers";
  /**
   * TRL `num_iterations`: optimizer steps per generation; default 1. A step that reuses the last
   * generation logs no completion, reward or num_tokens keys and profiles no generation blocks.
   */
  numIterations?: number;
  /**
   * TRL: the end-of-training scalars (`train_runtime`, ...) go into the history row as `train/train_runtime`
   * etc. Default false: transformers' WandbCallback writes them to the run summary only, and the final
   * history row holds `train/epoch` and `train/global_step`.
   */
  finalScalarsInHistory?: boolean;
  /**
   * TRL: `profiling/Time taken: GRPOTrainer.<block>` rows, one `wandb.log` per profiled block per
   * optimizer step, as TRL logs them whenever it reports to W&B; default false (fewer rows).
   */
  profiling?: boolean;
  /**
   * OpenRLHF and TRL declare `define_metric(glob, step_metric=..., step_sync=True)`: the Python SDK then
   * inserts the step metric's last logged value (0 before any) into a covered row that lacks it
   * (OpenRLHF's samples-table row gets the previous step's `train/global_step`, its eval rows
   * `eval/epoch` 0; TRL's profiling rows `train/global_step`). true = the simulator adds those values;
   * default false = the rows as the JS SDK logs them (it has no define_metric).
   */
  stepSync?: boolean;
}

/** A non-numeric logged value (OpenRLHF's samples table as the SDK serialises a wandb.Table). */
export interface TableValue {
  _type: "table-file";
  ncols: number;
  nrows: number;
  path: string;
}

/** One logged value, in the order the framework puts it in the dict. */
export interface FwValue {
  key: string;
  value: number | TableValue;
}

/** What a row is. */
export type FwRowKind = "train" | "val" | "eval" | "samples" | "final" | "profiling";

/** One `wandb.log` call. */
export interface FwRow {
  kind: FwRowKind;
  /** The framework step of the row (verl global step, OpenRLHF / TRL `train/global_step`, eval: its global step). */
  step: number;
  /** `step=` passed to wandb.log (verl), else null. */
  explicitStep: number | null;
  /** Wall time of the call, epoch ms (becomes `_timestamp`). */
  timeMs: number;
  values: FwValue[];
  /** `_step` of the row in its run. */
  historyStep: number;
}

/** One simulated run (round). */
export interface FwRun {
  runId: string;
  round: string;
  state: "finished" | "crashed";
  /** Step the run resumed from (its rows re-log steps after it); null for the first round. */
  checkpointStep: number | null;
  /** First and last training step of the run. */
  firstStep: number;
  lastStep: number;
  /** `wandb.init` time, epoch ms (the SDK's `_runtime` counts from here). */
  initMs: number;
  config: Record<string, unknown>;
  /** Values the framework writes to the run summary only (TRL end-of-training scalars), else empty. */
  summary: Record<string, number>;
  /** The `wandb.log` calls in order. */
  rows: FwRow[];
  /** The frozen history rows: numeric keys only plus `_step`, `_runtime`, `_timestamp`. */
  history: HistoryRow[];
}

/** A simulation. */
export interface FrameworkSimulation {
  framework: Framework;
  seed: number;
  entity: string;
  project: string;
  runs: FwRun[];
  truth: FrameworkTruth;
}

// The ground truth of a simulation, computed by truth.ts.
/** Mean of one key over a run's owned training rows that logged it. */
export interface KeyMean {
  /** Mean of the non-NaN values; null when there are none. */
  mean: number | null;
  /** Values averaged (NaN excluded). */
  n: number;
  /** NaN values left out. */
  nan: number;
}

/** Truth of one run. */
export interface RunTruth {
  runId: string;
  round: string;
  state: "finished" | "crashed";
  checkpointStep: number | null;
  firstStep: number;
  lastStep: number;
  /** Framework steps of the run's training rows, in order. */
  trainingSteps: number[];
  /** Training steps this run owns in the surviving lineage. */
  ownedSteps: number[];
  /** Training steps a later run logged again (this run's rows there do not survive). */
  supersededSteps: number[];
  /** Rows of the run's history (every `wandb.log` call, samples-table rows included). */
  historyRows: number;
  trainingRows: number;
  ownedRows: number;
  /** Key -> mean over the owned training rows. */
  means: Record<string, KeyMean>;
}

/** Truth of a simulation. */
export interface FrameworkTruth {
  framework: Framework;
  stepKey: string;
  meanKeys: string[];
  runs: RunTruth[];
  /** Owned steps of all runs in round order: the surviving lineage. */
  lineageSteps: number[];
}
