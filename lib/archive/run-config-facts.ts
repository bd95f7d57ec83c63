/**
 * What the archive keeps of a run's config: the declared semantic flags (typed) and the recorded
 * versions (lib/registry/versions.ts). The config itself stays in memory: nothing else of it leaves
 * this module, for server runs (GraphQL `config`) and `.wandb` logs alike.
 */
import * as fsp from "node:fs/promises";
import * as path from "node:path";

import type { ManifestRun } from "../types";
import type { WandbConnection } from "../wandb/connection";
import { readRunConfig } from "../wandb/read-run-config";
import { allDeclaredFlags, allDeclaredPackages } from "../registry/profiles";
import { readFlags, type RunFlags } from "../registry/semantic-flags";
import { type RunVersions, type VersionSource, versionsOfConfig, versionsOfRequirements } from "../registry/versions";

/** The frozen facts of a run's configs. */
export type ConfigFacts = Pick<ManifestRun, "flags" | "flagsDropped" | "versions">;

/**
 * The declared flags of the configs (a later config's value wins), the declared ones dropped for
 * their type, and the versions of each config's `_wandb` entry merged over `known` (source "config").
 */
export function configFacts(
  configs: readonly Readonly<Record<string, unknown>>[],
  known: Readonly<Record<string, string>> = {},
  knownSource: VersionSource = "telemetry",
): ConfigFacts {
  const declared = allDeclaredFlags();
  const flags: Record<string, RunFlags[string]> = {};
  const dropped: Record<string, string> = {};
  const versions: Record<string, RunVersions[string]> = {};
  for (const [pkg, value] of Object.entries(known)) versions[pkg] = { value, source: knownSource };
  for (const config of configs) {
    const read = readFlags(declared, config);
    for (const [name, value] of Object.entries(read.flags)) flags[name] = { value, source: "config" };
    for (const d of read.dropped) dropped[d.name] = d.reason;
    for (const [pkg, value] of Object.entries(versionsOfConfig(config))) versions[pkg] ??= { value, source: "config" };
  }
  return {
    flags,
    ...(Object.keys(dropped).length > 0 ? { flagsDropped: dropped } : {}),
    ...(Object.keys(versions).length > 0 ? { versions } : {}),
  };
}

/**
 * The frameworks' versions in the `files/requirements.txt` the SDK saves beside a `.wandb` log (a W&B
 * run folder: `run-<id>/run-<id>.wandb` and `run-<id>/files/`); empty when there is none. Only the
 * profiles' packages are read from it.
 */
export async function requirementsVersions(wandbFile: string): Promise<Record<string, string>> {
  let text: string;
  try {
    text = await fsp.readFile(path.join(path.dirname(wandbFile), "files", "requirements.txt"), "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw e;
  }
  return versionsOfRequirements(text, allDeclaredPackages());
}

/** `facts` with the frameworks' versions from requirements.txt added (source "requirements"; what a config recorded wins). */
export function withRequirements(facts: ConfigFacts, fromRequirements: Readonly<Record<string, string>>): ConfigFacts {
  if (Object.keys(fromRequirements).length === 0) return facts;
  const versions: Record<string, RunVersions[string]> = { ...(facts.versions ?? {}) };
  for (const [pkg, value] of Object.entries(fromRequirements)) versions[pkg] ??= { value, source: "requirements" };
  return { ...facts, versions };
}

/** A server run's flags and versions, from its config (read in memory, not kept). */
export async function readConfigFacts(
  conn: WandbConnection,
  ref: { entity: string; project: string; runId: string },
  signal?: AbortSignal,
): Promise<ConfigFacts> {
  return configFacts([await readRunConfig(conn, ref, signal)], {}, "config");
}
