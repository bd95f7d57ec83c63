/**
 * Which framework wrote a set of runs, from their keys alone: each profile's signature entries
 * (keys, or prefixes ending in "/") found in the union of the runs' keys. The profile with the most
 * matches wins; a tie between two profiles, or no match at all, is refused naming the keys that
 * decided, and the user names the profile instead (data/runs.json "profile", CLI --profile).
 * A fetch decides it per run when it freezes them (decideRunProfiles): runs of two frameworks, or a
 * run with none of any profile's keys, are refused there, and the manifest records each run's profile,
 * which later reads take over. A named profile never reads a run holding none of its keys.
 */
import type { RunHistory, RunProfile } from "../types";

export type { RunProfile } from "../types";
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

/** Non-bookkeeping keys (W&B's own start with "_"). */
function metricKeys(keys: readonly string[]): string[] {
  return keys.filter((k) => k.charCodeAt(0) !== 95 /* _ */);
}

/** Up to 12 keys, then how many there are in all: enough to recognise a run in a message. */
function keySample(keys: readonly string[]): string {
  return keys.slice(0, 12).join(", ") + (keys.length > 12 ? `, ... (${keys.length} keys)` : "");
}

/** Every profile with the signature entries the keys match, most matches first (ties in registry order). */
function scoreProfiles(keys: readonly string[]): { profile: FrameworkProfile; evidence: string[] }[] {
  return PROFILES.map((p) => ({ profile: p as FrameworkProfile, evidence: matched(p, keys) })).sort((a, b) => b.evidence.length - a.evidence.length);
}

/** What every profile looks for, for a message about keys that match none. */
function signaturesText(): string {
  return PROFILES.map((p) => `${p.name}: ${p.signature.join(" ")}`).join("; ");
}

/**
 * The profile of a set of runs: `given` when the caller names one (a run holding none of its keys is
 * refused: it would read as empty cells), else the one the manifest recorded for every run at fetch,
 * else detected from the keys.
 * @example detectProfile(archive.runs).profile.name // "slime"
 */
export function detectProfile(runs: readonly RunHistory[], given?: string): DetectedProfile {
  if (given !== undefined) {
    const profile = profileByName(given);
    refuseRunsWithout(
      profile,
      runs.map((r) => ({ runId: r.runId, round: r.round, keys: keysOfRuns([r]) })),
    );
    return { profile, how: "given", evidence: [] };
  }
  const recorded = recordedProfile(runs);
  if (recorded !== null) return recorded;
  const keys = keysOfRuns(runs);
  const scored = scoreProfiles(keys);
  const best = scored[0];
  if (best.evidence.length === 0) {
    throw new Error(
      `cannot tell which framework wrote these runs: no key matches a profile (${signaturesText()}); keys: ${keySample(keys) || "none"}. Name the profile (data/runs.json "profile", CLI --profile)`,
    );
  }
  const tie = scored.filter((s) => s.evidence.length === best.evidence.length);
  if (tie.length > 1) throw tieError(tie);
  return { profile: best.profile, how: "detected", evidence: best.evidence };
}

/** The refusal of keys that match two profiles or more equally. */
function tieError(tie: readonly { profile: FrameworkProfile; evidence: string[] }[]): Error {
  return new Error(
    `cannot tell which framework wrote these runs: ${tie.map((s) => `${s.profile.name} (${s.evidence.join(", ")})`).join(" and ")} match equally. Name the profile (data/runs.json "profile", CLI --profile)`,
  );
}

/**
 * The profile the fetch recorded when every run carries the same one (its evidence: the signature
 * entries any run matched, in signature order, as detection on all runs' keys gives); else null.
 */
function recordedProfile(runs: readonly RunHistory[]): DetectedProfile | null {
  const first = runs[0]?.profile;
  if (first === undefined || runs.some((r) => r.profile?.name !== first.name || r.profile.how !== first.how)) return null;
  const profile = profileByName(first.name);
  const evidence = profile.signature.filter((e) => runs.some((r) => r.profile!.evidence.includes(e)));
  return { profile, how: first.how, evidence: first.how === "given" ? [] : evidence };
}

/** One run's keys as frozen, with what names it in a message. */
export interface RunKeys {
  runId: string;
  round: string;
  keys: readonly string[];
}

/** A run's profile entry under `profile`. */
function runProfile(profile: FrameworkProfile, how: RunProfile["how"], keys: readonly string[]): RunProfile {
  return { name: profile.name, how, evidence: matched(profile, keys) };
}

/**
 * Decides the framework of runs frozen together, from each run's keys (or `given`), before the
 * archive is replaced: one profile for all. Refused, naming each run, what its keys match and what to
 * do: runs holding none of any profile's keys (not an RL run of a framework the workspace reads), runs
 * of two frameworks (one archive, one framework), and, with `given`, a run holding none of its keys.
 * Runs without a metric key (no rows yet) follow the others; null when no run has one (nothing to decide).
 * @example decideRunProfiles([{ runId: "a", round: "R0", keys: ["train/num_tokens"] }])[0].name // "trl"
 */
export function decideRunProfiles(runs: readonly RunKeys[], given?: string): RunProfile[] | null {
  const withKeys = runs.map((r) => ({ ...r, keys: metricKeys(r.keys) }));
  if (given !== undefined) {
    const profile = profileByName(given);
    refuseRunsWithout(profile, withKeys);
    return withKeys.map((r) => runProfile(profile, "given", r.keys));
  }
  refuseRunsOfNoFramework(withKeys);
  const judged = withKeys.filter((r) => r.keys.length > 0);
  if (judged.length === 0) return null;
  const profile = profileOfMostRuns(judged);
  // A run without one of the archive's profile's keys was written by another framework.
  if (judged.some((r) => matched(profile, r.keys).length === 0)) refuseTwoFrameworks(judged);
  return withKeys.map((r) => runProfile(profile, "detected", r.keys));
}

/** Throws naming every run (with metric keys) that holds none of the keys any profile looks for. */
function refuseRunsOfNoFramework(runs: readonly RunKeys[]): void {
  const none = runs.filter((r) => r.keys.length > 0 && scoreProfiles(r.keys)[0].evidence.length === 0);
  if (none.length === 0) return;
  const each = none.map((r) => `run ${r.runId} (round ${r.round}) holds none of them; its keys: ${keySample(r.keys)}`).join("; ");
  throw new Error(
    `not a run of a framework the workspace reads: ${each}. Each framework profile looks for some of these keys (${signaturesText()}). The notebooks diagnose RL post-training runs of slime, miles, verl, OpenRLHF and TRL: leave ${none.length === 1 ? "this run" : "these runs"} out of the fetch`,
  );
}

/**
 * The profile of runs frozen together: detected on all their keys, as an export detects it; on a tie,
 * the runs' own profiles when they differ (refused later as two frameworks), else the tie is refused.
 */
function profileOfMostRuns(runs: readonly RunKeys[]): FrameworkProfile {
  const scored = scoreProfiles([...new Set(runs.flatMap((r) => r.keys))]);
  const tie = scored.filter((s) => s.evidence.length === scored[0].evidence.length);
  if (tie.length === 1) return scored[0].profile;
  const own = runs.map((r) => scoreProfiles(r.keys)[0].profile);
  if (own.some((p) => p !== own[0])) refuseTwoFrameworks(runs);
  throw tieError(tie);
}

/** Throws when a run (with metric keys) holds none of the named `profile`'s keys: naming each such run, what its keys match, and the fix. */
function refuseRunsWithout(profile: FrameworkProfile, runs: readonly RunKeys[]): void {
  const misfits = runs.filter((r) => metricKeys(r.keys).length > 0 && matched(profile, r.keys).length === 0);
  if (misfits.length === 0) return;
  const each = misfits.map((r) => {
    const keys = metricKeys(r.keys);
    const own = scoreProfiles(keys)[0];
    const like = own.evidence.length > 0 ? `its keys match ${own.profile.name} (${own.evidence.join(", ")})` : `its keys match no profile (${keySample(keys)})`;
    return `run ${r.runId} (round ${r.round}) holds none of ${profile.name}'s keys (${profile.signature.join(", ")}), so the profile named would read it as empty cells; ${like}`;
  });
  throw new Error(
    `${each.join("; ")}. Name the profile the run's keys match (data/runs.json "profile", CLI --profile), or fetch that run into an archive of its own`,
  );
}

/** Throws naming each run with the framework its own keys match: one archive holds one framework's runs. */
function refuseTwoFrameworks(runs: readonly RunKeys[]): never {
  const each = runs.map((r) => {
    const own = scoreProfiles(metricKeys(r.keys))[0];
    return `run ${r.runId} (round ${r.round}): ${own.profile.name} (${own.evidence.join(", ")})`;
  });
  const names = [...new Set(runs.map((r) => scoreProfiles(metricKeys(r.keys))[0].profile.name))];
  throw new Error(
    `these runs were written by different frameworks: ${each.join("; ")}. An archive holds the runs of one framework: fetch each framework's runs into an archive of its own (e.g. ${names.map((n) => `--out data/${n}/wandb`).join(" and ")})`,
  );
}
