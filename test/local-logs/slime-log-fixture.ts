/**
 * A slime log and the W&B history of the same run (test/align/slime-history.ts values, N = 2,
 * rollouts 1..2), with: nan, inf, np.float64/np.int64, a non-numeric value, Ray and logging
 * prefixes, ANSI colours, older prefix-less lines, garbage lines, one truncated metric line, and a
 * deliberate mismatch (train/step 5: W&B train/loss 0.005, log 0.0051).
 */
import { alignRuns } from "../../lib/align/align-runs";
import type { CrossCheckLocal } from "../../lib/local-logs/cross-check";
import { parseSlimeLogWithStats } from "../../lib/local-logs/parse-slime-log";
import type { AlignedRuns, RunHistory } from "../../lib/types";
import { ids, runOf, slimeRows } from "../align/slime-history";

const MGR = "(RolloutManager pid=1805485) ";
const TRN = "(MegatronTrainRayActor pid=1805600) ";
const ts = (s: string, file: string, line: number) => `[2026-04-15 07:${s}] ${file}:${line} - `;

/** 17 lines; line numbers are asserted by the tests. */
export const LOG_LINES = [
  /* 1 */ "Traceback (most recent call last):",
  /* 2 */ `${ts("57:50", "train.py", 50)}starting training with {'lr': 1e-06}`,
  /* 3 */ `${MGR}${ts("57:53", "rollout.py", 1193)}perf 1: {'rollout/response_len/mean': 101, 'rollout/truncated_ratio': 0.01, 'perf/rollout_time': 11}`,
  /* 4 */ `${TRN}${ts("58:00", "train_metric_utils.py", 135)}rollout 1: {'rollout/log_probs': -0.51, 'rollout/rewards': 0.1}`,
  /* 5 */ `${TRN}${ts("58:10", "model.py", 918)}step 2: {'train/loss': 0.002, 'train/grad_norm': 3, 'train/entropy_loss': 0.2, 'train/step': 2}`,
  /* 6 */ "step 3: {'train/loss': 0.003, 'train/grad_norm': nan, 'train/entropy_loss': 0.2, 'train/step': 3}",
  /* 7 */ "perf 1: {'perf/actor_train_time': 5, 'perf/actor_train_tok_per_s': 1001}",
  /* 8 */ "some other line: {not a metric}",
  /* 9 */ `\x1b[36m${MGR}\x1b[0m${ts("59:00", "rollout.py", 1193)}perf 2: {'rollout/response_len/mean': 102, 'rollout/truncated_ratio': 0.02, 'perf/rollout_time': 12}`,
  /* 10 */ `${TRN}${ts("59:10", "train_metric_utils.py", 135)}rollout 2: {'rollout/log_probs': -0.52, 'rollout/rewards': 0.2, 'rollout/flag': True}`,
  /* 11 */ `${TRN}${ts("59:20", "model.py", 918)}step 4: {'train/loss': np.float64(0.004), 'train/grad_norm': np.int64(5), 'train/entropy_loss': 0.2, 'train/step': 4}`,
  /* 12 */ `${TRN}${ts("59:30", "model.py", 918)}step 5: {'train/loss': 0.0051, 'train/grad_norm': 6, 'train/entropy_loss': 0.2, 'train/step': 5}\r`,
  /* 13 */ `${TRN}${ts("59:40", "train_metric_utils.py", 401)}perf 2: {'perf/actor_train_time': 5, 'perf/actor_train_tok_per_s': 1002, 'perf/x': inf} [repeated 2x across cluster]`,
  /* 14 */ `${TRN}${ts("59:50", "model.py", 918)}step 6: {'train/loss': 0.006, 'train/grad`,
  /* 15 */ `${MGR}${ts("59:55", "rollout.py", 247)}eval 2: {'eval/aime': 0.25}`,
  /* 16 */ "rollout 3: {'rollout/log_probs': -0.53} trailing words",
  /* 17 */ '  File "train.py", line 1, in <module>',
];

export const LOG_TEXT = LOG_LINES.join("\n") + "\n";

/** The W&B side of the same run. */
export function wandbRun(runId = "run-a"): RunHistory {
  const rows = slimeRows({ runId, round: "R0", n: 2, rollouts: ids(1, 2) });
  // Rows: 0 RM1, 1 TR1, 2 U2, 3 U3, 4 TP1, 5 RM2, 6 TR2, 7 U4, 8 U5, 9 TP2.
  rows[3] = { ...rows[3], "train/grad_norm": NaN };
  rows[7] = { ...rows[7], "train/lr-pg_0": 1e-6 }; // W&B only
  rows[9] = { ...rows[9], "perf/x": Infinity };
  rows.push({ "eval/aime": 0.25, "eval/step": 2 });
  return runOf(runId, "R0", rows);
}

/** The aligned W&B side of the same run. */
export function wandbAligned(runId = "run-a"): AlignedRuns {
  return alignRuns([wandbRun(runId)]);
}

/** Parsed local logs as crossCheck takes them, one text per run. */
export function localOf(...logs: { runId: string; text: string; file?: string }[]): CrossCheckLocal {
  const local: CrossCheckLocal & { stats: CrossCheckLocal["stats"][number][] } = { records: new Map(), stats: [] };
  for (const { runId, text, file = `${runId}.log` } of logs) {
    const p = parseSlimeLogWithStats(text, { runId, file });
    local.records.set(runId, p.records);
    local.stats.push({ runId, file, stats: p.stats, malformed: p.malformed });
  }
  return local;
}
