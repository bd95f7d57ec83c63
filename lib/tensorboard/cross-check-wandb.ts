/**
 * W&B against TensorBoard for runs logged to both: the aligned records of the two archives pair by
 * round and step (training records by their step, evaluations by theirs; run ids differ between the
 * sources), and every key present in both records is compared. TensorBoard's `SummaryWriter` stores
 * a float32 where W&B keeps the framework's float64, so a TensorBoard value agrees when it equals
 * `Math.fround` of the W&B value: exactly equal when the W&B value is float32-representable, else
 * equal after float32 rounding (counted apart). NaN agrees with NaN. Bookkeeping keys (`_step`,
 * `_timestamp`, `_runtime`) are not compared: W&B's `_step` counts logging calls.
 */
import type { AlignedRuns } from "../types";
import { keysOf } from "../values/compact-values";

/** A key whose values differ beyond float32 rounding. */
export interface TensorboardMismatch {
  round: string;
  kind: "record" | "eval";
  step: number;
  key: string;
  wandb: number;
  tensorboard: number;
}

/** A key, or a whole record, present on one side only. */
export interface TensorboardOneSided {
  round: string;
  kind: "record" | "eval";
  step: number;
  /** null for a whole record. */
  key: string | null;
  side: "wandb" | "tensorboard";
}

/** Result of {@link crossCheckTensorboard}. */
export interface TensorboardCrossCheck {
  /** True when at least one field was compared and every compared field agreed (exactly or after float32 rounding). */
  agree: boolean;
  /** One sentence: the agreement and its counts, or the first disagreement. */
  verdict: string;
  /** Records (training and eval) found in both. */
  pairedRecords: number;
  /** Fields present in both. */
  compared: number;
  /** Of those, bit-for-bit equal (or both NaN). */
  exact: number;
  /** Of those, equal only after rounding the W&B value to float32. */
  float32: number;
  mismatches: TensorboardMismatch[];
  /** Keys in one record of a pair only, and records of one source only. */
  oneSided: TensorboardOneSided[];
}

type Kind = TensorboardMismatch["kind"];
type Values = Record<string, number>;

/** Records of an alignment by "kind|round|step". */
function recordsOf(aligned: Pick<AlignedRuns, "rollouts" | "evals">): Map<string, { round: string; kind: Kind; step: number; values: Values }> {
  const out = new Map<string, { round: string; kind: Kind; step: number; values: Values }>();
  for (const r of aligned.rollouts) out.set(`record|${r.round}|${r.rollout}`, { round: r.round, kind: "record", step: r.rollout, values: r.values });
  for (const e of aligned.evals) out.set(`eval|${e.round}|${e.evalStep}`, { round: e.round, kind: "eval", step: e.evalStep, values: e.values });
  return out;
}

const bookkeeping = (k: string) => k.charCodeAt(0) === 95; /* _ */

/**
 * Compares the aligned records of the same run(s) read from W&B and from TensorBoard (rounds labelled alike).
 * @example crossCheckTensorboard(alignRuns(wandbArchive.runs), alignRuns(tensorboardArchive.runs)).verdict
 */
export function crossCheckTensorboard(
  wandb: Pick<AlignedRuns, "rollouts" | "evals">,
  tensorboard: Pick<AlignedRuns, "rollouts" | "evals">,
): TensorboardCrossCheck {
  const res: TensorboardCrossCheck = { agree: false, verdict: "", pairedRecords: 0, compared: 0, exact: 0, float32: 0, mismatches: [], oneSided: [] };
  const wb = recordsOf(wandb);
  const tb = recordsOf(tensorboard);
  for (const [id, w] of wb) {
    const t = tb.get(id);
    if (t === undefined) {
      res.oneSided.push({ round: w.round, kind: w.kind, step: w.step, key: null, side: "wandb" });
      continue;
    }
    res.pairedRecords++;
    compareValues(res, w, t.values);
  }
  for (const [id, t] of tb) if (!wb.has(id)) res.oneSided.push({ round: t.round, kind: t.kind, step: t.step, key: null, side: "tensorboard" });
  res.agree = res.compared > 0 && res.mismatches.length === 0;
  res.verdict = verdictOf(res);
  return res;
}

/** Compares the keys of one pair of records. */
function compareValues(res: TensorboardCrossCheck, w: { round: string; kind: Kind; step: number; values: Values }, tbValues: Values): void {
  const at = { round: w.round, kind: w.kind, step: w.step };
  for (const key of keysOf(w.values)) {
    if (bookkeeping(key)) continue;
    const a = w.values[key];
    const b = tbValues[key];
    if (b === undefined) {
      res.oneSided.push({ ...at, key, side: "wandb" });
      continue;
    }
    res.compared++;
    if (a === b || (a !== a && b !== b)) res.exact++;
    else if (Math.fround(a) === b) res.float32++;
    else res.mismatches.push({ ...at, key, wandb: a, tensorboard: b });
  }
  for (const key of keysOf(tbValues)) if (!bookkeeping(key) && w.values[key] === undefined) res.oneSided.push({ ...at, key, side: "tensorboard" });
}

function verdictOf(r: TensorboardCrossCheck): string {
  const sides = (side: "wandb" | "tensorboard") => {
    const all = r.oneSided.filter((x) => x.side === side);
    const records = all.filter((x) => x.key === null).length;
    return `${records} record(s) and ${all.length - records} field(s) only in ${side === "wandb" ? "W&B" : "TensorBoard"}`;
  };
  const tail = `; ${sides("wandb")}, ${sides("tensorboard")}`;
  if (r.compared === 0) return `nothing to compare: no record and key in both W&B and TensorBoard${tail}`;
  if (r.mismatches.length > 0) {
    const m = r.mismatches[0];
    return (
      `TensorBoard disagrees with W&B on ${r.mismatches.length} of ${r.compared} fields present in both, first: round ${m.round} ` +
      `${m.kind === "eval" ? "eval " : ""}step ${m.step} ${m.key}: W&B ${m.wandb}, TensorBoard ${m.tensorboard} (float32 of W&B: ${Math.fround(m.wandb)})${tail}`
    );
  }
  return `TensorBoard agrees with W&B on all ${r.compared} fields present in both (${r.pairedRecords} records): ${r.exact} bit for bit, ${r.float32} after rounding W&B's float64 to the float32 TensorBoard stores${tail}`;
}
