/**
 * What a follow reads after a poll (docs/follow.md, "Flags as rounds complete"): one analysis per
 * snapshot, from one alignment. Each running run's last record (a rollout batch, or a logged step)
 * is **open** (rows of it may still come) and left out of the flags view; the exports view (health.csv
 * and the rest, planned with `exports`) holds every record, as `npm run export` writes it, byte for
 * byte. `analyseSnapshot` loads the archive whole for it (the reference the follow's in-memory
 * archive, lib/follow/live-archive.ts, is tested against).
 */
import { checkExportDirs, loadAndAlign, writePlannedExports, type ExportResult } from "../export/write-exports";
import { type ExportPlan, planExports } from "../export/build-exports";
import type { HealthParams } from "../health/health-params";
import { profileOfAligned } from "../registry/profiles";
import { onAxis } from "../registry/profile-axis";
import { type HealthReport, runHealthChecks } from "../health/run-health-checks";
import type { AlignedRuns, Reporter, SourceManifest } from "../types";
import type { AlignRunsOptions } from "../align/align-options";

/** A running run's last record, not analysed until a later record shows it is complete. */
export interface OpenBatch {
  runId: string;
  round: string;
  /**
   * What `rollout` is, from the profile's axis: a rollout id (rollout batches with their optimizer
   * updates), or a logged step (one record per step; single updates not observable, `updates` 0).
   */
  unit: "rollout" | "step";
  /** Its rollout id (a logged step on a step axis). */
  rollout: number;
  /** Rollout records and optimizer updates aligned to it so far. */
  rolloutRecords: number;
  updates: number;
}

/**
 * What one snapshot's analysis found: two views of one alignment. `health` (the flags view, what the
 * follow prints) holds the closed records only; `exports.health` (health.csv) holds every record, as
 * `npm run export` does, and is the same report as `health` when no batch is open.
 */
export interface SnapshotAnalysis {
  /** The health checks over the closed records (open batches left out). */
  health: HealthReport;
  open: OpenBatch[];
  /** The exports written (`exportsDir`), else null. */
  exports: ExportResult | null;
}

/** A snapshot's analysis before its exports are written: the flags view, the open batches, the planned exports (or null). */
export interface PlannedAnalysis {
  health: HealthReport;
  open: OpenBatch[];
  plan: ExportPlan | null;
}

/** Options of `analyseSnapshot`. */
export interface AnalyseOptions {
  /** Health thresholds (default: the declared defaults), as `npm run export` reads them. */
  health?: HealthParams;
  /** Also write the exports of the whole archive here, as `npm run export -- --allow-issues` does. */
  exportsDir?: string;
  reporter?: Reporter;
  /** What the data cannot decide, stated (profile, N, rollout/step reading), as `npm run export` takes it. */
  align?: Pick<AlignRunsOptions, "n" | "alwaysUseTrainStep" | "profile">;
}

/**
 * Each running run's open batch: its highest rollout id among its rollout records and updates.
 * A batch is known complete only once a later one is logged, or once the run ended; a run in any
 * other state than "running" has none.
 * @example openBatches(aligned) // [{ runId: "abc", round: "R2", unit: "rollout", rollout: 47, rolloutRecords: 1, updates: 0 }]
 */
export function openBatches(aligned: AlignedRuns): OpenBatch[] {
  const unit = onAxis(profileOfAligned(aligned).axis, { "batch-updates": () => "rollout" as const, step: () => "step" as const });
  const out: OpenBatch[] = [];
  for (const run of aligned.runs) {
    if (run.state !== "running") continue;
    let last = -Infinity;
    for (const r of aligned.rollouts) if (r.runId === run.runId && r.rollout > last) last = r.rollout;
    for (const u of aligned.updates) if (u.runId === run.runId && u.rollout > last) last = u.rollout;
    if (last === -Infinity) continue;
    const rolloutRecords = aligned.rollouts.filter((r) => r.runId === run.runId && r.rollout === last).length;
    const updates = aligned.updates.filter((u) => u.runId === run.runId && u.rollout === last).length;
    out.push({ runId: run.runId, round: run.round, unit, rollout: last, rolloutRecords, updates });
  }
  return out;
}

/** The aligned runs without the open batches' rollout records, updates and critic-only updates. */
export function closedRecords(aligned: AlignedRuns, open: readonly OpenBatch[]): AlignedRuns {
  if (open.length === 0) return aligned;
  const openAt = new Map(open.map((b) => [b.runId, b.rollout]));
  const closed = (r: { runId: string; rollout: number }) => openAt.get(r.runId) !== r.rollout;
  return {
    ...aligned,
    rollouts: aligned.rollouts.filter(closed),
    updates: aligned.updates.filter(closed),
    criticOnly: aligned.criticOnly.filter(closed),
  };
}

/**
 * The one analysis of a snapshot's alignment: open batches, the health checks over the closed records
 * and, with `exports`, the exports planned from the same alignment. The checks run once over every
 * record when nothing is open; a second time over every record only for health.csv when a batch is.
 * @example const { health, open, plan } = planAnalysis(aligned, { exports: { manifest, reporter } });
 */
export function planAnalysis(
  aligned: AlignedRuns,
  opts: { health?: HealthParams; exports?: { manifest: SourceManifest; reporter: Reporter } },
): PlannedAnalysis {
  const open = openBatches(aligned);
  const health = runHealthChecks(closedRecords(aligned, open), opts.health);
  if (opts.exports === undefined) return { health, open, plan: null };
  const all = open.length === 0 ? health : runHealthChecks(aligned, opts.health);
  const { manifest, reporter } = opts.exports;
  const plan = planExports({ manifest }, aligned, { reporter, allowIssues: true, health: opts.health, healthReport: all });
  return { health, open, plan };
}

/**
 * Loads and aligns the archive in `dataDir` (hashes and snapshot chain verified, as for an export),
 * runs the health checks on its closed records and, with `exportsDir`, writes its exports.
 * @example const { health, open } = await analyseSnapshot("data/live");
 */
export async function analyseSnapshot(dataDir: string, opts: AnalyseOptions = {}): Promise<SnapshotAnalysis> {
  const reporter = opts.reporter ?? {};
  if (opts.exportsDir !== undefined) checkExportDirs(dataDir, opts.exportsDir);
  const { manifest, aligned } = await loadAndAlign({ dataDir, align: opts.align }, reporter);
  const exports = opts.exportsDir === undefined ? undefined : { manifest, reporter };
  const { health, open, plan } = planAnalysis(aligned, { health: opts.health, exports });
  return { health, open, exports: plan === null ? null : await writePlannedExports(opts.exportsDir!, plan) };
}
