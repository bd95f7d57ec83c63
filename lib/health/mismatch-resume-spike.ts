/**
 * `mismatch_resume_spike`: at a restart the superseding model knows of (a new round, or a run resumed
 * in place), the first rollout batch's mismatch metric jumps in the worse direction by more than its
 * quantity's declared share of the level before (the mean of up to `window` batches before the
 * restart) and more than its declared floor, both times `scale` (lib/registry/mismatch.ts), as users
 * report after a resume when trainer and inference engine no longer hold the same weights.
 */
import { defineCheck, type HealthCheckParams } from "./health-check";
import { evidenceNumber, type CheckFlag } from "./flag-ranges";
import { resumeJumps, resumePoints } from "../diagnostics/mismatch-resumes";
import { CheckInputs } from "./check-inputs";
import { MISMATCH_RESUME_WINDOW } from "../diagnostics/mismatch-panel";
import { MISMATCH_QUANTITIES } from "../registry/mismatch";
import { singular, type FrameworkProfile } from "../registry/framework-profile";
import type { AlignedRuns } from "../types";
import { mismatchNotLoggedReason, worseBy } from "./mismatch-common";

/** The declared check: one flag per metric and restart whose jump passes its thresholds. */
export const mismatchResumeSpike = defineCheck({
  name: "mismatch_resume_spike",
  severity: "warning",
  unit: "rollout",
  params: [
    { name: "scale", default: 1, min: 0, minInclusive: false, doc: "multiple of each mismatch quantity's declared share and floor (lib/registry/mismatch.ts)" },
    {
      name: "window",
      default: MISMATCH_RESUME_WINDOW,
      min: 1,
      minInclusive: true,
      integer: true,
      doc: "rollout batches (or steps) before a restart whose mean is the level the jump is measured from",
    },
  ],
  rule: (p, profile) =>
    `at a restart (a new round, or a run resumed in place), the first ${singular(profile.recordNoun)}'s mismatch metric minus the mean of up to ${p.window} ${profile.recordNoun} before it, in its worse direction, > ${p.scale} x its quantity's declared share of that level and > ${p.scale} x its declared floor (e.g. the mean |train - rollout log-prob|: ${evidenceNumber(p.scale * spikeOf("absDiff").relative)} x the level and ${evidenceNumber(p.scale * spikeOf("absDiff").floor)} nats/token)`,
  is: "a restart after which trainer and inference engine disagree on the sampled tokens far more than just before it",
  isNot:
    "not proof of a weight-sync bug at the resume: one batch against a short level, and a checkpoint of other weights, a changed precision or engine version widen the gap too; signed quantities and batch extremes are not read (their declarations say why)",
  run(aligned: AlignedRuns, p: HealthCheckParams, profile: FrameworkProfile, inputs = new CheckInputs(aligned, profile)) {
    const { series, notLogged } = inputs.mismatchSeries();
    if (series.length === 0) return { applicable: false, reason: mismatchNotLoggedReason(profile, notLogged) };
    const resumes = resumePoints(aligned);
    if (resumes.length === 0)
      return { applicable: false, reason: "no restart in these runs (one round, and no run resumed in place): there is no jump at a resume to measure" };
    const eligible = series.filter((s) => "relative" in MISMATCH_QUANTITIES[s.quantity].resumeSpike);
    if (eligible.length === 0)
      return { applicable: false, reason: `no logged mismatch metric has a resume threshold (${series.map((s) => s.name).join(", ")})` };
    const flags: CheckFlag[] = [];
    const evidence: string[] = [];
    for (const s of eligible) {
      const q = MISMATCH_QUANTITIES[s.quantity];
      const { relative, floor } = spikeOf(s.quantity);
      for (const j of resumeJumps(s, resumes, p.window)) {
        if (j.jump === null || j.before === null || j.after === null) {
          evidence.push(`${s.name} at ${j.resume.kind} ${j.resume.round}: no jump (${j.after === null ? "no batch after the restart" : "no batch before it"})`);
          continue;
        }
        const t = Math.max(p.scale * relative * Math.abs(j.before), p.scale * floor);
        evidence.push(
          `${s.name} at ${j.resume.kind} ${j.resume.round} (batch ${j.after.x}): ${evidenceNumber(j.after.value)} after, ${evidenceNumber(j.before)} before (${j.beforePoints} batches), threshold ${evidenceNumber(t)}`,
        );
        if (worseBy(q.worse, j.jump) > t) {
          flags.push({
            round: j.resume.round,
            runId: j.resume.runId,
            first: j.after.x,
            last: j.after.x,
            count: 1,
            key: s.name,
            value: j.after.value,
            at: [j.after.x],
          });
        }
      }
    }
    return { applicable: true, flags, evidence: evidence.join("; ") };
  },
});

function spikeOf(quantity: keyof typeof MISMATCH_QUANTITIES): { relative: number; floor: number } {
  const t = MISMATCH_QUANTITIES[quantity].resumeSpike;
  return "relative" in t ? t : { relative: Number.NaN, floor: Number.NaN };
}
