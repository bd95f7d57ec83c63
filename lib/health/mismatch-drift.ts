/**
 * `mismatch_drift`: a train/inference mismatch metric whose round means drift in the worse direction
 * (lib/diagnostics/mismatch-drift.ts: the least-squares slope against the round's position) faster
 * than its quantity's declared threshold per round (lib/registry/mismatch.ts), times `scale`.
 */
import { defineCheck, type HealthCheckParams } from "./health-check";
import { evidenceNumber, type CheckFlag } from "./flag-ranges";
import { driftOverRounds, formatSlope } from "../diagnostics/mismatch-drift";
import type { MismatchSeries } from "../diagnostics/mismatch-series";
import { CheckInputs } from "./check-inputs";
import { MISMATCH_QUANTITIES, type MismatchWorse } from "../registry/mismatch";
import type { FrameworkProfile } from "../registry/framework-profile";
import type { AlignedRuns } from "../types";
import { mismatchNotLoggedReason, worseBy } from "./mismatch-common";

/** The declared check: one flag per metric whose slope over round means passes its threshold. */
export const mismatchDrift = defineCheck({
  name: "mismatch_drift",
  severity: "warning",
  unit: "rollout",
  params: [
    {
      name: "scale",
      default: 1,
      min: 0,
      minInclusive: false,
      doc: "multiple of each mismatch quantity's declared threshold per round (lib/registry/mismatch.ts)",
    },
  ],
  rule: (p) =>
    `the least-squares slope of a mismatch metric's round means against the round's position, in its worse direction, > ${p.scale} x its quantity's declared threshold per round (e.g. ${evidenceNumber(p.scale * thresholdOf("absDiff"))} nats/token per round for the mean |train - rollout log-prob|)`,
  is: "a train/inference mismatch that grows (or an effective sample size that shrinks) from round to round, along a line fitted to the round means",
  isNot:
    "not a test that the level moved (no interval), not proof of a weight-sync or precision bug, and blind to what happens inside a round or in the per-token tails; the thresholds are declared starting points, not validated limits",
  detects: ["mismatch"],
  run(aligned: AlignedRuns, p: HealthCheckParams, profile: FrameworkProfile, inputs = new CheckInputs(aligned, profile)) {
    const { series, notLogged } = inputs.mismatchSeries();
    if (series.length === 0) return { applicable: false, reason: mismatchNotLoggedReason(profile, notLogged) };
    const eligible = series.filter((s) => "value" in MISMATCH_QUANTITIES[s.quantity].driftPerRound);
    if (eligible.length === 0)
      return { applicable: false, reason: `no logged mismatch metric has a drift threshold (${series.map((s) => s.name).join(", ")})` };
    const drifts = eligible.map((s) => ({ s, d: driftOverRounds(s) }));
    const fitted = drifts.filter((x) => x.d.slope !== null);
    if (fitted.length === 0) return { applicable: false, reason: `a slope over rounds needs 2 rounds with a mean: ${drifts.map((x) => x.d.text).join("; ")}` };
    const flags: CheckFlag[] = [];
    const evidence: string[] = [];
    for (const { s, d } of fitted) {
      const q = MISMATCH_QUANTITIES[s.quantity];
      const t = p.scale * thresholdOf(s.quantity);
      evidence.push(`${s.name} ${formatSlope(d.slope as number)} per round over ${d.rounds} rounds (threshold ${worseText(q.worse)}${evidenceNumber(t)})`);
      if (worseBy(q.worse, d.slope as number) > t) flags.push(flagOf(s, d.slope as number, d.rounds));
    }
    return { applicable: true, flags, evidence: evidence.join("; ") };
  },
});

function thresholdOf(quantity: keyof typeof MISMATCH_QUANTITIES): number {
  const t = MISMATCH_QUANTITIES[quantity].driftPerRound;
  return "value" in t ? t.value : Number.NaN;
}

function worseText(worse: MismatchWorse): string {
  return worse === "higher" ? "+" : worse === "lower" ? "-" : "±";
}

/** One flag over the whole series, read at its last round with a mean (the slope spans the rounds). */
function flagOf(s: MismatchSeries, slope: number, rounds: number): CheckFlag {
  const last = [...s.rounds].reverse().find((r) => r.mean.mean !== null)!;
  const first = s.points[0].x;
  const end = s.points[s.points.length - 1].x;
  return { round: last.round, runId: last.runId ?? "", first, last: end, count: rounds, key: s.name, value: slope, at: [] };
}
