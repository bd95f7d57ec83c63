/**
 * Rounds of an aligned run set: their order, each label's position and the run id(s) of each round.
 * Every diagnostic table groups records by this index, so an inconsistent record (a round label that
 * is not in `aligned.rounds`) fails here, naming the record.
 */
import type { AlignedRuns, AxisRecord, UpdateRecord } from "../types";
import { profileOfAligned } from "../registry/profiles";
import { updateStepKey } from "../registry/profile-axis";
import { describeRollout, describeUpdate } from "./record-label";

/** Round labels in run order, the position of each label, and the run id(s) of each round. */
export interface RoundIndex {
  rounds: readonly string[];
  position: ReadonlyMap<string, number>;
  /** Run id of each round (several runs of one round joined with "+"), null when no run is listed. */
  runIds: (string | null)[];
  /** The profile's update step key, naming an update in messages (null: updates not observable). */
  updateKey: string | null;
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
  return {
    rounds: aligned.rounds,
    position,
    runIds: ids.map((r) => (r.length ? r.join("+") : null)),
    updateKey: updateStepKey(profileOfAligned(aligned)),
  };
}

/** Position of an update's round; throws naming run and train/step when the round is not in the index. */
export function updateRoundPosition(index: RoundIndex, u: UpdateRecord): number {
  const i = index.position.get(u.round);
  if (i === undefined) throw unknownRound(index, describeUpdate(u, index.updateKey), u.round);
  return i;
}

/** Position of a rollout batch's round; throws naming run and rollout when the round is not in the index. */
export function rolloutRoundPosition(index: RoundIndex, r: AxisRecord): number {
  const i = index.position.get(r.round);
  if (i === undefined) throw unknownRound(index, describeRollout(r), r.round);
  return i;
}

/**
 * A record's round position in `position`, -1 when its round is not there. Records of a round are
 * mostly contiguous, so the previous record's round is tried first: a scan of 10^7 records does
 * few Map look-ups.
 */
export class RoundSlot {
  private last: string | null = null;
  private lastSlot = -1;
  constructor(private readonly position: ReadonlyMap<string, number>) {}

  of(round: string): number {
    if (round !== this.last) {
      this.last = round;
      this.lastSlot = this.position.get(round) ?? -1;
    }
    return this.lastSlot;
  }
}

/** Position of each round label at its first listing (health checks read duplicates as one round; roundIndex refuses them). */
export function firstPositions(rounds: readonly string[]): Map<string, number> {
  const position = new Map<string, number>();
  rounds.forEach((round, i) => {
    if (!position.has(round)) position.set(round, i);
  });
  return position;
}

function unknownRound(index: RoundIndex, where: string, round: string): Error {
  return new Error(`${where}: round ${JSON.stringify(round)} is not in aligned.rounds (${index.rounds.join(", ")})`);
}
