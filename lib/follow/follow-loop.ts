/**
 * The loop of a follow (docs/follow.md): polls every interval until the stop rule holds or the signal
 * aborts, a failed poll reported and retried at the next interval. What one poll does is the
 * follower's (follower.ts); this module only decides when to poll and when to stop.
 */
import { setTimeout as sleep } from "node:timers/promises";

import type { Reporter } from "../types";

/** What one poll did. */
export interface PollResult {
  /** The snapshot written, or null when no run changed (the last snapshot stands). */
  sequence: number | null;
  /** When the poll began (the snapshot's `takenAt`). */
  takenAt: string;
  /** Rows each run gained in this snapshot. */
  rowsAdded: Record<string, number>;
  /** Each run's state as read by this poll. */
  states: Record<string, string>;
  /** Every run is finished, failed, crashed, killed or deleted, or a `.wandb` log with no writes for the stale time. */
  ended: boolean;
  /** `.wandb` runs without an exit record and without writes for the stale time (called crashed when the follow ends). */
  stale: string[];
}

/** How `follow` polls and when it stops. */
export interface FollowLoopOptions {
  intervalSeconds: number;
  /** "finished": until every run ended (then one last poll must find nothing new); or a number of polls. */
  until: "finished" | { polls: number };
  signal?: AbortSignal;
  /** Called after each poll that did not fail (the CLI prints and rebuilds reports here). */
  onPoll?: (result: PollResult, poll: number) => void | Promise<void>;
}

/** How a follow ended. */
export interface FollowSummary {
  polls: number;
  failedPolls: number;
  snapshots: number;
  /** Why it stopped: every run ended, the poll count was reached, or it was interrupted. */
  stopped: "ended" | "polls" | "interrupted";
}

/** What the loop polls: one poll (the last one of a follow with `final`), and the snapshot the archive keeps. */
export interface Pollable {
  poll(signal: AbortSignal | undefined, final: boolean): Promise<PollResult>;
  /** The last snapshot's sequence (0 before any), named when a poll fails. */
  lastSequence(): number;
}

/**
 * Polls `target` every `intervalSeconds` until the stop rule holds or `loop.signal` aborts.
 * @example await followLoop(follower, { intervalSeconds: 60, until: "finished" }, reporter)
 */
export async function followLoop(target: Pollable, loop: FollowLoopOptions, reporter: Reporter): Promise<FollowSummary> {
  if (!(loop.intervalSeconds >= 0) || !Number.isFinite(loop.intervalSeconds)) throw new Error(`invalid interval: ${loop.intervalSeconds}`);
  const limit = loop.until === "finished" ? Infinity : loop.until.polls;
  if (loop.until !== "finished" && (!Number.isInteger(limit) || limit < 1)) throw new Error(`invalid polls: ${limit}`);
  const summary: FollowSummary = { polls: 0, failedPolls: 0, snapshots: 0, stopped: "polls" };
  const pollOnce = (final = false) => pollCounted(target, loop, summary, reporter, final);
  let endedBefore = false;
  let last: PollResult | null = null;
  while (summary.polls < limit) {
    if (loop.signal?.aborted) return { ...summary, stopped: "interrupted" };
    const result = await pollOnce();
    if (loop.signal?.aborted) return { ...summary, stopped: "interrupted" };
    if (result && loop.until === "finished" && result.ended) {
      // One more poll after every run ended must find nothing new: the last full completeness check.
      if (endedBefore && result.sequence === null) return finish(pollOnce, summary, result, "ended");
      endedBefore = true;
      continue;
    }
    endedBefore = false;
    if (summary.polls < limit) await sleep(loop.intervalSeconds * 1000, undefined, { signal: loop.signal }).catch(() => undefined);
    last = result ?? last;
  }
  return finish(pollOnce, summary, last, "polls");
}

/** The end of a follow: `.wandb` runs still without writes are called crashed in one last snapshot. */
async function finish(
  pollOnce: (final: boolean) => Promise<PollResult | null>,
  summary: FollowSummary,
  last: PollResult | null,
  stopped: FollowSummary["stopped"],
): Promise<FollowSummary> {
  if (last !== null && last.stale.length > 0) await pollOnce(true);
  return { ...summary, stopped };
}

/** One poll of the loop: counted, reported through `onPoll`, a failure turned into a warning. */
async function pollCounted(target: Pollable, loop: FollowLoopOptions, summary: FollowSummary, reporter: Reporter, final: boolean): Promise<PollResult | null> {
  summary.polls++;
  try {
    const result = await target.poll(loop.signal, final);
    if (result.sequence !== null) summary.snapshots++;
    await loop.onPoll?.(result, summary.polls);
    return result;
  } catch (e) {
    if (loop.signal?.aborted) return null;
    summary.failedPolls++;
    reporter.warn?.(
      `poll ${summary.polls} failed: ${(e as Error).message}; the archive keeps snapshot ${target.lastSequence()}, retrying in ${loop.intervalSeconds} s`,
    );
    return null;
  }
}
