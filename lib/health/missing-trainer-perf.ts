/**
 * `missing_trainer_perf`: rollout batches that were trained on (they have optimizer updates) but
 * carry none of the trainer's perf row. slime's trainer logs that row once per batch after training;
 * without it the batch's timers and actor throughput are absent, and round means silently cover fewer
 * batches.
 */
import { METRICS } from "../schema/slime-metrics";
import { defineCheck } from "./health-check";
import { consecutiveFlags, type HealthHit } from "./flag-ranges";
import { notLoggedReason } from "./not-applicable";

/** The trainer perf row's key that marks it: slime logs actor throughput on every trainer perf row. */
const KEY = METRICS.actorTokPerS.key;

/** The declared check. Consecutive batches of one round form one flag; the value is empty (an absence). */
export const missingTrainerPerf = defineCheck({
  name: "missing_trainer_perf",
  severity: "notice",
  unit: "rollout",
  profiles: ["slime"],
  params: [],
  rule: () => `a rollout batch with optimizer updates but no ${KEY} (no trainer perf row; consecutive batches form one flag)`,
  is: "batches the trainer trained on without logging its perf row: their timers and throughput are missing from every figure and mean",
  isNot:
    "not proof that training failed on those batches: the row can be lost to a crash before logging, to W&B dropping a row, or to a run that ended mid-batch",
  run(aligned) {
    if (aligned.updates.length === 0) return { applicable: false, reason: "no optimizer updates: no batch was trained on" };
    if (!aligned.rollouts.some((r) => KEY in r.values)) return { applicable: false, reason: notLoggedReason("rollout batch", KEY) };
    // Rollout ids per run: ids with the perf key, and ids already reported.
    const withPerf = new Map<string, Set<number>>();
    const seen = new Map<string, Set<number>>();
    const idsOf = (m: Map<string, Set<number>>, runId: string) => {
      let ids = m.get(runId);
      if (!ids) {
        ids = new Set<number>();
        m.set(runId, ids);
      }
      return ids;
    };
    for (const r of aligned.rollouts) if (KEY in r.values) idsOf(withPerf, r.runId).add(r.rollout);
    const hits: HealthHit[] = [];
    for (const u of aligned.updates) {
      const reported = idsOf(seen, u.runId);
      if (withPerf.get(u.runId)?.has(u.rollout) || reported.has(u.rollout)) continue;
      reported.add(u.rollout);
      hits.push({ round: u.round, runId: u.runId, x: u.rollout, key: KEY, value: null });
    }
    return { applicable: true, flags: consecutiveFlags(hits, aligned.rounds) };
  },
});
