/** Following runs while they train (docs/follow.md). Re-exports only. */
export { DEFAULT_STALE_SECONDS, ENDED_STATES, Follower } from "./follower";
export type { FollowLoopOptions, FollowOptions, FollowSummary, PollResult } from "./follower";
export { FlagsSeen, readFlagsPrinted } from "./new-flags";
export { DEFAULT_OVERLAP_ROWS } from "./overlap-window";
