/**
 * The shapes of a profile's axis (`ProfileAxis`: how rows become records) and the one way code outside
 * an aligner branches on them: `onAxis` takes a handler for every kind, so a new kind is a type error
 * at every branch until each handles it. Nothing outside this file compares `axis.kind`
 * (test/registry/profile-axis.test.ts pins both).
 */
import type { FrameworkProfile, ProfileAxis } from "./framework-profile";

/** The axis kinds, named by their shape: rollout batches of optimizer updates, or one record per logged step. */
export type AxisKind = ProfileAxis["kind"];

/** The axis of one kind. */
export type AxisOfKind<K extends AxisKind> = Extract<ProfileAxis, { kind: K }>;

/** One handler per kind of an axis union, each given its axis narrowed. */
export type AxisCasesOf<A extends { kind: string }, R> = { [K in A["kind"]]: (axis: Extract<A, { kind: K }>) => R };

/** One handler per axis kind of ProfileAxis: a kind added there is missing here until handled. */
export type AxisCases<R> = AxisCasesOf<ProfileAxis, R>;

/**
 * The handler of the axis's kind, applied to it.
 * @example onAxis(profile.axis, { "batch-updates": (a) => a.keys.rollout, step: (a) => a.stepKey })
 */
export function onAxis<R>(axis: ProfileAxis, cases: AxisCases<R>): R {
  switch (axis.kind) {
    case "batch-updates":
      return cases["batch-updates"](axis);
    case "step":
      return cases.step(axis);
    default:
      return unhandledAxis(axis);
  }
}

/** The end of an exhaustive switch over axis kinds: `axis` is `never` there until a new kind is added. */
export function unhandledAxis(axis: never): never {
  throw new Error(`invalid axis: ${JSON.stringify(axis)}`);
}

/** The profile's step axis, or null for a profile of another kind (for code that reads only step axes). */
export function stepAxisOf(profile: FrameworkProfile): AxisOfKind<"step"> | null {
  return onAxis<AxisOfKind<"step"> | null>(profile.axis, { "batch-updates": () => null, step: (a) => a });
}

/** The key that numbers the framework's records: the step key of a step axis, the rollout key of a batch axis. */
export function recordStepKey(profile: FrameworkProfile): string {
  return onAxis(profile.axis, { "batch-updates": (a) => a.keys.rollout, step: (a) => a.stepKey });
}

/** The key that numbers single optimizer updates, or null where they are not observable (a step axis). */
export function updateStepKey(profile: FrameworkProfile): string | null {
  return onAxis(profile.axis, { "batch-updates": (a) => a.keys.update, step: () => null });
}

/** The step keys the framework declares for its records and updates, in that order (`_step` is none of them). */
export function declaredStepKeys(profile: FrameworkProfile): string[] {
  const update = updateStepKey(profile);
  return update === null ? [recordStepKey(profile)] : [recordStepKey(profile), update];
}
