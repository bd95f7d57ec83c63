/**
 * `throughput_drop`: a round whose typical actor training throughput is well below the previous
 * round's: the same training got slower between runs (hardware, placement, a configuration change).
 */
import { METRICS } from "../schema/slime-metrics";
import { defineCheck } from "./health-check";
import { evidenceNumber, finiteMedian, type CheckFlag } from "./flag-ranges";
import { notLoggedReason } from "./not-applicable";

const KEY = METRICS.actorTokPerS.key;

/** The declared check. One flag per slower round: first/last are its rollout ids, value its median. */
export const throughputDrop = defineCheck({
  name: "throughput_drop",
  severity: "notice",
  unit: "rollout",
  profiles: ["slime"],
  params: [
    {
      name: "max_drop",
      default: 0.2,
      min: 0,
      minInclusive: false,
      max: 1,
      doc: "largest accepted fall of the round median against the previous round's (fraction)",
    },
  ],
  rule: (p) => `median ${KEY} of a round < (1 - ${p.max_drop}) x the median of the previous round that logged it`,
  is: "a round whose typical actor training throughput fell against the round before it",
  isNot:
    "not a property of the policy or of the data alone: it describes the machines and their scheduling (another cluster, placement, offloading, longer sequences per batch)",
  run(aligned, p) {
    if (!aligned.rollouts.some((r) => KEY in r.values)) return { applicable: false, reason: notLoggedReason("rollout batch", KEY) };
    const rounds = aligned.rounds
      .map((round) => {
        const records = aligned.rollouts.filter((r) => r.round === round && r.values[KEY] !== undefined && Number.isFinite(r.values[KEY]));
        return { round, records, median: finiteMedian(records.map((r) => r.values[KEY])) };
      })
      .filter((r) => r.median !== null);
    if (rounds.length < 2) return { applicable: false, reason: `fewer than two rounds with a finite ${KEY}: nothing to compare` };
    const flags: CheckFlag[] = [];
    for (let i = 1; i < rounds.length; i++) {
      const prev = rounds[i - 1];
      const cur = rounds[i];
      if (cur.median! < (1 - p.max_drop) * prev.median!) {
        const at = cur.records.map((r) => r.rollout).sort((a, b) => a - b);
        flags.push({ round: cur.round, runId: cur.records[0].runId, first: at[0], last: at[at.length - 1], count: at.length, key: KEY, value: cur.median, at });
      }
    }
    const evidence = "round medians: " + rounds.map((r) => `${r.round} ${evidenceNumber(r.median)}`).join(", ");
    return { applicable: true, flags, evidence };
  },
});
