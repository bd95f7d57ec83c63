/**
 * TRL GRPOTrainer (huggingface/trl) through the Hugging Face Trainer's WandbCallback:
 * `train/global_step` counts optimizer steps (`define_metric("*", step_metric="train/global_step")`),
 * one row every `logging_steps` (GRPO default 10) with the GRPO metrics averaged over those steps,
 * `eval/*` rows, and a final row of run totals (train_runtime, total_flos, ...). Sources:
 * trl/trainer/grpo_trainer.py, grpo_config.py, transformers integration_utils.py
 * (docs/framework-profiles.md).
 */
import type { ConceptMetric } from "./metric-spec";
import type { ConditionalMeaning, SemanticFlag } from "./semantic-flags";
import type { MismatchSpec } from "./mismatch";
import { asLoggedStackCaption, stepRecordsDescription, type FrameworkProfile } from "./framework-profile";

const perRow = (key: string, is: string, isNot: string): ConceptMetric => ({ key, grain: "rollout", is, isNot });
const AVERAGED = "averaged over the logging_steps optimizer steps of the row";

const GRPO_CONFIG = "trl/trainer/grpo_config.py";
const TRAINING_ARGS = "transformers/training_args.py (GRPOConfig's base)";
const LOSS = "trl 1.16 trl/trainer/grpo_trainer.py _compute_loss";

/** TRL logs its GRPOConfig (a transformers TrainingArguments) as flat entries. */
const TRL_FLAGS: readonly SemanticFlag[] = [
  {
    name: "beta",
    type: "number",
    concepts: ["klToRef"],
    checks: [],
    why: "KL to the reference is computed and logged (train/kl) only when beta != 0",
    source: GRPO_CONFIG,
  },
  {
    name: "num_iterations",
    type: "number",
    concepts: ["clipfrac"],
    checks: [],
    why: "updates per generation: with steps_per_generation and gradient_accumulation_steps it decides whether the old log-probs are the current policy's (clip ratios 0 by construction)",
    source: GRPO_CONFIG,
  },
  {
    name: "steps_per_generation",
    type: "number",
    concepts: ["clipfrac"],
    checks: [],
    why: "optimizer steps one generation feeds (default gradient_accumulation_steps): beyond one optimizer step the policy has moved, so clip ratios are not 0 by construction",
    source: GRPO_CONFIG,
  },
  {
    name: "gradient_accumulation_steps",
    type: "number",
    concepts: ["clipfrac"],
    checks: [],
    why: "micro-batches per optimizer step: generations used within one optimizer step see unchanged weights",
    source: TRAINING_ARGS,
  },
  {
    name: "logging_steps",
    type: "number",
    concepts: [],
    checks: [],
    why: "a row every logging_steps optimizer steps: coverage expects exactly those steps (a value below 1 is a fraction of max_steps)",
    source: TRAINING_ARGS,
  },
  {
    name: "logging_strategy",
    type: { oneOf: ["no", "steps", "epoch"] },
    concepts: [],
    checks: [],
    why: "logging_steps is the rule only with steps",
    source: TRAINING_ARGS,
  },
  { name: "logging_first_step", type: "bool", concepts: [], checks: [], why: "step 1 is logged as well", source: TRAINING_ARGS },
  {
    name: "loss_type",
    type: { oneOf: ["grpo", "dr_grpo", "dapo", "bnpo", "cispo", "sapo", "luspo", "vespo"] },
    concepts: [],
    checks: [],
    why: "how token losses are aggregated: losses of two loss types are not comparable",
    source: GRPO_CONFIG,
  },
  {
    name: "importance_sampling_level",
    type: { oneOf: ["token", "sequence"] },
    concepts: ["clipfrac"],
    checks: [],
    why: "sequence level (GSPO) clips whole sequences: clip ratios count another unit",
    source: GRPO_CONFIG,
  },
  {
    name: "vllm_importance_sampling_correction",
    type: "bool",
    concepts: ["logprobGap"],
    checks: [],
    why: "corrects the loss for the vLLM/trainer mismatch; train/sampling/* is logged with vLLM generation",
    source: GRPO_CONFIG,
  },
  {
    name: "vllm_importance_sampling_mode",
    type: { oneOf: ["token_truncate", "token_mask", "sequence_truncate", "sequence_mask"] },
    concepts: ["logprobGap"],
    checks: [],
    why: "how the importance ratio corrects: truncated or masked, per token or per sequence",
    source: GRPO_CONFIG,
  },
  {
    name: "use_vllm",
    type: "bool",
    concepts: ["logprobGap"],
    checks: [],
    why: "generation by vLLM: only then is there a sampling log-prob to compare",
    source: GRPO_CONFIG,
  },
];

const SAMPLING = "trl/trainer/grpo_trainer.py _generate_and_score_completions";
const WITH_VLLM_IS = "with use_vllm and vllm_importance_sampling_correction (default true)";
const APPLIED =
  "the ratio after the correction: clamped to [clip_min, clip_max] (truncate modes) or set to 0 outside it (mask modes), per token or per sequence (sequence modes: exp of the sequence's summed log-ratio)";

/** TRL 1.16's train/sampling/* keys (grpo_trainer.py): logged only with vLLM generation, so none of the real fixtures (no vLLM) has them. */
const TRL_MISMATCH: MismatchSpec = {
  metrics: {
    absDiff: [
      {
        key: "train/sampling/sampling_logp_difference/mean",
        grain: "rollout",
        is: `mean |old log-prob - vLLM log-prob| over each process's completion tokens (tokens vLLM could not score left out), averaged over processes, then ${AVERAGED}`,
        comparable: true,
        comparability: "the reference estimator; a token mean per process and logged step, averaged",
        when: WITH_VLLM_IS,
        source: SAMPLING,
      },
    ],
    signedGap: { absent: "TRL logs only the absolute difference (mean and max) and the ratio's statistics" },
    k3Kl: { absent: "TRL logs no KL estimate of the vLLM/trainer mismatch" },
    isRatioMean: [
      {
        key: "train/sampling/importance_sampling_ratio/mean",
        grain: "rollout",
        stage: "applied",
        is: `mean of ${APPLIED}, ${AVERAGED}`,
        comparable: false,
        comparability: "the ratio after truncation or mask, not the raw ratio; at sequence level a ratio per sequence, not per token",
        when: WITH_VLLM_IS,
        source: SAMPLING,
      },
    ],
    isRatioAbsDev: { absent: "TRL logs no mean |ratio - 1|" },
    isRatioMax: [
      {
        key: "train/sampling/importance_sampling_ratio/max",
        grain: "rollout",
        stage: "applied",
        is: `largest of ${APPLIED}, over processes; mean of those over the logging interval`,
        comparable: false,
        comparability: "capped by the truncation; a mean of per-step maxima over the logging interval",
        when: WITH_VLLM_IS,
        source: SAMPLING,
      },
    ],
    isRatioMin: [
      {
        key: "train/sampling/importance_sampling_ratio/min",
        grain: "rollout",
        stage: "applied",
        is: `smallest of ${APPLIED}, over processes; mean of those over the logging interval`,
        comparable: false,
        comparability: "0 whenever a mask mode dropped a token; a mean of per-step minima over the logging interval",
        when: WITH_VLLM_IS,
        source: SAMPLING,
      },
    ],
    ess: { absent: "TRL logs no effective sample size of the correction weights" },
    correctedFraction: {
      absent:
        "TRL logs no fraction of tokens truncated or masked (how many ratios fall outside [0.9, 1.1], as in huggingface/trl#6789, needs the per-token ratios, which are not in the history)",
    },
  },
  lookAlikes: [
    {
      key: "train/sampling/sampling_logp_difference/max",
      is: "the largest |old - vLLM log-prob| of a step (over processes): a batch extreme, averaged over the logging interval; it grows with the number of tokens",
    },
  ],
};

/** Sequence-level importance sampling (GSPO) and the settings under which the ratio is 1 by construction. */
const TRL_MEANINGS: readonly ConditionalMeaning[] = [
  {
    when: { version: { package: "trl", below: "0.17.0" } },
    concept: {
      id: "clipfrac",
      is: "TRL before 0.17 logs no train/clip_ratio/region_mean (a run that logs it is 0.17 or later); its train/clip_ratio counted the tokens whose unclipped term is the smaller one, where the clip does not bind",
      isNot: "train/clip_ratio of those versions is never read as the clipped fraction",
    },
    evidence: "huggingface/trl#3144; fixed by #3145 and split into low/high/region by #3289, both first released in 0.17.0",
  },
  {
    when: { flag: "importance_sampling_level", equals: "sequence" },
    concept: {
      id: "clipfrac",
      is: `fraction of completions (sequences, not tokens) whose sequence-level ratio exp(mean token log-ratio) is in the clipped region (GSPO), ${AVERAGED}`,
      isNot: "not a fraction of tokens: not comparable with token-level runs (importance_sampling_level = token)",
    },
    evidence: `${LOSS}: :3086-3088 one log-weight per sequence; :3259-3263 global_masked_mean counts one value per sequence (x.shape[1] == 1); :3274-3279 clip_ratio/*`,
  },
  {
    when: {
      rule: {
        flags: ["gradient_accumulation_steps", "steps_per_generation", "num_iterations", "use_vllm", "vllm_importance_sampling_correction"],
        text: "gradient_accumulation_steps is a multiple of steps_per_generation x num_iterations (and no vLLM importance-sampling correction)",
        test: (v) =>
          ratioIsOne(
            v.gradient_accumulation_steps,
            v.steps_per_generation,
            v.num_iterations,
            v.use_vllm === true && v.vllm_importance_sampling_correction !== false,
          ),
      },
    },
    concept: {
      id: "clipfrac",
      is: "0 by construction: each generation is used within one optimizer step, so TRL takes the current log-probs as the old ones (old_per_token_logps = None) and every policy ratio is exactly 1",
      isNot:
        "not a sign of small policy steps: nothing can be clipped; not comparable with runs where one generation feeds several optimizer steps (steps_per_generation or num_iterations > 1)",
    },
    evidence:
      "trl 1.16 trl/trainer/grpo_trainer.py _generate_and_score_completions :2642-2657 (old_per_token_logps only when gradient_accumulation_steps % (steps_per_generation * num_iterations) != 0 or vLLM IS correction); _compute_loss :3065-3066",
  },
];

/** Whether TRL's old log-probs are the current policy's (grpo_trainer.py:2643): every ratio is then 1. */
function ratioIsOne(accumulation: unknown, perGeneration: unknown, iterations: unknown, vllmCorrection: boolean): boolean {
  if (typeof accumulation !== "number" || typeof perGeneration !== "number" || typeof iterations !== "number" || perGeneration * iterations === 0) return false;
  return accumulation % (perGeneration * iterations) === 0 && !vllmCorrection;
}

/** The TRL GRPOTrainer profile. */
export const TRL_PROFILE: FrameworkProfile<"trl"> = {
  name: "trl",
  label: "TRL GRPOTrainer",
  signature: ["train/completions/", "train/clip_ratio/", "train/num_tokens", "train/frac_reward_zero_std", "train/rewards/"],
  axis: {
    kind: "step",
    stepKey: "train/global_step",
    evalPrefixes: ["eval/"],
    stepKeys: ["train/global_step", "train/epoch"],
    summaryKeys: ["train/train_runtime", "train/total_flos", "train/train_loss", "train/train_samples_per_second", "train/train_steps_per_second"],
    // trl/extras/profiling.py logs each timed block as its own wandb.log call; transformers'
    // define_metric(step_sync=True) stamps the last train/global_step on it, so these rows look like
    // training rows of an earlier step unless classified by their keys.
    ownRows: [{ prefix: "profiling/", what: "TRL's profiling timers (profiling/Time taken: <Trainer>.<block>, one row per timed call)" }],
    interval: {
      steps: "logging_steps",
      strategy: { flag: "logging_strategy", equals: "steps" },
      firstStep: "logging_first_step",
      lastPartial:
        "the steps after the last multiple of logging_steps are logged once, at the run's last step, by the final log (GRPOTrainer.log merges the metrics still pending into the run-totals log)",
      source:
        "transformers 5.23 trainer_callback.py:570-573 DefaultFlowCallback.on_step_end (global_step % logging_steps == 0, step 1 with logging_first_step); trl 1.16 grpo_trainer.py:3302-3321 GRPOTrainer.log",
    },
  },
  recordNoun: "logged steps",
  recordsDescription: stepRecordsDescription("logged steps", "train/global_step"),
  stepAxis: "train/global_step = optimizer steps at the time of the log; one row every logging_steps optimizer steps",
  updates: {
    observable: false,
    note: "TRL logs every logging_steps optimizer steps, averaged over them (single updates only at logging_steps = 1)",
    keyPrefix: null,
    criticPrefix: null,
  },
  aggregation: `GRPO metrics (entropy, clip ratios, completions, rewards) ${AVERAGED}; loss averaged since the last log; grad_norm of the last step`,
  restart:
    "a new W&B run unless WANDB_RUN_ID/WANDB_RESUME are set (offline, the same id gets a second .wandb log, frozen as one run); global_step continues from the checkpoint, so rows after it are re-logged (the later logging supersedes)",
  tensorboard: {
    // transformers' TensorBoardCallback.on_log: add_scalar(k, v, state.global_step) for each logged key (train/ prefixed by rewrite_logs).
    step: "state.global_step of the Hugging Face Trainer (optimizer steps), the number W&B logs as train/global_step; no tag holds it",
    stepKey: "train/global_step",
    separateCalls: ["eval/"],
    // TensorBoardCallback.on_train_begin: add_text("args", args.to_json_string()).
    configText: "args/text_summary",
  },
  metrics: {
    entropy: perRow("train/entropy", `mean token entropy of the completions, ${AVERAGED}`, "not per optimizer update"),
    clipfrac: perRow(
      "train/clip_ratio/region_mean",
      `fraction of tokens in the clipped region, ${AVERAGED}`,
      "low/high splits and per-sequence min/max are separate keys",
    ),
    gradNorm: perRow(
      "train/grad_norm",
      "gradient norm of the last optimizer step before the log (Hugging Face Trainer)",
      "not a mean over the logging interval; zero-gradient updates in between are not seen",
    ),
    ppoKl: { absent: "TRL logs no policy-ratio KL; its train/kl is the KL to the reference model" },
    klToRef: perRow("train/kl", `KL to the reference model (only when beta != 0), ${AVERAGED}`, "not ppo_kl (the policy-ratio log)"),
    logprobGap: perRow(
      "train/sampling/sampling_logp_difference/mean",
      `mean |trainer - vLLM sampling log-prob| (with vLLM importance-sampling correction), ${AVERAGED}`,
      "absent without vLLM sampling correction",
    ),
    responseLen: perRow("train/completions/mean_length", `mean completion length, ${AVERAGED}`, "not per episode"),
    responseLenMin: perRow("train/completions/min_length", "shortest completion of the logging interval", "not per episode"),
    responseLenMax: perRow("train/completions/max_length", "longest completion of the logging interval", "not per episode"),
    truncated: perRow("train/completions/clipped_ratio", `fraction of completions cut at max_completion_length, ${AVERAGED}`, "not an episode failure rate"),
    rolloutTime: { absent: "no generation wall time per step is logged (profiling/* keys, when enabled, time single calls)" },
    actorTokPerS: { absent: "train/num_tokens is a cumulative token count, not a throughput" },
    stepTime: perRow("train/step_time", `wall time of an optimizer step, ${AVERAGED}`, "not the generation time"),
    reward: perRow(
      "train/reward",
      `mean over the completions of the weighted sum of the reward functions (GRPOTrainer's \`reward\`), ${AVERAGED}`,
      "defined by the run's reward function: not comparable across reward functions; the per-function means are train/rewards/<name>/mean",
    ),
    zeroStdFrac: perRow(
      "train/frac_reward_zero_std",
      `fraction of prompt groups (num_generations completions of one prompt) whose rewards have zero std, ${AVERAGED}`,
      "not a fraction of completions; 1 means no group of the logged steps had any reward spread",
    ),
    advantageMax: { absent: "TRL logs no advantage statistics (train/frac_reward_zero_std says when groups carry no signal)" },
    advantageMin: { absent: "TRL logs no advantage statistics (train/frac_reward_zero_std says when groups carry no signal)" },
    tokensSeen: perRow(
      "train/num_tokens",
      "state.num_input_tokens_seen at the row's last generation: the prompt and completion tokens (attention mask) of every training batch so far, gathered over processes (grpo_trainer.py _generate_and_score_completions)",
      "not completion tokens only, and not a throughput; evaluation batches do not add to it",
    ),
  },
  otherMetrics: {},
  keyAliases: {},
  keyFamilies: [],
  flags: TRL_FLAGS,
  package: "trl",
  meanings: TRL_MEANINGS,
  versionKeys: [
    {
      key: "train/clip_ratio/region_mean",
      package: "trl",
      atLeast: "0.17.0",
      evidence: "huggingface/trl#3289 (clip_ratio split into low/high/region), first released in 0.17.0",
    },
  ],
  timers: {
    isTimer: (k) => k === "train/step_time",
    containers: {},
    stackable: (k) => k === "train/step_time",
    separateTimer: null,
    remainderOf: null,
    stepSum: null,
    shortName: (k) => k,
    stackCaption: asLoggedStackCaption("logged steps"),
  },
  mismatch: TRL_MISMATCH,
};
