/**
 * Which framework wrote a set of runs, from their keys alone: each profile's signature entries
 * (keys, or prefixes ending in "/") found in the union of the runs' keys. The profile with the most
 * matches wins; a tie between two profiles, or no match at all, is refused naming the keys that
 * decided, and the user names the profile instead (data/runs.json "profile", CLI --profile).
 */
import type { RunHistory } from "../types";
import { matchesEntry, type FrameworkProfile } from "./framework-profile";
import { PROFILES, profileByName } from "./profiles";
import { isView, keysOf } from "../values/compact-values";
import { packedRowsOf } from "../values/packed-run";

/** The profile and the keys that decided it. */
export interface DetectedProfile {
  profile: FrameworkProfile;
  /** "detected" from the keys, or "given" by the caller. */
  how: "detected" | "given";
  /** Signature entries matched (for the message and the manifest). */
  evidence: string[];
}

/** The union of the runs' non-bookkeeping keys, sorted. */
export function keysOfRuns(runs: readonly RunHistory[]): string[] {
  const keys = new Set<string>();
  const add = (list: readonly string[]) => {
    for (const k of list) if (k.charCodeAt(0) !== 95 /* _ */) keys.add(k);
  };
  // Compact rows share their key lists: each list is read once (25 M rows at 10^7 updates, a few lists).
  const seen = new Set<readonly string[]>();
  for (const r of runs) {
    const packed = packedRowsOf(r);
    if (packed !== null) {
      for (const list of packed.shapes) add(list);
      continue;
    }
    for (const row of r.rows) {
      const list = keysOf(row);
      if (isView(row)) {
        if (seen.has(list)) continue;
        seen.add(list);
      }
      add(list);
    }
  }
  return [...keys].sort();
}

/** Signature entries of a profile that some key matches. */
function matched(profile: FrameworkProfile, keys: readonly string[]): string[] {
  return profile.signature.filter((e) => keys.some((k) => matchesEntry(k, e)));
}

/**
 * The profile of a set of runs: `given` when the caller names one, else detected from the keys.
 * @example detectProfile(archive.runs).profile.name // "slime"
 */
export function detectProfile(runs: readonly RunHistory[], given?: string): DetectedProfile {
  if (given !== undefined) return { profile: profileByName(given), how: "given", evidence: [] };
  const keys = keysOfRuns(runs);
  const scored = PROFILES.map((p) => ({ profile: p, evidence: matched(p, keys) })).sort((a, b) => b.evidence.length - a.evidence.length);
  const best = scored[0];
  const sample = keys.slice(0, 12).join(", ") + (keys.length > 12 ? `, ... (${keys.length} keys)` : "");
  if (best.evidence.length === 0) {
    throw new Error(
      `cannot tell which framework wrote these runs: no key matches a profile (${PROFILES.map((p) => `${p.name}: ${p.signature.join(" ")}`).join("; ")}); keys: ${sample || "none"}. Name the profile (data/runs.json "profile", CLI --profile)`,
    );
  }
  const tie = scored.filter((s) => s.evidence.length === best.evidence.length);
  if (tie.length > 1) {
    throw new Error(
      `cannot tell which framework wrote these runs: ${tie.map((s) => `${s.profile.name} (${s.evidence.join(", ")})`).join(" and ")} match equally. Name the profile (data/runs.json "profile", CLI --profile)`,
    );
  }
  return { profile: best.profile, how: "detected", evidence: best.evidence };
}
