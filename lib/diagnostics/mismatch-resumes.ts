/**
 * Where a run set restarted, and the jump of a mismatch metric there. Restarts come from the
 * superseding model (lib/align): every round after the first is a new process resumed from a
 * checkpoint, and a run whose later logging re-logged rollouts it had logged (`aligned.superseded`
 * with the run superseding itself) was resumed in place at the first re-logged rollout. The jump
 * is the first point after the restart minus the mean of up to `window` points before it (in
 * round order): one batch against a short level, never a test of a change.
 */
import type { AlignedRuns } from "../types";
import type { MismatchPoint, MismatchSeries } from "./mismatch-series";

/** One restart of the run set. */
export interface ResumePoint {
  round: string;
  runId: string;
  kind: "new round" | "resumed in place";
  /** For a resume in place, the first re-logged rollout id (or step); null for a new round (its first point). */
  from: number | null;
  /** One sentence: what the restart is and how it is known. */
  text: string;
}

/** Restarts in run order: each round after the first, and each resume in place the superseded records show. */
export function resumePoints(aligned: AlignedRuns): ResumePoint[] {
  const out: ResumePoint[] = [];
  aligned.runs.forEach((run, i) => {
    const previous = aligned.runs[i - 1];
    if (i > 0 && previous.round !== run.round) {
      out.push({
        round: run.round,
        runId: run.runId,
        kind: "new round",
        from: null,
        text: `round ${run.round} (run ${run.runId}) is a new process resumed from a checkpoint after round ${previous.round}`,
      });
    }
    for (const s of aligned.superseded) {
      if (s.runId !== run.runId || s.byRunId !== run.runId || s.rollouts.length === 0) continue;
      out.push({
        round: run.round,
        runId: run.runId,
        kind: "resumed in place",
        from: s.rollouts[0],
        text: `run ${run.runId} (round ${run.round}) was resumed in place: it re-logged from ${s.rollouts[0]} on (superseded records)`,
      });
    }
  });
  return out;
}

/** The jump of one series at one restart. */
export interface ResumeJump {
  resume: ResumePoint;
  /** Mean of the points before the restart (up to `window`), null when there is none. */
  before: number | null;
  /** Points averaged into `before`. */
  beforePoints: number;
  /** The first point after the restart, null when the resumed logging has none. */
  after: MismatchPoint | null;
  /** after - before; null when either is missing. */
  jump: number | null;
  /** jump / |before|; null when the jump is or before is 0. */
  relative: number | null;
}

/**
 * The series' jump at each restart: its first point after the restart against the mean of up to
 * `window` points before it.
 * @example resumeJumps(series, resumePoints(aligned), 3).map((j) => j.jump)
 */
export function resumeJumps(s: MismatchSeries, resumes: readonly ResumePoint[], window: number): ResumeJump[] {
  if (!Number.isInteger(window) || window < 1) throw new Error(`invalid window: ${window} (an integer >= 1)`);
  return resumes.map((resume) => {
    const at = firstIndexAfter(s.points, resume);
    const after = at < 0 ? null : s.points[at];
    const from = at < 0 ? 0 : Math.max(0, at - window);
    const prior = at < 0 ? [] : s.points.slice(from, at);
    const before = prior.length === 0 ? null : prior.reduce((a, p) => a + p.value, 0) / prior.length;
    const jump = after === null || before === null ? null : after.value - before;
    const relative = jump === null || before === null || before === 0 ? null : jump / Math.abs(before);
    return { resume, before, beforePoints: prior.length, after, jump, relative };
  });
}

/** Index of the first point the restart's logging owns, -1 when it has none. */
function firstIndexAfter(points: readonly MismatchPoint[], r: ResumePoint): number {
  if (r.kind === "new round") return points.findIndex((p) => p.round === r.round);
  return points.findIndex((p) => p.round === r.round && p.runId === r.runId && p.x >= (r.from as number));
}
