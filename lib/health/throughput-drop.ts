/**
 * `throughput_drop`: a round whose typical actor training throughput is well below the previous
 * round's: the same training got slower between runs (hardware, placement, a configuration change).
 */
import { conceptKey, defineCheck } from "./health-check";
import { evidenceNumber, roundMedians, type CheckFlag } from "./flag-ranges";
import type { AlignedRuns } from "../types";
import { anyHasKey, forEachBlock } from "../values/key-column";
import { notLoggedReason } from "./not-applicable";

/** The declared check. One flag per slower round: first/last are its rollout ids, value its median. */
export const throughputDrop = defineCheck({
  name: "throughput_drop",
  severity: "notice",
  unit: "rollout",
  needs: { concepts: ["actorTokPerS"] },
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
  rule: (p, profile) => `median ${conceptKey(profile, "actorTokPerS")} of a round < (1 - ${p.max_drop}) x the median of the previous round that logged it`,
  is: "a round whose typical actor training throughput fell against the round before it",
  isNot:
    "not a property of the policy or of the data alone: it describes the machines and their scheduling (another cluster, placement, offloading, longer sequences per batch)",
  run(aligned, p, profile) {
    const KEY = conceptKey(profile, "actorTokPerS");
    const rollouts = aligned.rollouts;
    if (!anyHasKey(rollouts, KEY)) return { applicable: false, reason: notLoggedReason("rollout batch", KEY) };
    const medians = roundMedians(rollouts, KEY, aligned.rounds);
    const rounds = aligned.rounds.map((round, i) => ({ round, median: medians[i] })).filter((r) => r.median !== null);
    if (rounds.length < 2) return { applicable: false, reason: `fewer than two rounds with a finite ${KEY}: nothing to compare` };
    const flags: CheckFlag[] = [];
    for (let i = 1; i < rounds.length; i++) {
      const prev = rounds[i - 1];
      const cur = rounds[i];
      if (cur.median! < (1 - p.max_drop) * prev.median!) flags.push(slowerRound(rollouts, cur.round, cur.median!, KEY));
    }
    const evidence = "round medians: " + rounds.map((r) => `${r.round} ${evidenceNumber(r.median)}`).join(", ");
    return { applicable: true, flags, evidence };
  },
});

/** The flag of a slower round: its batches with a finite value (only flagged rounds are read again). */
function slowerRound(rollouts: AlignedRuns["rollouts"], round: string, median: number, KEY: string): CheckFlag {
  const at: number[] = [];
  let runId = "";
  forEachBlock(rollouts, [KEY], (from, to, [col]) => {
    for (let i = from; i < to; i++) {
      const v = col.values[i - from];
      if (!(v - v === 0) || rollouts[i].round !== round) continue;
      if (at.length === 0) runId = rollouts[i].runId;
      at.push(rollouts[i].rollout);
    }
  });
  at.sort((a, b) => a - b);
  return { round, runId, first: at[0], last: at[at.length - 1], count: at.length, key: KEY, value: median, at };
}
