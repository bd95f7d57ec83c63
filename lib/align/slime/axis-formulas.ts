/**
 * slime's step arithmetic (docs/slime-logging.md, "Step arithmetic"):
 * `train/step = rollout_id * N + step_id`, no offset; displayed update = train/step - N*r0 + 1.
 */
import type { AxisMapping } from "../../types";

/**
 * The axis mapping for N updates per rollout batch and first rollout id r0 (no per-run entries).
 * @example makeAxisMapping(2, 1).formulas.update // "update = train/step - 2*1 + 1"
 */
export function makeAxisMapping(n: number, r0: number): Omit<AxisMapping, "runs"> {
  if (!Number.isInteger(n) || n < 1) throw new Error(`invalid n: ${n}`);
  if (!Number.isInteger(r0) || r0 < 0) throw new Error(`invalid r0: ${r0}`);
  return {
    n,
    r0,
    formulas: {
      update: `update = train/step - ${n}*${r0} + 1`,
      rollout: `rollout = floor(train/step / ${n})`,
      updateInRollout: `update_in_rollout = train/step mod ${n}`,
    },
  };
}

/** Display number of an update of one run: train/step - N*first_rollout + update_base + 1 (see RunAxis). */
export function runUpdateNumber(axis: { n: number; firstRollout: number | null; updateBase: number }, trainStep: number): number {
  return trainStep - axis.n * (axis.firstRollout ?? 0) + axis.updateBase + 1;
}
