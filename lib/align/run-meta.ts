/** A run's entry in an alignment (`aligned.runs`), for every aligner. */
import type { AlignedRuns, RunHistory } from "../types";

/** The run's identity, state, frozen row count and, when the archive records them, its semantic flags and versions. */
export function runMetaOf(run: RunHistory, historyEvents: number): AlignedRuns["runs"][number] {
  const meta: AlignedRuns["runs"][number] = { runId: run.runId, round: run.round, state: run.state, historyEvents };
  if (run.flags !== undefined) meta.flags = run.flags;
  if (run.versions !== undefined) meta.versions = run.versions;
  return meta;
}
