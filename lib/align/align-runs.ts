/**
 * The aligner: detects the runs' framework profile and hands them to the aligner its axis declares
 * (slime/: rollout batches and optimizer updates from explicit step keys; steps/: one record per
 * logged step), then guards the result against superseding that takes more than it keeps.
 */
import type { AlignedRuns, RunHistory } from "../types";
import type { AlignRunsOptions } from "./align-options";
import { detectProfile } from "../registry/detect-profile";
import { tensorboardAsLogged } from "../tensorboard/step-rows";
import { mappedKeys } from "../registry/framework-profile";
import { alignSlimeRuns } from "./slime/align-slime";
import { alignSteps } from "./steps/align-steps";
import { supersedingIssues } from "./superseding-guard";
import { versionBoundsOf } from "./version-bounds";

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
  const detected = runs.length === 0 && opts.profile === undefined ? null : detectProfile(runs, opts.profile);
  const profile = detected === null ? undefined : { name: detected.profile.name, how: detected.how, evidence: detected.evidence };
  let aligned: AlignedRuns;
  // Runs read from TensorBoard (one row per step) are read as the profile declares (lib/tensorboard/step-rows.ts).
  const asLogged = detected === null ? runs : runs.map((r) => tensorboardAsLogged(r, detected.profile));
  // Read before the rows can be released: the keys a run logs settle version conditions on every source.
  const bounds = runs.map((r) => versionBoundsOf(r, detected?.profile.versionKeys ?? []));
  if (detected !== null && detected.profile.axis.kind === "step") {
    aligned = alignSteps(asLogged, detected.profile, { reporter, memo: opts.memo });
    // TensorBoard runs count their frozen rows (one per step), not the rows split out for alignment.
    aligned.runs.forEach((r, i) => {
      if (runs[i].sourceKind === "tensorboard") r.historyEvents = runs[i].rows.length;
    });
    // Step records copy their values, so the rows can go once all are aligned (slime runs go one by one).
    if (opts.releaseRows) for (const run of runs) run.rows = [];
  } else {
    const axis = detected?.profile.axis;
    const ownRows = axis !== undefined && axis.kind !== "step" ? axis.ownRows : [];
    aligned = alignSlimeRuns(runs, opts, detected === null ? [] : mappedKeys(detected.profile), ownRows);
  }
  aligned.runs.forEach((r, i) => {
    if (bounds[i].length > 0) r.versionBounds = bounds[i];
  });
  const guard = supersedingIssues(aligned, aligned.keyRows ?? []);
  for (const x of guard) reporter?.warn?.(`${x.kind}: ${x.message}`);
  return { ...aligned, issues: aligned.issues.concat(guard), profile };
}

export type { AlignRunsOptions } from "./align-options";
