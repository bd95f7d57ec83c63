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

/** Why single optimizer updates (positions, zero-gradient updates) are not observable for these runs; null when they are. */
export function updatesUnobservable(aligned: { profile?: { name: string } }): string | null {
  const p = profileOfAligned(aligned);
  return p.updates.observable ? null : `${p.label}: ${p.updates.note}`;
}

/** One line saying which framework profile the runs were read with, and why. */
export function profileLine(aligned: { profile?: { name: string; how: string; evidence: string[] } }): string {
  const p = profileOfAligned(aligned);
  const why = aligned.profile === undefined ? "default" : aligned.profile.how === "given" ? "given" : `detected from ${aligned.profile.evidence.join(", ")}`;
  return `framework profile: ${p.label} (${why}); records: ${p.recordNoun}; ${p.updates.note}`;
}
