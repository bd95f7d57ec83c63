/**
 * The `concepts` tool: each registry concept under one framework (key, unit, direction, what it is and
 * is not); for an archive, the reading rules its runs' declared settings make hold, as the exports
 * read them (lib/registry/profiles.ts metricOfAligned), and every conditional meaning with where it holds.
 */
import { CONCEPT_IDS, CONCEPTS } from "../registry/concepts";
import { absentReason, type FrameworkProfile, metricOf } from "../registry/framework-profile";
import type { MetricSpec } from "../registry/metric-spec";
import { meaningNotes, metricOfAligned, PROFILE_NAMES, profileByName, profileOfAligned } from "../registry/profiles";
import { conditionText } from "../registry/semantic-flags";
import { ToolRefusal } from "./refusal";
import type { ArchiveSet } from "./served-archive";

/** One concept of a `concepts` answer. */
export interface ConceptEntry {
  id: string;
  label: string;
  unit: string;
  /** Which way is better between two runs: higher, lower, or neither (a diagnostic). */
  direction: string;
  /** What the concept is in any framework. */
  concept: string;
  /** The framework's key, or null when it logs none (then `absent` says why). */
  key: string | null;
  absent: string | null;
  /** What a per-round mean is taken over: "update" or "rollout" records. */
  grain: string | null;
  /** What the framework's number is and is not (for an archive: with its runs' settings applied). */
  is: string | null;
  isNot: string | null;
  /** Keys older versions logged instead, with what differs. */
  aliases: { key: string; until: string; note: string }[];
}

/** The `concepts` answer. */
export interface ConceptsAnswer {
  framework: string;
  /** The archive whose settings were applied; null for a framework alone. */
  archive: string | null;
  manifestSha256: string | null;
  concepts: ConceptEntry[];
  /** Every declared conditional meaning of the framework: its condition and what changes. */
  conditionalMeanings: { condition: string; concept: string | null; check: string | null; key: string | null; is: string; evidence: string | null }[];
  /** For an archive: the conditional meanings that hold (or may hold) in its runs, naming them. */
  holdingInArchive: string[];
}

/** A concept's entry under a profile; `metric` the spec with the archive's settings applied, when any. */
function conceptEntry(profile: FrameworkProfile, id: (typeof CONCEPT_IDS)[number], metric: MetricSpec | null): ConceptEntry {
  const c = CONCEPTS[id];
  return {
    id,
    label: c.label,
    unit: c.unit,
    direction: c.direction,
    concept: c.is,
    key: metric?.key ?? null,
    absent: absentReason(profile, id),
    grain: metric?.grain ?? null,
    is: metric?.is ?? null,
    isNot: metric?.isNot ?? null,
    aliases: (metric?.aliases ?? []).map((a) => ({ key: a.key, until: a.until, note: a.note })),
  };
}

/** The profile's declared conditional meanings, in words. */
function declaredMeanings(profile: FrameworkProfile): ConceptsAnswer["conditionalMeanings"] {
  return profile.meanings.map((m) => ({
    condition: conditionText(m.when),
    concept: m.concept?.id ?? null,
    check: m.check?.name ?? null,
    key: m.key?.name ?? null,
    is: m.concept ? `${m.concept.is} (not: ${m.concept.isNot})` : m.check ? `not applicable: ${m.check.notApplicable}` : m.key!.note,
    evidence: m.evidence ?? null,
  }));
}

/** The `concepts` answer for a framework by name, or for an archive (default: the only archive). */
export function conceptsAnswer(set: ArchiveSet, input: { framework?: string; archive?: string }): ConceptsAnswer {
  if (input.framework !== undefined && input.archive === undefined) {
    if (!(PROFILE_NAMES as readonly string[]).includes(input.framework))
      throw new ToolRefusal("unknown_framework", `no framework named ${input.framework}: one of ${PROFILE_NAMES.join(", ")}`);
    const profile = profileByName(input.framework);
    const concepts = CONCEPT_IDS.map((id) => conceptEntry(profile, id, metricOf(profile, id)));
    return { framework: profile.name, archive: null, manifestSha256: null, concepts, conditionalMeanings: declaredMeanings(profile), holdingInArchive: [] };
  }
  const a = set.get(input.archive);
  const aligned = a.opened.aligned;
  const profile = profileOfAligned(aligned);
  if (input.framework !== undefined && input.framework !== profile.name)
    throw a.refuse("unknown_framework", `the archive's runs are ${profile.name} runs, not ${input.framework} (give either framework or archive)`);
  const concepts = CONCEPT_IDS.map((id) => conceptEntry(profile, id, metricOf(profile, id) === null ? null : metricOfAligned(aligned, id)));
  return {
    framework: profile.name,
    archive: a.name,
    manifestSha256: a.manifestSha256,
    concepts,
    conditionalMeanings: declaredMeanings(profile),
    holdingInArchive: meaningNotes(aligned),
  };
}
