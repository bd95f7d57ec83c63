/** The framework profiles, by name. Adding a framework is one profile file plus its entry here. */
import type { FrameworkProfile } from "./framework-profile";
import { OPENRLHF_PROFILE } from "./profile-openrlhf";
import { SLIME_PROFILE } from "./profile-slime";
import { TRL_PROFILE } from "./profile-trl";
import { VERL_PROFILE } from "./profile-verl";

/** Every profile, in detection order. */
export const PROFILES: readonly FrameworkProfile[] = [SLIME_PROFILE, VERL_PROFILE, OPENRLHF_PROFILE, TRL_PROFILE];

/** Profile names. */
export type ProfileName = FrameworkProfile["name"];

/** The profile of a name; `invalid profile: <name>` otherwise. */
export function profileByName(name: string): FrameworkProfile {
  const p = PROFILES.find((x) => x.name === name);
  if (p === undefined) throw new Error(`invalid profile: ${name} (one of ${PROFILES.map((x) => x.name).join(", ")})`);
  return p;
}

/** The profile aligned records were read with (slime when alignment did not record one). */
export function profileOfAligned(aligned: { profile?: { name: string } }): FrameworkProfile {
  return aligned.profile === undefined ? SLIME_PROFILE : profileByName(aligned.profile.name);
}
