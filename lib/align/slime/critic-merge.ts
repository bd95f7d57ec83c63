/**
 * Critic rows (train/critic-*) merged into the actor's update of the same train/step; critic rows
 * without an actor update (slime's `--num-critic-only-steps`) become critic-only records. Internal to
 * lib/align/slime.
 */
import type { AlignmentNote, RunAxis, UpdateRecord } from "../../types";
import { keysOf } from "../../values/compact-values";
import type { ValuesBuilder } from "../../values/values-builder";
import { namedRanges } from "../axis-report";
import type { RowReader } from "../row-reader";
import { runUpdateNumber } from "./axis-formulas";

/** A critic row's values and its `_step`, by train/step. */
export type CriticRows = Map<number, { values: Record<string, number>; historyStep: number }>;

/** Where {@link mergeCritic} puts what it finds. */
export interface CriticMergeOut {
  notes: AlignmentNote[];
  /** Rollouts for which no actor updates are expected. */
  skip: Set<number>;
  criticOnly: UpdateRecord[];
  updateValues: ValuesBuilder;
}

/** The keys of a critic row that go into the update record (train/critic-*; train/step is the actor's). */
export function criticValues(reader: RowReader, i: number, scratch: number[]): Record<string, number> {
  const out: Record<string, number> = {};
  const keys = reader.read(i, scratch);
  for (let j = 0; j < keys.length; j++) if (keys[j].startsWith("train/critic-")) out[keys[j]] = scratch[j];
  return out;
}

/**
 * Merges critic rows into the update records of their train/step (`updates` from `from` on); critic
 * rows without an actor update become critic-only records, are noted per run of consecutive rollouts,
 * and those rollouts added to `out.skip`.
 */
export function mergeCritic(updates: UpdateRecord[], from: number, critic: CriticRows, axis: RunAxis, out: CriticMergeOut): void {
  if (critic.size === 0) return;
  const { runId, round, n } = axis;
  let merged = 0;
  const actorSteps = new Set<number>();
  for (let k = from; k < updates.length; k++) {
    const u = updates[k];
    actorSteps.add(u.trainStep);
    const c = critic.get(u.trainStep);
    if (c === undefined) continue;
    u.values = mergedValues(out.updateValues, u.values, c.values);
    merged++;
  }
  const only = [...critic.keys()].filter((t) => !actorSteps.has(t)).sort((a, b) => a - b);
  for (const t of only) out.criticOnly.push(criticOnlyRecord(axis, t, critic.get(t)!));
  const actorRollouts = new Set([...actorSteps].map((t) => Math.floor(t / n)));
  const onlyCritic = [...new Set(only.map((t) => Math.floor(t / n)))].filter((r) => !actorRollouts.has(r));
  for (const r of onlyCritic) out.skip.add(r);
  out.notes.push({
    runId,
    round,
    kind: "critic-rows",
    step: null,
    message: `run ${runId} (round ${round}): ${critic.size} critic row(s) (train/critic-*): ${merged} merged into the actor's update of the same train/step; never counted as updates or in the actor's means`,
  });
  if (onlyCritic.length > 0) {
    out.notes.push({
      runId,
      round,
      kind: "critic-only",
      step: onlyCritic[0],
      message: `run ${runId} (round ${round}): ${namedRanges(onlyCritic, "rollout")} trained the critic only (critic rows, no actor rows: slime's --num-critic-only-steps); no actor updates are expected there`,
    });
  }
}

function criticOnlyRecord(axis: RunAxis, t: number, c: { values: Record<string, number>; historyStep: number }): UpdateRecord {
  const { runId, round, n } = axis;
  return {
    runId,
    round,
    trainStep: t,
    update: runUpdateNumber(axis, t),
    rollout: Math.floor(t / n),
    updateInRollout: t % n,
    historyStep: c.historyStep,
    values: { ...c.values, "train/step": t },
  };
}

/** `{ ...a, ...b }` built by `vb` (a view in compact mode, where spreading a view would give nothing). */
function mergedValues(vb: ValuesBuilder, a: Record<string, number>, b: Record<string, number>): Record<string, number> {
  const aKeys = keysOf(a);
  const bKeys = keysOf(b);
  const inA = new Set(aKeys);
  const inB = new Set(bKeys);
  vb.reset();
  for (const k of aKeys) vb.push(k, inB.has(k) ? b[k] : a[k]);
  for (const k of bKeys) if (!inA.has(k)) vb.push(k, b[k]);
  return vb.build();
}
