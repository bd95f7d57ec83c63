/**
 * A small hand-made AlignedRuns for figure tests: two rounds, N = 2 updates per rollout batch,
 * r0 = 1. R0 owns rollouts 1-2 and updates 1-4 (train/step 2-5), R1 rollouts 3-4 and updates 5-8.
 * update = train/step - 2*1 + 1, rollout = floor(train/step / 2), position = train/step mod 2.
 */
import type { AlignedRuns, AxisRecord, UpdateRecord } from "../../lib/types";

/** Per-update values by display update number (absent key = not logged). */
const UPDATE_VALUES: Record<number, Record<string, number>> = {
  1: { "train/grad_norm": 2.5, "train/ppo_kl": 0, "train/entropy_loss": 0.2 },
  2: { "train/grad_norm": 2.0, "train/ppo_kl": 0.02, "train/entropy_loss": 0.19 },
  3: { "train/ppo_kl": 0, "train/entropy_loss": 0.18 }, // grad_norm not logged
  4: { "train/grad_norm": 1.5, "train/ppo_kl": 0.04, "train/entropy_loss": 0.17 },
  5: { "train/grad_norm": 1.25, "train/ppo_kl": 0, "train/entropy_loss": 0.16 },
  6: { "train/grad_norm": 0, "train/ppo_kl": 0.06, "train/entropy_loss": 0.15 },
  7: { "train/grad_norm": NaN, "train/ppo_kl": 0, "train/entropy_loss": 0.14 },
  8: { "train/grad_norm": 1.0, "train/ppo_kl": 0.08, "train/entropy_loss": 0.13 },
};

/** Per-rollout values by rollout id. */
const ROLLOUT_VALUES: Record<number, Record<string, number>> = {
  1: { "rollout/response_len/mean": 280, "rollout/response_len/min": 10, "rollout/response_len/max": 900, "perf/rollout_time": 230 },
  2: { "rollout/response_len/mean": 290, "rollout/response_len/min": 12, "rollout/response_len/max": 1000, "perf/rollout_time": 240 },
  3: { "rollout/response_len/mean": 250, "rollout/response_len/min": 8, "rollout/response_len/max": 950, "perf/rollout_time": 210 },
  4: { "rollout/response_len/min": 9, "rollout/response_len/max": 990, "perf/rollout_time": Infinity }, // mean missing
};

/** Build the fixture; `shuffle` reverses record order to check that builders sort. */
export function alignedFixture(shuffle = false): AlignedRuns {
  const runOf = (round: number) => (round === 0 ? { runId: "synth-r0", round: "R0" } : { runId: "synth-r1", round: "R1" });
  const updates: UpdateRecord[] = [];
  for (let update = 1; update <= 8; update++) {
    const trainStep = update + 1;
    updates.push({
      ...runOf(update <= 4 ? 0 : 1),
      trainStep,
      update,
      rollout: Math.floor(trainStep / 2),
      updateInRollout: trainStep % 2,
      historyStep: 100 + update,
      values: { ...UPDATE_VALUES[update], "train/step": trainStep },
    });
  }
  const rollouts: AxisRecord[] = [];
  for (let rollout = 1; rollout <= 4; rollout++) {
    rollouts.push({ ...runOf(rollout <= 2 ? 0 : 1), rollout, historySteps: [rollout * 3], values: { ...ROLLOUT_VALUES[rollout], "rollout/step": rollout } });
  }
  if (shuffle) {
    updates.reverse();
    rollouts.reverse();
  }
  return {
    mapping: { n: 2, r0: 1, formulas: { update: "train/step - 2*1 + 1", rollout: "floor(train/step / 2)", updateInRollout: "train/step mod 2" }, runs: [] },
    rounds: ["R0", "R1"],
    runs: [
      { runId: "synth-r0", round: "R0", state: "finished", historyEvents: 10 },
      { runId: "synth-r1", round: "R1", state: "finished", historyEvents: 10 },
    ],
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
