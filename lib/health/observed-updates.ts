/**
 * The optimizer updates the update-position checks read (ppo_kl_first_update, ppo_kl_stuck_zero,
 * logprob_gap_jump). A framework that logs each update has them as aligned; one that logs a step's
 * mean over its updates has none, except where every run's frozen settings prove each step is exactly
 * one update (the profile's `updates.onePerRecord`, issue 39 case 6): each record is then that update,
 * at position 0 of its batch, and the checks apply to it.
 */
import { singular, type FrameworkProfile } from "../registry/framework-profile";
import { conditionText, holdsIn, settingsText } from "../registry/semantic-flags";
import type { AlignedRuns, AxisRecord, UpdateRecord } from "../types";

/** The updates and N (updates per batch) the checks read, or why there are none. */
export type ObservedUpdates = { observed: true; updates: UpdateRecord[]; n: number } | { observed: false; reason: string };

/**
 * The runs' optimizer updates as the checks read them.
 * @example observedUpdates(aligned, VERL_PROFILE).observed // false unless ppo_epochs 1 and ppo_mini_batch_size = train_batch_size in every run
 */
export function observedUpdates(aligned: AlignedRuns, profile: FrameworkProfile): ObservedUpdates {
  if (profile.updates.observable) return { observed: true, updates: aligned.updates, n: aligned.mapping.n };
  const averaged = `${profile.label}: ${profile.updates.note}`;
  const one = profile.updates.onePerRecord;
  if (one === undefined) return { observed: false, reason: averaged };
  const others = aligned.runs.filter((r) => holdsIn(one.when, r) !== "yes");
  if (others.length > 0) {
    const settings = others.map((r) => `run ${r.runId} (round ${r.round}): ${settingsText(one.when, r)}`).join("; ");
    return { observed: false, reason: `${averaged}; each ${singular(profile.recordNoun)} is one update only when ${conditionText(one.when)} (${settings})` };
  }
  return { observed: true, updates: aligned.rollouts.map(recordAsUpdate), n: 1 };
}

/** A record that is exactly one optimizer update: numbered by its step, the first (and only) of its batch. */
function recordAsUpdate(r: AxisRecord): UpdateRecord {
  return {
    runId: r.runId,
    round: r.round,
    trainStep: r.rollout,
    update: r.rollout,
    rollout: r.rollout,
    updateInRollout: 0,
    historyStep: r.historySteps[0],
    values: r.values,
  };
}
