/**
 * slime's local-log formats across versions (docs/slime-logging.md, "Local logs"), one
 * small hand-written fixture per era and trait, with hand-checked records and counts. The values are
 * invented; only the shapes follow real slime lines.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { parseSlimeLogWithStats, type LocalLogRecord } from "../../lib/local-logs/parse-slime-log";

const ESC = "\x1b";
const parse = (lines: string[]) => parseSlimeLogWithStats(lines.join("\n") + "\n", { runId: "r", file: "f.log" });
/** kind, id, line, message (when the kind does not say it) of each record. */
const shape = (records: LocalLogRecord[]) => records.map((r) => [r.kind, r.id, r.line, r.message ?? ""]);

test("print era (before 2025-11-17, stdout): no timestamp, no file:line; manager vs trainer perf told apart by keys", () => {
  const { records, stats, malformed } = parse([
    "perf 7: {'perf/rollout_time': 262.5, 'perf/tokens_per_gpu_per_sec': 177.5, 'perf/longest_sample_tokens_per_sec': 44.25}",
    "rollout 7: {'rollout/response_lengths': 5824.5, 'rollout/rewards': 1.25e-09, 'rollout/raw_reward': 0.25, 'rollout/kl': 0.0}",
    "step 14: {'train/loss': -0.0125, 'train/ppo_kl': 0.0, 'train/grad_norm': 0.5, 'train/lr-pg_0': 1e-06, 'train/lr-pg_1': 1e-06, 'train/step': 14}",
    "(MegatronTrainRayActor pid=22) step 15: {'train/loss': -0.5, 'train/ppo_kl': 2e-10, 'train/grad_norm': 3000000000.0, 'train/step': 15}",
    "perf 7: {'perf/train_wait_time': 3.5, 'perf/train_time': 40.25, 'perf/total_train_time': 43.75, 'perf/wait_time_ratio': 0.08}",
  ]);
  assert.deepEqual(shape(records), [
    ["rollout-manager-perf", 7, 1, ""],
    ["rollout", 7, 2, ""],
    ["step", 14, 3, ""],
    ["step", 15, 4, ""],
    ["trainer-perf", 7, 5, ""],
  ]);
  assert.deepEqual(records[1].values, { "rollout/response_lengths": 5824.5, "rollout/rewards": 1.25e-9, "rollout/raw_reward": 0.25, "rollout/kl": 0 });
  assert.deepEqual(records[3].values, { "train/loss": -0.5, "train/ppo_kl": 2e-10, "train/grad_norm": 3e9, "train/step": 15 });
  assert.deepEqual(stats, { lines: 5, metricLines: 5, records: 5, malformed: 0, nonNumeric: 0 });
  assert.deepEqual(malformed, []);
});

test("logger era (2026-08): Ray prefixes with and without ip, a role tag in the brackets, every message kind", () => {
  const T = (s: string) => `[2026-08-22 10:00:${s}]`;
  const { records, stats } = parse([
    `(RolloutManager pid=6809) ${T("01")} rollout_metrics.py:268 - perf 0: {'rollout/dynamic_filter/drop_zero_std_0.0': 5, 'rollout/response_len/max': 5478, 'rollout/prefix_cache_hit_rate': 0.0, 'perf/rollout_time': 262.25}`,
    `(MegatronTrainRayActor pid=10122, ip=10.1.2.3) ${T("09")} train_metric_utils.py:135 - rollout 0: {'rollout/partition': 0.5, 'rollout/rewards': 1.241e-09, 'rollout/kl': 0.0}`,
    `(MegatronTrainRayActor pid=10122, ip=10.1.2.3) ${T("09")} train_metric_utils.py:135 - multi_turn 0: {'multi_turn/multi_turn_metric/round_number_mean': np.float64(2.5), 'multi_turn/multi_turn_metric/round_number_max': np.int64(4)}`,
    `(MegatronTrainRayActor pid=10122, ip=10.1.2.3) ${T("09")} train_metric_utils.py:135 - passrate 0: {'passrate/pass@1': np.float64(0.25), 'passrate/pass@2': np.float64(0.375)}`,
    `(MegatronTrainRayActor pid=10122, ip=10.1.2.3) [2026-08-22 10:00:10 actor] model.py:918 - step 0: {'train/loss': 0.125, 'train/grad_norm': 1.5, 'train/global_batch_size': 64, 'train/step': 0}`,
    `(MegatronTrainRayActor pid=10200, ip=10.1.2.4) [2026-08-22 10:00:10 critic] model.py:918 - critic-step 0: {'train/critic-value_loss': 0.75, 'train/critic-value_clipfrac': 0.125, 'train/step': 0}`,
    `(MegatronTrainRayActor pid=10122, ip=10.1.2.3) ${T("20")} train_metric_utils.py:401 - perf 0: {'perf/sleep_time': 1.5, 'perf/train_wait_time': 3.5, 'perf/step_time': 44.0, 'perf/actor_train_tok_per_s': 5210.5}`,
    `(RolloutManager pid=6809) ${T("40")} rollout_metrics.py:247 - eval 0: {'eval/aime': 0.25, 'eval/aime-truncated_ratio': 0.0, 'eval/aime-pass@4': np.float64(0.5)}`,
  ]);
  assert.deepEqual(shape(records), [
    ["rollout-manager-perf", 0, 1, ""],
    ["rollout", 0, 2, ""],
    ["rollout", 0, 3, "multi_turn"],
    ["rollout", 0, 4, "passrate"],
    ["step", 0, 5, ""],
    ["critic-step", 0, 6, ""],
    ["trainer-perf", 0, 7, ""],
    ["eval", 0, 8, ""],
  ]);
  assert.deepEqual(records[0].values, {
    "rollout/dynamic_filter/drop_zero_std_0.0": 5,
    "rollout/response_len/max": 5478,
    "rollout/prefix_cache_hit_rate": 0,
    "perf/rollout_time": 262.25,
  });
  assert.deepEqual(records[2].values, { "multi_turn/multi_turn_metric/round_number_mean": 2.5, "multi_turn/multi_turn_metric/round_number_max": 4 });
  assert.deepEqual(records[5].values, { "train/critic-value_loss": 0.75, "train/critic-value_clipfrac": 0.125, "train/step": 0 });
  assert.deepEqual(records[7].values, { "eval/aime": 0.25, "eval/aime-truncated_ratio": 0, "eval/aime-pass@4": 0.5 });
  assert.deepEqual(stats, { lines: 8, metricLines: 8, records: 8, malformed: 0, nonNumeric: 0 });
});

test("ANSI colours around the Ray prefix and Ray's [repeated Nx across cluster] suffix", () => {
  const { records, stats } = parse([
    `${ESC}[36m(RolloutManager pid=6809)${ESC}[0m [2026-07-20 17:53:16] rollout.py:1303 - perf 0: {'rollout/response_len/mean': 1877.5, 'perf/rollout_time': 262.5}`,
    `${ESC}[36m(MegatronTrainRayActor pid=10122)${ESC}[0m [2026-07-20 17:53:24] data.py:193 - rollout 0: {'rollout/rewards': 0.5} [repeated 3x across cluster]`,
    `${ESC}[33m(MegatronTrainRayActor pid=10122)${ESC}[0m step 1: {'train/loss': 0.5, 'train/step': 1}${ESC}[0m`,
  ]);
  assert.deepEqual(shape(records), [
    ["rollout-manager-perf", 0, 1, ""],
    ["rollout", 0, 2, ""],
    ["step", 1, 3, ""],
  ]);
  assert.deepEqual(records[1].values, { "rollout/rewards": 0.5 });
  assert.equal(stats.malformed, 0);
});

test("tqdm carriage returns in the same line: glued bar, closed-bar prefix, a redraw after the dict, a print-era line behind a bar", () => {
  const BAR = "actor train:  50%|█████     | 1/2 [00:03<00:03,  3.10s/it]";
  const { records, stats, malformed } = parse([
    `(MegatronTrainRayActor pid=22) \r${BAR}[2026-05-20 10:00:01] model.py:918 - step 2: {'train/loss': 0.25, 'train/step': 2}`,
    `(MegatronTrainRayActor pid=22) \r                                                    \r[2026-05-20 10:00:02] model.py:918 - step 3: {'train/loss': 0.5, 'train/step': 3}`,
    `(MegatronTrainRayActor pid=22) [2026-05-20 10:00:03] model.py:918 - step 4: {'train/loss': 0.75, 'train/step': 4}\r${BAR}`,
    `${BAR}step 5: {'train/loss': 1.0, 'train/step': 5}`,
    `\r${BAR}\rstep 6: {'train/loss': 1.25, 'train/step': 6}\r`,
  ]);
  assert.deepEqual(
    records.map((r) => [r.id, r.line, r.values["train/loss"]]),
    [
      [2, 1, 0.25],
      [3, 2, 0.5],
      [4, 3, 0.75],
      [5, 4, 1],
      [6, 5, 1.25],
    ],
  );
  assert.deepEqual(stats, { lines: 5, metricLines: 5, records: 5, malformed: 0, nonNumeric: 0 });
  assert.deepEqual(malformed, []);
});

test("values: nan, inf, -inf, None and tensor(...) skipped and counted, numpy scalars, ints mixed with floats, exponents, float-looking key suffixes", () => {
  const { records, stats } = parse([
    "step 8: {'train/loss': nan, 'train/grad_norm': inf, 'train/kl_loss': -inf, 'train/ois': None, 'train/tis': tensor(0.5000, device='cuda:0'), 'train/lr-pg_0': 1e-07, 'train/step': 8}",
    "perf 2: {'rollout/dynamic_filter/drop_zero_std_0.0': 5, 'rollout/zero_std/count_1.0': np.int64(3), 'rollout/response_len/mean': 1877.1458333333333, 'rollout/rewards': 1.241763432820638e-09, 'perf/rollout_time': np.float64(6.5e+02)}",
  ]);
  assert.deepEqual(records[0].values, { "train/loss": NaN, "train/grad_norm": Infinity, "train/kl_loss": -Infinity, "train/lr-pg_0": 1e-7, "train/step": 8 });
  assert.deepEqual(records[0].skipped, ["train/ois", "train/tis"]);
  assert.deepEqual(records[1].values, {
    "rollout/dynamic_filter/drop_zero_std_0.0": 5,
    "rollout/zero_std/count_1.0": 3,
    "rollout/response_len/mean": 1877.1458333333333,
    "rollout/rewards": 1.241763432820638e-9,
    "perf/rollout_time": 650,
  });
  assert.equal(records[1].kind, "rollout-manager-perf");
  assert.deepEqual(stats, { lines: 2, metricLines: 2, records: 2, malformed: 0, nonNumeric: 2 });
});

test("the rollout-buffer plugin's `no filter rollout log N:` line is read as a trainer rollout record of rollout id N", () => {
  const { records, stats } = parse([
    "no filter rollout log 12: {'rollout/no_filter/total_samples': 512, 'rollout/no_filter/avg_reward': 0.375, 'rollout/step': 12}",
  ]);
  assert.deepEqual(records, [
    {
      kind: "rollout",
      id: 12,
      line: 1,
      message: "no filter rollout log",
      values: { "rollout/no_filter/total_samples": 512, "rollout/no_filter/avg_reward": 0.375, "rollout/step": 12 },
    },
  ]);
  assert.equal(stats.malformed, 0);
});

test("two metric messages interleaved on one line are both read", () => {
  const { records, stats } = parse([
    "(MegatronTrainRayActor pid=22) [2026-05-20 10:00:01] model.py:918 - step 2: {'train/step': 2}(RolloutManager pid=6) [2026-05-20 10:00:01] rollout.py:1303 - perf 3: {'perf/rollout_time': 9.5}",
  ]);
  assert.deepEqual(shape(records), [
    ["step", 2, 1, ""],
    ["rollout-manager-perf", 3, 1, ""],
  ]);
  assert.deepEqual([stats.metricLines, stats.malformed], [2, 0]);
});

test("metric fragments that do not parse are counted as malformed with file:line and reason", () => {
  const { records, stats, malformed } = parse([
    "(MegatronTrainRayActor pid=22) [2026-05-20 10:00:01] model.py:918 - step 2: {'train/loss': 0.25, 'train/grad_norm': 1.5, 'train/st",
    "step 3: {'train/loss': 0.2x5, 'train/step': 3}",
    "(MegatronTrainRayActor pid=22) computing step 4: {'train/loss': 0.5, 'train/step': 4}",
    "step 5: {'train/loss': 0.5, 'train/step': 5} (logged)",
    "step 6: {'train/loss': 0.5,",
    "  'train/step': 6}",
    "perf 7: {'perf/rollout_time': 1.5}",
    // Conservative by design: a metric-looking fragment inside another line's text is counted, never dropped silently.
    "(RolloutManager pid=6809) first sample: ['<|im_start|>user step 8: {x}']",
  ]);
  assert.deepEqual(shape(records), [["rollout-manager-perf", 7, 7, ""]]);
  assert.deepEqual(malformed, [
    { file: "f.log", line: 1, message: "step 2", reason: "unterminated string at column 131" },
    { file: "f.log", line: 2, message: "step 3", reason: 'bad number "0.2x" at column 27' },
    {
      file: "f.log",
      line: 3,
      message: "step 4",
      reason: 'the message is glued behind other text ("(MegatronTrainRayActor pid=22) computing ") and was not read',
    },
    { file: "f.log", line: 4, message: "step 5", reason: "unexpected text after the dict at column 45" },
    { file: "f.log", line: 5, message: "step 6", reason: "unexpected end of text (dict not closed) at column 28" },
    {
      file: "f.log",
      line: 8,
      message: "step 8",
      reason: `the message is glued behind other text ("(RolloutManager pid=6809) first sample: ['<|im_start|>user ") and was not read`,
    },
  ]);
  // The continuation line of the wrapped dict (line 6) is not metric-looking: neither a record nor malformed.
  assert.deepEqual(stats, { lines: 8, metricLines: 7, records: 1, malformed: 6, nonNumeric: 0 });
});

test("lines of other actors are neither records nor malformed: uvicorn access lines, Abort request lines, Timer lines, other dicts", () => {
  const { records, stats, malformed } = parse([
    '(SGLangEngine pid=7001) INFO:     127.0.0.1:53312 - "POST /generate HTTP/1.1" 200 OK',
    "(SGLangEngine pid=7001) [2026-04-15 07:57:50] Receive: obj=GenerateReqInput(rid='4f2a', sampling_params={'max_new_tokens': 8192, 'temperature': 1.0})",
    "(RolloutManager pid=6809) [2026-04-15 07:57:51] sglang_rollout.py:412 - Abort request for rid 4f2a: {'reason': 'dynamic filter reached the target'}",
    "(MegatronTrainRayActor pid=22) [2026-04-15 07:57:52] timer.py:24 - Timer train start",
    "(MegatronTrainRayActor pid=22) [2026-04-15 07:57:58] timer.py:32 - Timer train end (elapsed: 6.1s)",
    "[2026-04-15 07:57:40] arguments.py:2010 - using args: {'rollout_batch_size': 32, 'n_samples_per_prompt': 8}",
    "wandb: Run summary: {'train/step': 15}",
    "step: {'train/loss': 1}",
  ]);
  assert.deepEqual(records, []);
  assert.deepEqual(malformed, []);
  assert.deepEqual(stats, { lines: 8, metricLines: 0, records: 0, malformed: 0, nonNumeric: 0 });
});
