/**
 * Package versions a run records, frozen beside its flags: a metric's meaning can change with the
 * framework's version (TRL's clip ratio before 0.17, verl's entropy under dynamic batch size up to
 * 0.4.0). Only the versions below are read; W&B records the SDK, Python and transformers versions
 * (the `_wandb` config entry on the server, the telemetry record in a `.wandb` log); the framework's
 * own version is only in the run folder's `files/requirements.txt` (pip freeze, when the SDK saved it).
 */
import type { VersionBound } from "../types";

// Frozen with the runs, so defined beside the archive's types (lib/types.ts has no registry import).
export type { RunVersions, VersionBound, VersionSource } from "../types";

/**
 * A key whose presence proves a range of a package's version (TRL logs `train/clip_ratio/region_mean`
 * from 0.17.0 on): declared by a profile (`versionKeys`), with the release note or commit it rests on.
 */
export interface VersionKey extends VersionBound {
  evidence: string;
}

/** The versions W&B itself records, by package, with their `_wandb` config key (telemetry field names match). */
export const RECORDED_VERSIONS: readonly { package: string; wandbKey: string }[] = [
  { package: "wandb", wandbKey: "cli_version" },
  { package: "python", wandbKey: "python_version" },
  { package: "transformers", wandbKey: "huggingface_version" },
];

/** A release version (`0.16.1`, `0.4.0.post1`, `2.5.1+cu121`); anything else is not frozen. */
const VERSION = /^\d+(\.\d+){0,3}([.+-]?[A-Za-z0-9.+-]{0,40})?$/;

/** The text when it is a release version, else undefined (a path, a commit, a sentence never reach the archive). */
export function versionText(raw: unknown): string | undefined {
  return typeof raw === "string" && VERSION.test(raw) ? raw : undefined;
}

/** The versions in the `_wandb` entry of a run's config (`{value: {...}}` on the server, plain in logs). */
export function versionsOfConfig(config: Readonly<Record<string, unknown>>): Record<string, string> {
  let w = config._wandb;
  if (w !== null && typeof w === "object" && Object.hasOwn(w, "value")) w = (w as { value: unknown }).value;
  return w === null || typeof w !== "object" ? {} : recordedVersionsOf(w as Record<string, unknown>);
}

/**
 * The versions W&B records, by package, from an object keyed as `_wandb` and the telemetry record
 * name them (`cli_version`, `python_version`, `huggingface_version`); release versions only.
 */
export function recordedVersionsOf(entry: Readonly<Record<string, unknown>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const v of RECORDED_VERSIONS) {
    const text = versionText(entry[v.wandbKey]);
    if (text !== undefined) out[v.package] = text;
  }
  return out;
}

/**
 * The declared packages' versions in a pip-freeze `requirements.txt` (`name==version` lines; names
 * compared as pip normalises them). Lines of other packages are never kept.
 */
export function versionsOfRequirements(text: string, packages: readonly string[]): Record<string, string> {
  const wanted = new Set(packages.map(normalName));
  const out: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    const m = /^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*==\s*(\S+)\s*$/.exec(line);
    if (m === null) continue;
    const name = normalName(m[1]);
    const version = versionText(m[2]);
    if (wanted.has(name) && version !== undefined) out[name] = version;
  }
  return out;
}

/** pip's name normalisation (PEP 503): case and runs of -_. do not matter. */
function normalName(name: string): string {
  return name.toLowerCase().replace(/[-_.]+/g, "-");
}

/**
 * Compares two release versions by their numeric parts (`0.16.1` < `0.17.0`; `0.4.0.post1` counts as
 * `0.4.0`); negative, zero or positive.
 */
export function compareVersions(a: string, b: string): number {
  const parts = (v: string) => (/^\d+(\.\d+)*/.exec(v)?.[0] ?? "0").split(".").map(Number);
  const x = parts(a);
  const y = parts(b);
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const d = (x[i] ?? 0) - (y[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/**
 * Versions a user states by hand (`"versions"` of a run in data/runs.json, `--version RUN:PACKAGE=VERSION`):
 * each package one W&B records or a profile's (`known`), each value a release version; throws
 * `invalid version` naming `where`, the package and what it must be.
 */
export function statedVersions(known: readonly string[], raw: unknown, where: string): Record<string, string> {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw))
    throw new Error(`invalid version: ${where}: "versions" must be an object of package -> version`);
  const out: Record<string, string> = {};
  for (const [pkg, value] of Object.entries(raw)) {
    if (!known.includes(pkg)) throw new Error(`invalid version: ${where}: ${pkg} is none of the packages read (${known.join(", ")})`);
    const v = versionText(value);
    if (v === undefined) throw new Error(`invalid version: ${where}: ${pkg} must be a release version such as 0.16.1, not ${JSON.stringify(value)}`);
    out[pkg] = v;
  }
  return out;
}
