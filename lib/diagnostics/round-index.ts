/**
 * Rounds of an aligned run set: their order, each label's position and the run id(s) of each round.
 * Every diagnostic table groups records by this index, so an inconsistent record (a round label that
 * is not in `aligned.rounds`) fails here, naming the record.
 */
import type { AlignedRuns, RolloutRecord, UpdateRecord } from "../types";
import { describeRollout, describeUpdate } from "./record-label";

/** Round labels in run order, the position of each label, and the run id(s) of each round. */
export interface RoundIndex {
  rounds: readonly string[];
  position: ReadonlyMap<string, number>;
  /** Run id of each round (several runs of one round joined with "+"), null when no run is listed. */
  runIds: (string | null)[];
}

/** Index the rounds of `aligned`; throws when a round label repeats. */
export function roundIndex(aligned: AlignedRuns): RoundIndex {
  const position = new Map<string, number>();
  aligned.rounds.forEach((round, i) => {
    if (position.has(round)) throw new Error(`invalid aligned.rounds: round ${round} is listed twice`);
    position.set(round, i);
  });
  const ids: string[][] = aligned.rounds.map(() => []);
  for (const run of aligned.runs) {
    const i = position.get(run.round);
    if (i !== undefined && !ids[i].includes(run.runId)) ids[i].push(run.runId);
  }
  return { rounds: aligned.rounds, position, runIds: ids.map((r) => (r.length ? r.join("+") : null)) };
}

/** Position of an update's round; throws naming run and train/step when the round is not in the index. */
export function updateRoundPosition(index: RoundIndex, u: UpdateRecord): number {
  const i = index.position.get(u.round);
  if (i === undefined) throw unknownRound(index, describeUpdate(u), u.round);
  return i;
}

/** Position of a rollout batch's round; throws naming run and rollout when the round is not in the index. */
export function rolloutRoundPosition(index: RoundIndex, r: RolloutRecord): number {
  const i = index.position.get(r.round);
  if (i === undefined) throw unknownRound(index, describeRollout(r), r.round);
  return i;
}

function unknownRound(index: RoundIndex, where: string, round: string): Error {
  return new Error(`${where}: round ${JSON.stringify(round)} is not in aligned.rounds (${index.rounds.join(", ")})`);
}
