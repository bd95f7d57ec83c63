/** The framework profiles, by name. Adding a framework is one profile file plus its entry here. */
import type { MetricSpec } from "./metric-spec";
import type { ConceptId } from "./concepts";
import { absentReason, metricOf, type FrameworkProfile } from "./framework-profile";
import { MILES_PROFILE } from "./profile-miles";
import { runsWhereHolds, type RunFlags, type SemanticFlag } from "./semantic-flags";
import { OPENRLHF_PROFILE } from "./profile-openrlhf";
import { SLIME_PROFILE } from "./profile-slime";
import { TRL_PROFILE } from "./profile-trl";
import { VERL_PROFILE } from "./profile-verl";

/** Every profile, in registry order. Adding a framework: its profile file, and its entry here. */
export const PROFILES = [SLIME_PROFILE, MILES_PROFILE, VERL_PROFILE, OPENRLHF_PROFILE, TRL_PROFILE] as const;

/** A framework profile's name: one union, derived from the list. */
export type ProfileName = (typeof PROFILES)[number]["name"];

/** The profiles' names, in registry order. */
export const PROFILE_NAMES: readonly ProfileName[] = PROFILES.map((p) => p.name);

/** Every profile's declared flags, once per name (the allow-list a freeze reads a config with, before the profile is known). */
export function allDeclaredFlags(): SemanticFlag[] {
  const seen = new Map<string, SemanticFlag>();
  for (const p of PROFILES) for (const f of p.flags) if (!seen.has(f.name)) seen.set(f.name, f);
  return [...seen.values()];
}

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

/**
 * The metric of a concept under the profile the records were read with, with the reading rule the
 * runs' semantic flags make hold: a conditional meaning that holds in every run replaces the rule; one
 * that holds in some runs only is added, naming them. Throws naming the profile and why when it logs
 * none (callers reach here only for concepts the profile maps).
 */
export function metricOfAligned(
  aligned: { profile?: { name: string }; runs?: readonly { runId: string; flags?: RunFlags }[] },
  concept: ConceptId,
): MetricSpec {
  const p = profileOfAligned(aligned);
  const m = metricOf(p, concept);
  if (m === null) throw new Error(`invalid concept: ${absentReason(p, concept)}`);
  const runs = aligned.runs ?? [];
  for (const meaning of p.meanings) {
    if (meaning.concept?.id !== concept) continue;
    const holds = runsWhereHolds(meaning, runs);
    if (holds.length === 0) continue;
    if (holds.length === runs.length) return { ...m, is: meaning.concept.is, isNot: meaning.concept.isNot };
    const which = holds.map((r) => r.runId).join(", ");
    return {
      ...m,
      isNot: `${m.isNot}; in run${holds.length === 1 ? "" : "s"} ${which} (${meaning.when.flag} = ${String(meaning.when.equals)}): ${meaning.concept.is}`,
    };
  }
  return m;
}

/** Why single optimizer updates (positions, zero-gradient updates) are not observable for these runs; null when they are. */
export function updatesUnobservable(aligned: { profile?: { name: string } }): string | null {
  const p = profileOfAligned(aligned);
  return p.updates.observable ? null : `${p.label}: ${p.updates.note}`;
}

/**
 * One line per run on the semantic flags its meanings were read with: the profile's declared flags
 * found in its config, or "flags unknown" (no config was read: metrics keep their default meaning).
 */
export function flagsLines(aligned: { profile?: { name: string }; runs: readonly { runId: string; round: string; flags?: RunFlags }[] }): string[] {
  const p = profileOfAligned(aligned);
  return aligned.runs.map((r) => {
    if (r.flags === undefined) return `flags of run ${r.runId} (round ${r.round}): unknown (no config was read); metrics keep their default meaning`;
    const own = p.flags.filter((f) => r.flags![f.name] !== undefined).map((f) => `${f.name} = ${String(r.flags![f.name].value)}`);
    return `flags of run ${r.runId} (round ${r.round}): ${own.length > 0 ? own.join(", ") : `none of the ${p.label} flags set in its config`}`;
  });
}

/** One line saying which framework profile the runs were read with, and why. */
export function profileLine(aligned: { profile?: { name: string; how: string; evidence: string[] } }): string {
  const p = profileOfAligned(aligned);
  const why = aligned.profile === undefined ? "default" : aligned.profile.how === "given" ? "given" : `detected from ${aligned.profile.evidence.join(", ")}`;
  return `framework profile: ${p.label} (${why}); records: ${p.recordNoun}; ${p.updates.note}`;
}
