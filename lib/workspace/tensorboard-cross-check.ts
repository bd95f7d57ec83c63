/**
 * Notebook 02's W&B vs TensorBoard cross-check: when the data folder holds the same runs frozen from
 * their TensorBoard event files (`data/tensorboard/`, written by `npm run fetch -- --tensorboard
 * PATH=ROUND ... --out data/tensorboard`, rounds labelled as in the W&B archive), that archive is
 * loaded (hash-verified), aligned with the same profile and compared record by record
 * (lib/tensorboard/cross-check-wandb.ts).
 */
import { existsSync } from "node:fs";
import * as path from "node:path";

import { MANIFEST_FILE } from "../archive/manifest";
import { openArchive } from "../pipeline/open-archive";
import { crossCheckTensorboard, type TensorboardCrossCheck } from "../tensorboard/cross-check-wandb";
import type { AlignedRuns, Reporter } from "../types";
import { shownPath, type WorkspaceParams } from "./workspace-params";

/** The cross-check, or null with the reason when the data folder has no TensorBoard archive. */
export async function tensorboardCrossCheck(
  params: WorkspaceParams,
  aligned: AlignedRuns,
  reporter?: Reporter,
): Promise<{ check: TensorboardCrossCheck | null; message: string }> {
  const dir = params.tensorboardArchiveDir;
  const shown = shownPath(params.root, dir);
  if (!existsSync(path.join(dir, MANIFEST_FILE))) {
    return {
      check: null,
      message: `no TensorBoard archive in ${shown} (npm run fetch -- --tensorboard PATH=ROUND --out ${shown}): W&B vs TensorBoard not cross-checked`,
    };
  }
  const tb = await openArchive(dir, { purpose: "cross-check", label: shown, profile: aligned.profile.name, reporter });
  const check = crossCheckTensorboard(aligned, tb.aligned);
  return { check, message: `W&B vs TensorBoard (${shown}): ${check.verdict}` };
}
