/** The framework profiles, by name. Adding a framework is one profile file plus its entry here. */
import type { MetricSpec } from "./metric-spec";
import type { ConceptId } from "./concepts";
import { absentReason, metricOf, singular, type FrameworkProfile } from "./framework-profile";
import { MILES_PROFILE } from "./profile-miles";
import { conditionText, runsWhereHolds, runsWhereMayHold, type ConditionRun, type SemanticFlag } from "./semantic-flags";
import { RECORDED_VERSIONS } from "./versions";
import { OPENRLHF_PROFILE } from "./profile-openrlhf";
import { SLIME_PROFILE } from "./profile-slime";
import { recordStepKey } from "./profile-axis";
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

/** Every profile's pip package: the only lines of a run's requirements.txt ever read. */
export function allDeclaredPackages(): string[] {
  return PROFILES.map((p) => p.package);
}

/** Every package whose version the archive keeps: those W&B records, then the profiles'. */
export function allVersionPackages(): string[] {
  return [...RECORDED_VERSIONS.map((v) => v.package), ...allDeclaredPackages()];
}

/** Every profile's TensorBoard config text tag: the only text summaries ever read (as JSON, for the declared flags). */
export function allConfigTextTags(): string[] {
  return [...new Set(PROFILES.flatMap((p) => (p.tensorboard.configText ? [p.tensorboard.configText] : [])))];
}

/** The profile of a name; `invalid profile: <name>` otherwise. */
export function profileByName(name: string): FrameworkProfile {
  const p = PROFILES.find((x) => x.name === name);
  if (p === undefined) throw new Error(`invalid profile: ${name} (one of ${PROFILES.map((x) => x.name).join(", ")})`);
  return p;
}

/** The profile aligned records were read with (alignRuns always names one). */
export function profileOfAligned(aligned: { profile: { name: string } }): FrameworkProfile {
  return profileByName(aligned.profile.name);
}

/**
 * The metric of a concept under the profile the records were read with, with the reading rule the
 * runs' semantic flags make hold: a conditional meaning that holds in every run replaces the rule; one
 * that holds in some runs only is added, naming them. Throws naming the profile and why when it logs
 * none (callers reach here only for concepts the profile maps).
 */
export function metricOfAligned(aligned: { profile: { name: string }; runs?: readonly ({ runId: string } & ConditionRun)[] }, concept: ConceptId): MetricSpec {
  const p = profileOfAligned(aligned);
  const m = metricOf(p, concept);
  if (m === null) throw new Error(`invalid concept: ${absentReason(p, concept)}`);
  const runs = aligned.runs ?? [];
  // Several meanings can hold in every run at once (OpenRLHF's length penalties and dynamic filtering): all are said.
  const full: { is: string; isNot: string }[] = [];
  const some: string[] = [];
  for (const meaning of p.meanings) {
    if (meaning.concept?.id !== concept) continue;
    const holds = runsWhereHolds(meaning, runs);
    const may = runsWhereMayHold(meaning, runs);
    const when = conditionText(meaning.when);
    if (holds.length > 0 && holds.length === runs.length) full.push(meaning.concept);
    else if (holds.length > 0) some.push(`; in ${runsText(holds)} (${when}): ${meaning.concept.is}`);
    if (may.length > 0) some.push(`; in ${runsText(may)}, if ${when} (version not recorded): ${meaning.concept.is}`);
  }
  if (full.length === 0 && some.length === 0) return m;
  const is = full.length === 0 ? m.is : full.map((x) => x.is).join("; and ");
  const isNot = (full.length === 0 ? m.isNot : full.map((x) => x.isNot).join("; ")) + some.join("");
  return { ...m, is, isNot };
}

function runsText(runs: readonly { runId: string }[]): string {
  return `run${runs.length === 1 ? "" : "s"} ${runs.map((r) => r.runId).join(", ")}`;
}

/** Why single optimizer updates (positions, zero-gradient updates) are not observable for these runs; null when they are. */
export function updatesUnobservable(aligned: { profile: { name: string } }): string | null {
  const p = profileOfAligned(aligned);
  return p.updates.observable ? null : `${p.label}: ${p.updates.note}`;
}

/**
 * One line per run on the semantic flags its meanings were read with: the profile's declared flags
 * found in its config, or "flags unknown" (no config was read: metrics keep their default meaning);
 * then the versions its keys prove; then one line per conditional meaning that holds, or may hold, in
 * some run (meaningNotes).
 */
export function flagsLines(aligned: FlaggedRuns): string[] {
  const p = profileOfAligned(aligned);
  const lines = aligned.runs.map((r) => {
    if (r.flags === undefined) return `flags of run ${r.runId} (round ${r.round}): unknown (no config was read); metrics keep their default meaning`;
    const own = p.flags.filter((f) => r.flags![f.name] !== undefined).map((f) => `${f.name} = ${String(r.flags![f.name].value)}`);
    return `flags of run ${r.runId} (round ${r.round}): ${own.length > 0 ? own.join(", ") : `none of the ${p.label} flags set in its config`}`;
  });
  const proven = aligned.runs.flatMap((r) =>
    (r.versionBounds ?? []).map(
      (b) =>
        `version of run ${r.runId} (round ${r.round}) proven by its keys: ${b.package} ${b.atLeast !== undefined ? `>= ${b.atLeast}` : `< ${b.below}`} (it logs ${b.key})`,
    ),
  );
  return lines.concat(proven, meaningNotes(aligned));
}

/** Aligned runs as flagsLines and meaningNotes read them. */
type FlaggedRuns = { profile: { name: string }; runs: readonly ({ runId: string; round: string } & ConditionRun)[] };

/**
 * One note per conditional meaning of the profile that holds in some run, or may hold (its version is
 * not recorded): what the concept or key then is, or which check does not apply, naming the runs and
 * the condition. Empty when none does.
 */
export function meaningNotes(aligned: FlaggedRuns): string[] {
  const p = profileOfAligned(aligned);
  const notes: string[] = [];
  for (const m of p.meanings) {
    const what = m.concept
      ? `${m.concept.id}: ${m.concept.is}`
      : m.check
        ? `${m.check.name} not applicable: ${m.check.notApplicable}`
        : `${m.key!.name}: ${m.key!.note}`;
    const source = m.evidence ? ` [${m.evidence}]` : "";
    const holds = runsWhereHolds(m, aligned.runs);
    const may = runsWhereMayHold(m, aligned.runs);
    if (holds.length > 0) notes.push(`${conditionText(m.when)} in ${runsText(holds)}: ${what}${source}`);
    if (may.length > 0) notes.push(`if ${conditionText(m.when)} (version not recorded) in ${runsText(may)}: ${what}${source}`);
  }
  return notes;
}

/** One line saying which framework profile the runs were read with, and why. */
export function profileLine(aligned: { profile: { name: string; how: string; evidence: string[] } }): string {
  const p = profileOfAligned(aligned);
  const why = aligned.profile.how === "given" ? "given" : `detected from ${aligned.profile.evidence.join(", ")}`;
  return `framework profile: ${p.label} (${why}); records: ${p.recordNoun}; ${p.updates.note}`;
}

/** The x-axis title of a per-record figure: one record and its key, e.g. "logged step (train/global_step)". */
export function recordAxisTitle(profile: FrameworkProfile): string {
  return `${singular(profile.recordNoun)} (${recordStepKey(profile)})`;
}
