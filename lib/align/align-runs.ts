/**
 * The aligner: detects the runs' framework profile and hands them to the aligner its axis declares
 * (slime/: rollout batches and optimizer updates from explicit step keys; steps/: one record per
 * logged step), then guards the result against superseding that takes more than it keeps.
 */
import type { AlignedRuns, AxisAlignment, RunHistory } from "../types";
import type { AlignRunsOptions } from "./align-options";
import { detectProfile } from "../registry/detect-profile";
import { tensorboardAsLogged } from "../tensorboard/step-rows";
import { mappedKeys, type FrameworkProfile } from "../registry/framework-profile";
import { onAxis } from "../registry/profile-axis";
import { alignSlimeRuns } from "./slime/align-slime";
import { alignSteps } from "./steps/align-steps";
import { supersedingIssues } from "./superseding-guard";
import { versionBoundsOf } from "./version-bounds";
import { releaseRows } from "../values/packed-run";

/**
 * Aligns runs given in round order into update, rollout and eval records with coverage and issues.
 * Rows of one rollout batch (manager, trainer rollout, trainer perf) merge into one record; a key
 * with different values in two of them is left out and reported (`conflicting-values`). Critic rows
 * merge into the update of their train/step. Superseded rows are listed in `superseded`, not in the records.
 * @example const aligned = alignRuns(archive.runs); assertAligned(aligned);
 */
export function alignRuns(runs: RunHistory[], opts: AlignRunsOptions = {}): AlignedRuns {
  const reporter = opts.reporter;
  const seen = new Set<string>();
  for (const r of runs) {
    if (seen.has(r.runId)) throw new Error(`invalid runs: run ${r.runId} is listed twice`);
    seen.add(r.runId);
  }
  // No runs decide no framework: reading them as any one would be a guess (archives are refused empty before this).
  if (runs.length === 0 && opts.profile === undefined) throw new Error("invalid runs: no runs to align and no profile named");
  const detected = detectProfile(runs, opts.profile);
  const profile = { name: detected.profile.name, how: detected.how, evidence: detected.evidence };
  // Read before the rows can be released: the keys a run logs settle version conditions on every source.
  const bounds = runs.map((r) => versionBoundsOf(r, detected.profile.versionKeys ?? []));
  // TensorBoard runs (one row per step) as the profile declares them; refused where it declares none.
  const asLogged = runs.map((r) => (r.sourceKind === "tensorboard" ? tensorboardAsLogged(r, detected.profile) : r));
  const aligned = onAxis<AxisAlignment>(detected.profile.axis, {
    "batch-updates": (axis) => alignSlimeRuns(runs, opts, mappedKeys(detected.profile), axis.ownRows),
    step: () => alignStepRuns(runs, asLogged, detected.profile, opts),
  });
  aligned.runs.forEach((r, i) => {
    if (bounds[i].length > 0) r.versionBounds = bounds[i];
  });
  const guard = supersedingIssues(aligned, aligned.keyRows ?? []);
  for (const x of guard) reporter?.warn?.(`${x.kind}: ${x.message}`);
  return { ...aligned, issues: aligned.issues.concat(guard), profile };
}

/** Runs of a step profile, `asLogged` their rows as W&B logs them (TensorBoard runs reshaped). */
function alignStepRuns(runs: RunHistory[], asLogged: RunHistory[], profile: FrameworkProfile, opts: AlignRunsOptions): AxisAlignment {
  const aligned = alignSteps(asLogged, profile, { reporter: opts.reporter, memo: opts.memo });
  // TensorBoard runs count their frozen rows (one per step), not the rows split out for alignment.
  aligned.runs.forEach((r, i) => {
    if (runs[i].sourceKind === "tensorboard") r.historyEvents = runs[i].rows.length;
  });
  // Step records copy their values, so the rows can go once all are aligned (slime runs go one by one).
  if (opts.releaseRows) for (const run of runs) releaseRows(run);
  return aligned;
}

export type { AlignRunsOptions } from "./align-options";
