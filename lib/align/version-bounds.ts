/**
 * What a run's logged keys prove of its framework's version (a profile's `versionKeys`: TRL logs
 * `train/clip_ratio/region_mean` from 0.17.0 on), found once at alignment from the frozen rows, so that
 * version-conditional meanings are settled the same way whatever the source (W&B, a .wandb log,
 * TensorBoard) and whatever the archive recorded of versions.
 */
import type { RunHistory } from "../types";
import type { VersionBound, VersionKey } from "../registry/versions";
import { keyRowsOf } from "./key-rows";
import { rowReader } from "./row-reader";

/** The bounds a run's rows prove: one per declared key it logs in any row (a superseded row was still written by that version). */
export function versionBoundsOf(run: RunHistory, keys: readonly VersionKey[]): VersionBound[] {
  if (keys.length === 0) return [];
  const reader = rowReader(run);
  const live = new Int8Array(reader.length).fill(-1);
  const held = new Set(
    keyRowsOf(
      run,
      reader,
      live,
      keys.map((k) => k.key),
    ).map((k) => k.key),
  );
  return keys.filter((k) => held.has(k.key)).map(({ evidence: _, ...bound }) => bound);
}
