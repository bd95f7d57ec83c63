/**
 * `truncation_surge`: a rollout batch in which far more samples hit the length limit than usual for
 * its round: the truncated fraction exceeds an absolute floor and a multiple of the round's median.
 */
import { conceptKey, defineCheck } from "./health-check";
import { consecutiveFlags, evidenceNumber, roundMedians, type HealthHit } from "./flag-ranges";
import { notLoggedReason } from "./not-applicable";
import { anyHasKey, forEachBlock } from "../values/key-column";
import { firstPositions, RoundSlot } from "../diagnostics/round-index";

/** The declared check. Consecutive surging batches of one round form one flag. */
export const truncationSurge = defineCheck({
  name: "truncation_surge",
  severity: "warning",
  unit: "rollout",
  needs: { concepts: ["truncated"] },
  params: [
    { name: "min_fraction", default: 0.5, min: 0, minInclusive: true, max: 1, doc: "truncated fraction a batch must exceed (fraction of samples)" },
    { name: "median_multiple", default: 3, min: 0, minInclusive: false, doc: "multiple of the round's median truncated fraction a batch must exceed" },
    {
      name: "min_history",
      default: 4,
      min: 0,
      minInclusive: true,
      integer: true,
      doc: "finite values its run must have logged before a batch is judged (the run's early window: its first batches are the starting policy's habit, not a surge)",
    },
  ],
  rule: (p, profile) =>
    `${conceptKey(profile, "truncated")} > ${p.min_fraction} and > ${p.median_multiple} x the median of its round, after ${p.min_history} or more logged values of its run (consecutive batches form one flag)`,
  is: "rollout batches where most admitted samples hit the length limit, far more than the round's typical batch",
  isNot:
    "not an episode failure rate (aborted and filtered samples are excluded), and not proof of a generation bug: a batch of harder prompts, a changed length limit or a looping policy all raise it",
  detects: ["length_runaway"],
  run(aligned, p, profile) {
    const KEY = conceptKey(profile, "truncated");
    if (!anyHasKey(aligned.rollouts, KEY)) return { applicable: false, reason: notLoggedReason("rollout batch", KEY) };
    const rollouts = aligned.rollouts;
    const medians = roundMedians(rollouts, KEY, aligned.rounds);
    const slot = new RoundSlot(firstPositions(aligned.rounds));
    // NaN = no median: a typed array, as a (number | null)[] read per batch boxed each median read (measured).
    const median = Float64Array.from(medians, (m) => m ?? Number.NaN);
    const hits: HealthHit[] = [];
    // Finite values each run logged so far: healthy twins of the fault corpus truncate most in their first
    // batches (0.56 at step 1, or 0.25 then 0.56), the starting policy's habit; measured there, not on slime.
    const seen = new Map<string, number>();
    forEachBlock(rollouts, [KEY], (from, to, [col]) => {
      for (let i = from; i < to; i++) {
        const v = col.values[i - from];
        const s = slot.of(rollouts[i].round);
        // A rollout of a round not listed has no median; non-finite and absent values are not judged.
        if (s < 0 || Number.isNaN(median[s]) || !(v - v === 0)) continue;
        const history = seen.get(rollouts[i].runId) ?? 0;
        seen.set(rollouts[i].runId, history + 1);
        if (history >= p.min_history && v > p.min_fraction && v > p.median_multiple * median[s]) {
          const r = rollouts[i];
          hits.push({ round: r.round, runId: r.runId, x: r.rollout, key: KEY, value: v });
        }
      }
    });
    const evidence = "round medians: " + aligned.rounds.map((round, i) => `${round} ${evidenceNumber(medians[i])}`).join(", ");
    return { applicable: true, flags: consecutiveFlags(hits, aligned.rounds), evidence };
  },
});
