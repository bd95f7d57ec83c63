/**
 * The local training log of a simulated run, in slime's real format: Python logging lines
 * `[%Y-%m-%d %H:%M:%S] file.py:LINE - message` behind a Ray actor prefix, metric dicts printed as
 * Python reprs (`perf N: {...}` before `rollout/step` is added, `rollout N: {...}`, `step N: {...}`
 * with 'train/step'), interleaved with non-metric lines (timers, warnings, wandb, raylet).
 */
import { pyDictRepr } from "./python-repr";
import type { SimLogLine, SimRow, SimRun } from "./simulate";

/** Python logging's `%Y-%m-%d %H:%M:%S` of epoch ms (rendered in UTC). */
export function pyLogTime(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().slice(0, 19).replace("T", " ");
}

/** Where slime prints each row kind from, and the message it prints. */
function metricLine(run: SimRun, row: SimRow): SimLogLine {
  const manager = `(RolloutManager pid=${run.pids.rolloutManager}) `;
  const trainer = `(MegatronTrainRayActor pid=${run.pids.trainer}) `;
  // slime logs the dict before adding rollout/step; update rows already hold 'train/step'.
  const withoutRolloutStep = row.values.filter((v) => v.key !== "rollout/step");
  switch (row.kind) {
    case "rollout-manager":
      return { timeMs: row.timeMs, prefix: manager, source: "rollout.py:1193", text: `perf ${row.rolloutId}: ${pyDictRepr(withoutRolloutStep)}` };
    case "trainer-rollout":
      return { timeMs: row.timeMs, prefix: trainer, source: "train_metric_utils.py:135", text: `rollout ${row.rolloutId}: ${pyDictRepr(withoutRolloutStep)}` };
    case "optimizer-update":
      return { timeMs: row.timeMs, prefix: trainer, source: "model.py:918", text: `step ${row.trainStep}: ${pyDictRepr(row.values)}` };
    case "trainer-perf":
      return { timeMs: row.timeMs, prefix: trainer, source: "train_metric_utils.py:401", text: `perf ${row.rolloutId}: ${pyDictRepr(withoutRolloutStep)}` };
  }
}

/** Renders the whole local log of a run (lines in time order, newline-terminated). */
export function renderLocalLog(run: SimRun): string {
  const lines = [...run.logLines, ...run.rows.map((row) => metricLine(run, row))]
    .map((l, i) => ({ l, i }))
    .sort((a, b) => a.l.timeMs - b.l.timeMs || a.i - b.i)
    .map(({ l }) => (l.source === null ? `${l.prefix}${l.text}` : `${l.prefix}[${pyLogTime(l.timeMs)}] ${l.source} - ${l.text}`));
  return lines.join("\n") + "\n";
}
