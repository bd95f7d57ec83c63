/**
 * Seeded generator of slime-shaped W&B history for the benchmarks, at any size. Per rollout batch it
 * writes what slime writes (docs/slime-logging.md): a rollout-manager row, a
 * trainer rollout row, N optimizer-update rows and a trainer perf row, plus an eval row every
 * EVAL_EVERY batches, with slime's key names and realistic key-set variation (optional zero_std /
 * dynamic_filter / save_model_time keys), a few NaN values, and some gradient norms of exactly 0.
 * Rows come as numeric objects (for frozen archives) and as the JSON text the Python SDK stores
 * (json.dumps: `", "`/`": "` separators, Python float repr, bare NaN) for the W&B test server.
 * Values are not calibrated to anything: only shape, size and value types matter here.
 */
import type { HistoryRow } from "../lib/types";
import { mulberry32 } from "../tools/simulate-slime/prng";
import { batchRowKinds, SAMPLE_UPDATE_SHAPE } from "../tools/simulate-slime/slime-rows";

/** Optimizer updates per rollout batch (slime's N) of the generated runs. */
export const BENCH_N = 2;
/** An eval row after every this many rollout batches. */
export const EVAL_EVERY = 10;

/** What to generate for one run. */
export interface BenchRunSpec {
  /** Seed of this run's values. */
  seed: number;
  /** Rollout id of the run's first batch (consecutive rounds continue the ids). */
  firstRollout: number;
  /** Rollout batches to write. */
  rollouts: number;
  /** Seconds since epoch of the run start (`_timestamp` base). */
  startTime?: number;
  /** Stop after this many rows (the last batch may then be cut short). Default: no limit. */
  maxRows?: number;
}

/** Rows one rollout batch writes (without evals): manager + trainer rollout + N updates + perf. */
export const ROWS_PER_ROLLOUT = batchRowKinds(BENCH_N).length;

/** An update row: `values` (drawn in key order) laid out by the shared shape. */
function updateRow(values: Record<string, number>): HistoryRow {
  const row: HistoryRow = {};
  for (const { key } of SAMPLE_UPDATE_SHAPE) row[key] = values[key];
  return row;
}

/** Rollout batches that give at least `rows` history rows (evals included); cut with `maxRows`. */
export function rolloutsForRows(rows: number): number {
  // Per EVAL_EVERY batches: EVAL_EVERY * ROWS_PER_ROLLOUT + 1 rows.
  return Math.max(1, Math.ceil((rows * EVAL_EVERY) / (EVAL_EVERY * ROWS_PER_ROLLOUT + 1)));
}

/**
 * Calls `emit` with every history row of one run, in `_step` order, keys in slime's logging order
 * followed by `_runtime`, `_timestamp`, `_step`. Returns the number of rows.
 */
export function generateRun(spec: BenchRunSpec, emit: (row: HistoryRow) => void): number {
  const rnd = mulberry32(spec.seed);
  const u = (lo: number, hi: number) => lo + (hi - lo) * rnd();
  const t0 = spec.startTime ?? 1_768_000_000;
  let step = 0;
  let runtime = 30 + 300 * rnd();
  const limit = spec.maxRows ?? Infinity;
  const stamp = (row: HistoryRow, dt: number) => {
    if (step >= limit) return;
    runtime += dt;
    row._runtime = Math.round(runtime * 1000) / 1000;
    row._timestamp = Math.round((t0 + runtime) * 1000) / 1000;
    row._step = step++;
    emit(row);
  };
  for (let k = 0; k < spec.rollouts && step < limit; k++) {
    const r = spec.firstRollout + k;
    const rolloutTime = u(150, 380);
    const lenMean = u(150, 450);
    // 1. rollout manager
    const m: HistoryRow = {
      "rollout/response_len/mean": lenMean,
      "rollout/response_len/median": Math.round(lenMean * u(0.7, 1)),
      "rollout/response_len/max": Math.round(lenMean * u(2, 6)),
      "rollout/response_len/min": Math.round(u(20, 90)),
      "rollout/truncated_ratio": Math.floor(rnd() * 20) / 64,
      "rollout/repetition_frac": rnd() < 0.9 ? 0 : Math.floor(rnd() * 4) / 64,
    };
    const zeroStd = Math.floor(rnd() * 3);
    if (zeroStd > 0) m["rollout/zero_std/count_0"] = zeroStd;
    if (rnd() < 0.5) m["rollout/zero_std/count_1"] = Math.floor(rnd() * 3);
    if (rnd() < 0.3) m["rollout/dynamic_filter/drop_zero_std_0"] = 1 + Math.floor(rnd() * 2);
    m["perf/rollout_time"] = rolloutTime;
    m["perf/tokens_per_gpu_per_sec"] = u(20, 35);
    m["perf/longest_sample_tokens_per_sec"] = u(7, 10);
    m["perf/effective_tokens_per_gpu_per_sec"] = u(8, 11);
    m["perf/longest_effective_sample_tokens_per_sec"] = u(3, 5);
    m["rollout/step"] = r;
    stamp(m, rolloutTime);
    // 2. trainer rollout means (kl NaN now and then: a -inf ref log-prob token)
    const lp = -u(0.1, 0.2);
    const adv = u(-1, 1) * 1e-8;
    stamp(
      {
        "rollout/log_probs": lp,
        "rollout/ref_log_probs": lp - u(0, 0.01),
        "rollout/rollout_log_probs": lp + u(-0.01, 0.01),
        "rollout/advantages": adv,
        "rollout/returns": adv,
        "rollout/rewards": adv / 2,
        "rollout/raw_reward": Math.floor(rnd() * 64) / 64,
        "rollout/truncated": Math.floor(rnd() * 20) / 64,
        "rollout/response_lengths": u(300, 1200),
        "rollout/total_lengths": u(1500, 3500),
        "rollout/kl": rnd() < 0.01 ? NaN : u(0, 0.003),
        "rollout/step": r,
      },
      u(5, 15),
    );
    // 3..2+N. optimizer updates (grad_norm exactly 0 at ~0.5%, NaN at ~0.1%)
    for (let s = 0; s < BENCH_N; s++) {
      const pg = u(-0.02, 0.02);
      const g = rnd();
      stamp(
        updateRow({
          "train/loss": pg,
          "train/pg_loss": pg,
          "train/entropy_loss": u(0.12, 0.2),
          "train/pg_clipfrac": rnd() < 0.3 ? 0 : u(0, 0.004),
          "train/ppo_kl": s === 0 ? 0 : u(0, 0.002),
          "train/train_rollout_logprob_abs_diff": u(0.008, 0.012),
          "train/grad_norm": g < 0.005 ? 0 : g < 0.006 ? NaN : u(0.5, 3),
          "train/lr-pg_0": 1e-6,
          "train/global_batch_size": 32,
          "train/step": r * BENCH_N + s,
        }),
        u(4, 8),
      );
    }
    // 3+N. trainer perf
    const actor = u(10, 15);
    const logp = u(3, 5);
    const refp = u(3, 5);
    const upd = u(10, 14);
    const pre = u(1, 2);
    const train = actor + logp + refp + pre;
    const wait = rolloutTime + u(10, 40);
    const p: HistoryRow = {
      "perf/train_wait_time": wait,
      "perf/train_time": train,
      "perf/data_preprocess_time": pre,
      "perf/log_probs_time": logp,
      "perf/ref_log_probs_time": refp,
      "perf/actor_train_time": actor,
      "perf/update_weights_time": upd,
    };
    if (r % 10 === 0) p["perf/save_model_time"] = u(20, 40);
    p["perf/actor_train_tok_per_s"] = u(12000, 15000);
    p["perf/actor_train_tflops"] = u(80, 95);
    p["perf/log_probs_tflops"] = u(80, 95);
    p["perf/ref_log_probs_tflops"] = u(85, 95);
    p["perf/step_time"] = wait + train;
    p["perf/wait_time_ratio"] = wait / (wait + train);
    p["rollout/step"] = r;
    stamp(p, u(0.5, 2));
    // (sometimes) eval
    if ((k + 1) % EVAL_EVERY === 0) {
      stamp(
        {
          "eval/shop": Math.floor(rnd() * 128) / 128,
          "eval/shop/response_len/mean": u(200, 400),
          "eval/shop-truncated_ratio": Math.floor(rnd() * 16) / 128,
          "eval/step": r,
        },
        u(30, 60),
      );
    }
  }
  return step;
}

/** Python `repr(float)` as json.dumps writes it (shortest round trip; `1.0`, `1e-06`, `NaN`). */
export function pyFloat(x: number): string {
  if (Number.isNaN(x)) return "NaN";
  if (x === Infinity) return "Infinity";
  if (x === -Infinity) return "-Infinity";
  const s = String(x);
  const a = Math.abs(x);
  if (a >= 1e-4 && a < 1e16) return s.indexOf(".") < 0 && s.indexOf("e") < 0 ? s + ".0" : s;
  if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
  // Scientific in Python below 1e-4 and from 1e16: mantissa digits from JS exponential form.
  const e = x.toExponential(); // shortest round-trip digits, e.g. "1.5e-7"
  const [mant, exp] = e.split("e");
  const n = Number(exp);
  return `${mant}e${n < 0 ? "-" : "+"}${String(Math.abs(n)).padStart(2, "0")}`;
}

/** Keys logged as Python ints (counts, steps, batch size): json.dumps writes them without ".0". */
function isIntKey(k: string): boolean {
  return (
    k === "_step" ||
    k.endsWith("/step") ||
    k === "train/global_batch_size" ||
    k.startsWith("rollout/zero_std/") ||
    k.startsWith("rollout/dynamic_filter/") ||
    k === "rollout/response_len/max" ||
    k === "rollout/response_len/min" ||
    k === "rollout/response_len/median"
  );
}

/** The row as the Python SDK stores it: json.dumps text with bare NaN tokens. */
export function pyJsonRow(row: HistoryRow): string {
  let out = "{";
  let first = true;
  for (const k in row) {
    const v = row[k];
    out += (first ? '"' : ', "') + k + '": ' + (isIntKey(k) && Number.isInteger(v) ? String(v) : pyFloat(v));
    first = false;
  }
  return out + "}";
}

/** A set of consecutive runs (rounds): run i continues the rollout ids of run i-1. */
export interface BenchRunSet {
  runs: { runId: string; round: string; spec: BenchRunSpec }[];
}

/** `count` consecutive runs of `rolloutsPerRun` batches each (cut at `maxRows` rows), seeded from `seed`. */
export function benchRunSet(count: number, rolloutsPerRun: number, seed = 20260601, idPrefix = "bench", maxRows?: number): BenchRunSet {
  const runs = [];
  for (let i = 0; i < count; i++) {
    runs.push({
      runId: `${idPrefix}-r${i}-${(seed + i).toString(36)}`,
      round: `R${i}`,
      spec: { seed: seed * 31 + i, firstRollout: 1 + i * rolloutsPerRun, rollouts: rolloutsPerRun, startTime: 1_768_000_000 + i * 86_400, maxRows },
    });
  }
  return { runs };
}
