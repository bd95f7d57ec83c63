/**
 * What a W&B history row of a slime run is, judged only from its keys (never from `_step` or row
 * order). Source of the row shapes: docs/slime-logging.md ("Rows per rollout batch").
 *
 * The decision table, first matching rule wins ("other key" = a key that is not the row's step key;
 * keys starting with "_" are W&B bookkeeping and ignored):
 *
 * | # | kind              | rule                                                                                   |
 * |---|-------------------|----------------------------------------------------------------------------------------|
 * | 1 | eval              | has `eval/step`                                                                        |
 * | 2 | critic-update     | has a `train/critic-*` key (critic rows reuse `train/step`, so this precedes rule 3)   |
 * | 3 | optimizer-update  | has `train/step` and another `train/*` key                                             |
 * | 4 | rollout-manager   | has `rollout/step` and either `perf/rollout_time`, a rollout-side key                  |
 * |   |                   | (`rollout/response_len/*`, `rollout/truncated_ratio`, `rollout/zero_std/*`,            |
 * |   |                   | `rollout/repetition_frac`, `rollout/dynamic_filter/*`), or other `rollout/*` keys      |
 * |   |                   | together with `perf/*` keys (the manager logs both families in one row)                |
 * | 5 | trainer-perf      | has `rollout/step` and `perf/*` keys (timers `perf/*_time`, `perf/actor_train_tok_per_s`,|
 * |   |                   | tflops, ...) and no other `rollout/*` key                                              |
 * | 6 | trainer-rollout   | has `rollout/step` and other `rollout/*`, `multi_turn/*` or `passrate/*` keys, no      |
 * |   |                   | `perf/*` key (train-side means such as `rollout/log_probs`; slime logs `multi_turn/*`  |
 * |   |                   | and `passrate/*` as separate trainer rows of the same rollout)                         |
 * | 7 | other             | anything else (e.g. only bookkeeping keys, or keys of no slime family)                 |
 *
 * With `--wandb-always-use-train-step` slime adds `train/step` to rollout rows; rule 3 still needs a
 * `train/*` metric key, so those rows stay rollout rows.
 */
import type { HistoryRow, RowKind } from "../../types";
import { classifyRowCode, ROW_KINDS } from "./key-flags";

/** The decision table above as data, in rule order (for docs and notebook display). */
export const ROW_KIND_RULES: readonly { kind: RowKind; rule: string }[] = [
  { kind: "eval", rule: "has eval/step" },
  { kind: "critic-update", rule: "has a train/critic-* key" },
  { kind: "optimizer-update", rule: "has train/step and another train/* key" },
  {
    kind: "rollout-manager",
    rule: "has rollout/step and perf/rollout_time, a rollout-side rollout/* key (response_len/*, truncated_ratio, zero_std/*, repetition_frac, dynamic_filter/*), or rollout/* together with perf/* keys",
  },
  { kind: "trainer-perf", rule: "has rollout/step and perf/* keys, no other rollout/* key" },
  { kind: "trainer-rollout", rule: "has rollout/step and rollout/*, multi_turn/* or passrate/* keys, no perf/* key" },
  { kind: "other", rule: "anything else" },
];

/** Kind of one history row, decided by the key families in the table of this file. */
export function classifyRow(row: HistoryRow): RowKind {
  return ROW_KINDS[classifyRowCode(row)];
}

/** True for the three row kinds that belong to one rollout batch (`rollout/step`). */
export function isRolloutRowKind(kind: RowKind): boolean {
  return kind === "rollout-manager" || kind === "trainer-rollout" || kind === "trainer-perf";
}
