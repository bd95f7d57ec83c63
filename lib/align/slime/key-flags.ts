/**
 * What a history key says about its row, as bit flags, and the row kind as a small integer code
 * derived from them (one byte per row in a scan). Flags are cached per key: a run has a few hundred
 * distinct keys but millions of key occurrences, and one Map lookup is cheaper than the prefix tests
 * it replaces. The cache is never emptied (W&B key sets are small). Internal to lib/align and
 * lib/local-logs; the public API is classifyRow.
 *
 * Hot loops elsewhere copy what they use from here into module-local constants: tsx (esbuild)
 * compiles imported bindings into getter calls, which cost more than the work itself at 10^6 rows.
 */
import type { HistoryRow, RowKind } from "../../types";
import { keysOf } from "../../values/compact-values";

/** Any `train/*` key. */
export const K_TRAIN = 1;
/** `train/step`. */
export const K_TRAIN_STEP = 2;
/** `train/critic-*`. */
export const K_CRITIC = 4;
/** A `train/*` key that is neither `train/step` nor a critic key. */
export const K_TRAIN_METRIC = 8;
/** Any `perf/*` key. */
export const K_PERF = 16;
/** `perf/rollout_time` (written by the rollout manager only). */
export const K_PERF_ROLLOUT_TIME = 32;
/** Any `rollout/*` key. */
export const K_ROLLOUT = 64;
/** `rollout/step`. */
export const K_ROLLOUT_STEP = 128;
/** A `rollout/*` key other than `rollout/step`. */
export const K_ROLLOUT_METRIC = 256;
/** A rollout-side key only the rollout manager writes (response_len/*, truncated_ratio, ...). */
export const K_ROLLOUT_SIDE = 512;
/** Any `multi_turn/*` key. */
export const K_MULTI_TURN = 1024;
/** Any `passrate/*` key. */
export const K_PASSRATE = 2048;
/** Any `eval/*` key. */
export const K_EVAL = 4096;
/** `eval/step`. */
export const K_EVAL_STEP = 8192;
/** W&B bookkeeping (`_step`, `_runtime`, `_timestamp`, any `_*`). */
export const K_INTERNAL = 16384;

const ROLLOUT_SIDE_PREFIXES = ["rollout/response_len/", "rollout/zero_std/", "rollout/dynamic_filter/"];
const ROLLOUT_SIDE_KEYS = new Set(["rollout/truncated_ratio", "rollout/repetition_frac"]);

function computeFlags(k: string): number {
  if (k.charCodeAt(0) === 95 /* _ */) return K_INTERNAL;
  if (k.startsWith("train/")) {
    if (k === "train/step") return K_TRAIN | K_TRAIN_STEP;
    if (k.startsWith("train/critic-")) return K_TRAIN | K_CRITIC;
    return K_TRAIN | K_TRAIN_METRIC;
  }
  if (k.startsWith("perf/")) return k === "perf/rollout_time" ? K_PERF | K_PERF_ROLLOUT_TIME : K_PERF;
  if (k.startsWith("rollout/")) {
    if (k === "rollout/step") return K_ROLLOUT | K_ROLLOUT_STEP;
    let side = ROLLOUT_SIDE_KEYS.has(k);
    for (const p of ROLLOUT_SIDE_PREFIXES) if (k.startsWith(p)) side = true;
    return K_ROLLOUT | K_ROLLOUT_METRIC | (side ? K_ROLLOUT_SIDE : 0);
  }
  if (k.startsWith("multi_turn/")) return K_MULTI_TURN;
  if (k.startsWith("passrate/")) return K_PASSRATE;
  if (k.startsWith("eval/")) return k === "eval/step" ? K_EVAL | K_EVAL_STEP : K_EVAL;
  return 0;
}

/** Per-key facts, cached for the life of the process (W&B runs have at most some thousand keys). */
export interface KeyInfo {
  /** K_* flags of the key. */
  readonly flags: number;
  /** Scratch for one merge at a time: the record stamp the key was last seen in, and its slot. */
  stamp: number;
  slot: number;
}

/**
 * The per-key facts of the process, and the stamp counter that goes with their merge scratch: a stamp
 * is unique across every merge of the process, since the facts (and their last stamp) are shared.
 */
class KeyInfos {
  private readonly cache = new Map<string, KeyInfo>();
  private stamp = 0;
  /** Cached facts of one key. */
  of(k: string): KeyInfo {
    let info = this.cache.get(k);
    if (info === undefined) {
      info = { flags: computeFlags(k), stamp: -1, slot: 0 };
      this.cache.set(k, info);
    }
    return info;
  }
  /** A stamp no KeyInfo holds yet: marks the keys seen in one merged record. */
  nextStamp(): number {
    return ++this.stamp;
  }
}

const KEY_INFOS = new KeyInfos();

/** Cached facts of one key; the `stamp`/`slot` scratch lets a merge test "seen in this record" without a Map of its own. */
export function keyInfo(k: string): KeyInfo {
  return KEY_INFOS.of(k);
}

/** A new merge stamp (see KeyInfo.stamp). */
export function nextMergeStamp(): number {
  return KEY_INFOS.nextStamp();
}

/** Flags of one key (see the K_* constants). */
export function keyFlags(k: string): number {
  return keyInfo(k).flags;
}

/** Row kinds by numeric code (the codes scanRun stores per row). */
export const ROW_KINDS: readonly RowKind[] = ["rollout-manager", "trainer-rollout", "optimizer-update", "critic-update", "trainer-perf", "eval", "other"];
export const CODE_ROLLOUT_MANAGER = 0;
export const CODE_TRAINER_ROLLOUT = 1;
export const CODE_OPTIMIZER_UPDATE = 2;
export const CODE_CRITIC_UPDATE = 3;
export const CODE_TRAINER_PERF = 4;
export const CODE_EVAL = 5;
export const CODE_OTHER = 6;

/** Kind code of a row from the OR of its key flags (the decision table in classify-row.ts). */
export function kindCode(f: number): number {
  if (f & K_EVAL_STEP) return CODE_EVAL;
  if (f & K_CRITIC) return CODE_CRITIC_UPDATE;
  if (f & K_TRAIN_METRIC && f & K_TRAIN_STEP) return CODE_OPTIMIZER_UPDATE;
  if (!(f & K_ROLLOUT_STEP)) return CODE_OTHER;
  if (f & (K_PERF_ROLLOUT_TIME | K_ROLLOUT_SIDE) || (f & K_PERF && f & K_ROLLOUT_METRIC)) return CODE_ROLLOUT_MANAGER;
  if (f & K_PERF) return CODE_TRAINER_PERF;
  if (f & (K_ROLLOUT_METRIC | K_MULTI_TURN | K_PASSRATE)) return CODE_TRAINER_ROLLOUT;
  return CODE_OTHER;
}

/** Kind code of one history row (an index into ROW_KINDS). */
export function classifyRowCode(row: HistoryRow): number {
  let f = 0;
  for (const k of keysOf(row)) f |= keyFlags(k);
  return kindCode(f);
}
