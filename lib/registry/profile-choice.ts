/**
 * Where an explicit framework profile comes from when the user names one: the `profile` field of
 * data/runs.json, or WORKSPACE_PROFILE / the CLIs' --profile (which win). Unnamed, the profile is
 * detected from the keys (lib/registry/detect-profile.ts).
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

import { profileByName } from "./profiles";

/** The `profile` named in a runs config file; undefined when the file or the field is absent. Throws `invalid profile: <name>` on an unknown name. */
export function profileFromRunsConfig(path: string): string | undefined {
  if (!existsSync(path)) return undefined;
  let cfg: unknown;
  try {
    cfg = JSON.parse(readFileSync(path, "utf8"));
  } catch {
    return undefined; // readRunsConfig reports a broken file where it is needed
  }
  if (cfg === null || typeof cfg !== "object" || !("profile" in cfg)) return undefined;
  const name = (cfg as { profile: unknown }).profile;
  if (typeof name !== "string") throw new Error(`invalid profile: ${JSON.stringify(name)} (in ${path})`);
  return profileByName(name).name;
}

/** The profile to read runs with: the explicit one (env or CLI), else the runs config's, else undefined (detect). */
export function chooseProfile(explicit: string | undefined, runsConfigPath: string): string | undefined {
  if (explicit !== undefined && explicit !== "") return profileByName(explicit).name;
  return profileFromRunsConfig(runsConfigPath);
}

/** The profile to read a frozen archive folder with: the explicit one, else the runs.json beside the folder names it, else undefined (detect). */
export function profileForArchive(explicit: string | undefined, archiveDir: string): string | undefined {
  return chooseProfile(explicit, join(dirname(resolve(archiveDir)), "runs.json"));
}
