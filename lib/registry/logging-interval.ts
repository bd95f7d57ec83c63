/**
 * The logging interval a run's frozen settings give (lib/registry/framework-profile.ts
 * `LoggingInterval`): which steps must have a training row. Coverage (lib/align/steps/) reads it; a run
 * without a known interval is checked against the most common spacing of its records.
 */
import type { LoggingInterval } from "./framework-profile";
import type { RunFlags } from "./semantic-flags";

/** A run's known interval: every `every` steps, step 1 too when `firstStep`; `setting` names where it was read. */
export interface KnownInterval {
  every: number;
  firstStep: boolean;
  setting: string;
}

/**
 * The interval a run logs at, or null when its settings do not say (no interval declared, flags
 * unknown, another logging strategy, or a value that is not a whole number of steps: TRL reads a value
 * below 1 as a fraction of max_steps, which the frozen flags do not hold).
 * @example knownInterval(TRL_PROFILE.axis.interval, { logging_steps: { value: 3, source: "config" } }) // { every: 3, firstStep: false, setting: "logging_steps = 3" }
 */
export function knownInterval(interval: LoggingInterval | undefined, flags: RunFlags | undefined): KnownInterval | null {
  if (interval === undefined || flags === undefined) return null;
  const every = flags[interval.steps]?.value;
  if (typeof every !== "number" || !Number.isInteger(every) || every < 1) return null;
  const s = interval.strategy;
  // A strategy the config does not record is the framework's default, which declares `steps` the rule.
  if (s !== undefined && flags[s.flag] !== undefined && flags[s.flag].value !== s.equals) return null;
  const firstStep = interval.firstStep !== undefined && flags[interval.firstStep]?.value === true;
  return { every, firstStep, setting: `${interval.steps} = ${every}${firstStep ? `, ${interval.firstStep} = true` : ""}` };
}

/** The steps strictly between two logged steps that the interval says must have a row: first, last and how many; null when none. */
export function expectedBetween(k: KnownInterval, after: number, before: number): { first: number; last: number; count: number } | null {
  let first = (Math.floor(after / k.every) + 1) * k.every;
  let last = (Math.ceil(before / k.every) - 1) * k.every;
  let count = first <= last ? (last - first) / k.every + 1 : 0;
  // Step 1 with logging_first_step, unless it is a multiple already (every = 1).
  if (k.firstStep && k.every > 1 && after < 1 && before > 1) {
    first = 1;
    if (count === 0) last = 1;
    count++;
  }
  return count === 0 ? null : { first, last, count };
}
