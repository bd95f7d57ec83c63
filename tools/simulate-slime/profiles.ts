/**
 * Versioned key-set profiles of the scenario simulator (scenario.ts): which keys slime logged, in
 * which order and under which names, at a given date, and how its local log looked then. Source:
 * docs/slime-logging.md (what slime logs by version). The bundled
 * sample (simulate.ts) does not use these profiles: its layout matches no single version (doc M4).
 */

/** Names of the slime versions followed, by month (not the registry's framework profiles, lib/registry/profiles.ts). */
export type SlimeVersionName = "2025-10" | "2025-12" | "2026-05" | "2026-08";

/** `file:line` sources of the logger-era metric lines (cosmetic: parsers ignore them; doc 5.3). */
export interface LogSources {
  manager: string;
  eval: string;
  trainerRollout: string;
  trainerPerf: string;
  step: string;
  timerStart: string;
  timerEnd: string;
}

/** What one slime state logs. */
export interface SlimeVersionSpec {
  name: SlimeVersionName;
  /** The slime state followed, in words (shown in configs and docs). */
  follows: string;
  /** False: print era (before 2025-11-17), metric dicts `print`ed to stdout without a logger prefix. */
  logger: boolean;
  /** The step-time container: `perf/total_train_time` before 2025-10-30, then `perf/step_time`. */
  stepTimeKey: string;
  /** Signed `train/train_rollout_logprob_diff` before 2025-10-24..27, then `..._abs_diff`. */
  logprobDiffKey: string;
  /** Manager-row `rollout/response_len/*` stats: none before 2025-11-01, mean/median, then all four (2025-12-30). */
  responseLenStats: readonly string[];
  /** `rollout/repetition_frac` and `rollout/truncated_ratio` (since 2025-11-14, plain floats). */
  repetitionAndTruncated: boolean;
  /** `perf/effective_*` and `perf/longest_effective_*` (since 2025-12-30). */
  effectivePerf: boolean;
  /** `rollout/prefix_cache_hit_rate`, `rollout/avg_cached_tokens_per_sample` (always, since 2026-05-06). */
  prefixCache: boolean;
  /** Prefix of the speculative-decoding keys, or null when this state logs none. */
  specPrefix: string | null;
  /** `perf/request/{e2e_latency,queue_time}/*` and `perf/decode/throughput/*` (since 2026-06-08). */
  requestPerf: boolean;
  /** `rollout/partition` on the trainer rollout row (since 2026-08-12). */
  partition: boolean;
  /** `train/global_batch_size` on step rows (since 2026-05-25). */
  globalBatchSize: boolean;
  /** Eval rows carry `eval/<d>/` + the sample metrics (since 2025-11-13). */
  evalSampleMetrics: boolean;
  /** tqdm microbatch bars on the logging rank (since 2026-05-09): what `tqdm` local-log options imitate. */
  tqdmBars: boolean;
  sources: LogSources;
}

const HEAD_SOURCES: LogSources = {
  manager: "rollout_metrics.py:268",
  eval: "rollout_metrics.py:247",
  trainerRollout: "train_metric_utils.py:135",
  trainerPerf: "train_metric_utils.py:401",
  step: "model.py:918",
  timerStart: "timer.py:24",
  timerEnd: "timer.py:32",
};

/** Sources seen in real lines of 2026-04..07 (doc 5.3); the trainer perf line of that time is from PR 1102. */
const PRE_HEAD_SOURCES: LogSources = {
  manager: "rollout.py:1303",
  eval: "rollout.py:1281",
  trainerRollout: "data.py:193",
  trainerPerf: "train_metric_utils.py:44",
  step: "model.py:918",
  timerStart: "timer.py:23",
  timerEnd: "timer.py:31",
};

/** The profiles, oldest first. */
export const SLIME_VERSIONS: Readonly<Record<SlimeVersionName, SlimeVersionSpec>> = {
  "2025-10": {
    name: "2025-10",
    follows: "slime of 2025-10-20..23 (after perf/actor_train_tok_per_s, before the logprob-diff and step_time renames)",
    logger: false,
    stepTimeKey: "perf/total_train_time",
    logprobDiffKey: "train/train_rollout_logprob_diff",
    responseLenStats: [],
    repetitionAndTruncated: false,
    effectivePerf: false,
    prefixCache: false,
    specPrefix: null,
    requestPerf: false,
    partition: false,
    globalBatchSize: false,
    evalSampleMetrics: false,
    tqdmBars: false,
    sources: PRE_HEAD_SOURCES,
  },
  "2025-12": {
    name: "2025-12",
    follows: "slime of 2025-12 (logger era, double-prefixed rollout/rollout/spec_* keys, before perf/effective_*)",
    logger: true,
    stepTimeKey: "perf/step_time",
    logprobDiffKey: "train/train_rollout_logprob_abs_diff",
    responseLenStats: ["mean", "median"],
    repetitionAndTruncated: true,
    effectivePerf: false,
    prefixCache: false,
    specPrefix: "rollout/rollout/",
    requestPerf: false,
    partition: false,
    globalBatchSize: false,
    evalSampleMetrics: true,
    tqdmBars: false,
    sources: PRE_HEAD_SOURCES,
  },
  "2026-05": {
    name: "2026-05",
    follows: "slime of 2026-05-26..06-07 (prefix-cache keys, train/global_batch_size, tqdm bars; before perf/request/*)",
    logger: true,
    stepTimeKey: "perf/step_time",
    logprobDiffKey: "train/train_rollout_logprob_abs_diff",
    responseLenStats: ["mean", "median", "max", "min"],
    repetitionAndTruncated: true,
    effectivePerf: true,
    prefixCache: true,
    specPrefix: "rollout/",
    requestPerf: false,
    partition: false,
    globalBatchSize: true,
    evalSampleMetrics: true,
    tqdmBars: true,
    sources: PRE_HEAD_SOURCES,
  },
  "2026-08": {
    name: "2026-08",
    follows: "slime HEAD 624b824a (2026-08-21): rollout/partition, perf/request/*, perf/decode/throughput/*",
    logger: true,
    stepTimeKey: "perf/step_time",
    logprobDiffKey: "train/train_rollout_logprob_abs_diff",
    responseLenStats: ["mean", "median", "max", "min"],
    repetitionAndTruncated: true,
    effectivePerf: true,
    prefixCache: true,
    specPrefix: "rollout/",
    requestPerf: true,
    partition: true,
    globalBatchSize: true,
    evalSampleMetrics: true,
    tqdmBars: true,
    sources: HEAD_SOURCES,
  },
};

/** The profile of a name; throws `invalid profile: <name>` for an unknown one. */
export function slimeVersionSpec(name: string): SlimeVersionSpec {
  if (!Object.hasOwn(SLIME_VERSIONS, name)) throw new Error(`invalid profile: ${name} (one of ${Object.keys(SLIME_VERSIONS).join(", ")})`);
  return SLIME_VERSIONS[name as SlimeVersionName];
}
