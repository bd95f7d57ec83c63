/**
 * Tiny builder of AlignedRuns for diagnostics tests: rounds of rollout batches, each batch a
 * rollout record (or none) and its updates. Rollout ids run on from r0 across rounds; train/step,
 * display update number and position follow slime's arithmetic with N updates per batch.
 */
import type { AlignedRuns, AxisRecord, UpdateRecord } from "../../lib/types";

/** One rollout batch: the merged rollout values (null = no rollout record) and its update values. */
export interface BatchSpec {
  rollout?: Record<string, number> | null;
  updates?: Record<string, number>[];
}

/** One round: label, run id (default `syn-<round>`), batches in order. */
export interface RoundSpec {
  round: string;
  runId?: string;
  batches: BatchSpec[];
}

/** Build AlignedRuns from rounds of batches (N = opts.n, default 2; first rollout id opts.r0, default 1). */
export function buildAligned(rounds: RoundSpec[], opts: { n?: number; r0?: number } = {}): AlignedRuns {
  const n = opts.n ?? 2;
  const r0 = opts.r0 ?? 1;
  const rollouts: AxisRecord[] = [];
  const updates: UpdateRecord[] = [];
  let rollout = r0;
  let step = 0;
  for (const spec of rounds) {
    const runId = spec.runId ?? `syn-${spec.round.toLowerCase()}`;
    for (const batch of spec.batches) {
      if (batch.rollout) rollouts.push({ runId, round: spec.round, rollout, historySteps: [step++, step++], values: batch.rollout });
      (batch.updates ?? []).forEach((values, i) => {
        if (i >= n) throw new Error(`builder: batch of rollout ${rollout} has more than N = ${n} updates`);
        const trainStep = rollout * n + i;
        updates.push({
          runId,
          round: spec.round,
          trainStep,
          update: trainStep - n * r0 + 1,
          rollout,
          updateInRollout: i,
          historyStep: step++,
          values,
        });
      });
      rollout++;
    }
  }
  return {
    mapping: { n, r0, formulas: { update: "", rollout: "", updateInRollout: "" }, runs: [] },
    rounds: rounds.map((r) => r.round),
    runs: rounds.map((r) => ({ runId: r.runId ?? `syn-${r.round.toLowerCase()}`, round: r.round, state: "finished", historyEvents: 0 })),
    rollouts,
    updates,
    evals: [],
    superseded: [],
    criticOnly: [],
    coverage: [],
    issues: [],
    notes: [],
    profile: { name: "slime", how: "given" as const, evidence: [] },
  };
}

/** A reporter that collects warnings, for counting them. */
export function collectingReporter(): { warnings: string[]; warn(message: string): void } {
  const warnings: string[] = [];
  return { warnings, warn: (m: string) => void warnings.push(m) };
}

/** Assert-friendly closeness with an explicit tolerance. */
export function close(actual: number | null, expected: number, tol = 1e-12): boolean {
  return actual !== null && Math.abs(actual - expected) <= tol;
}
