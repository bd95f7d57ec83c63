import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { test } from "node:test";

import { loadArchive } from "../../lib/archive/load-archive";
import type { HistoryRow } from "../../lib/types";
import { renderLocalLog } from "../../tools/simulate-slime/local-log";
import type { SimRun } from "../../tools/simulate-slime/simulate";
import { metricKeys } from "../fixtures/metric-keys";

const DATA = path.resolve(__dirname, "../../data");
const T = Date.UTC(2026, 3, 15, 7, 57, 53) + 400;

function tinyRun(): SimRun {
  return {
    runId: "sim-r0-test",
    round: "R0",
    displayName: "t",
    config: {},
    initMs: T - 60_000,
    startMs: T - 90_000,
    endMs: T + 60_000,
    pids: { rolloutManager: 1805485, trainer: 1806012 },
    rows: [
      {
        kind: "rollout-manager",
        rolloutId: 0,
        trainStep: null,
        timeMs: T,
        values: [
          { key: "rollout/response_len/mean", value: 2773.71484375, kind: "float" },
          { key: "rollout/zero_std/count_0", value: 12, kind: "int" },
          { key: "rollout/truncated_ratio", value: 0.125, kind: "np.float64" },
          { key: "perf/rollout_time", value: 371.17, kind: "float" },
          { key: "rollout/step", value: 0, kind: "int" },
        ],
      },
      {
        kind: "optimizer-update",
        rolloutId: 0,
        trainStep: 1,
        timeMs: T + 30_000,
        values: [
          { key: "train/ppo_kl", value: 0, kind: "float" },
          { key: "train/lr-pg_0", value: 1e-6, kind: "float" },
          { key: "train/grad_norm", value: 2, kind: "float" },
          { key: "train/step", value: 1, kind: "int" },
        ],
      },
    ],
    logLines: [{ timeMs: T - 1000, prefix: "", source: null, text: "wandb: Syncing run t" }],
  };
}

test("renderLocalLog writes slime's logging format, Ray prefixes and Python reprs, in time order", () => {
  assert.equal(
    renderLocalLog(tinyRun()),
    [
      "wandb: Syncing run t",
      "(RolloutManager pid=1805485) [2026-04-15 07:57:53] rollout.py:1193 - perf 0: {'rollout/response_len/mean': 2773.71484375, 'rollout/zero_std/count_0': 12, 'rollout/truncated_ratio': np.float64(0.125), 'perf/rollout_time': 371.17}",
      "(MegatronTrainRayActor pid=1806012) [2026-04-15 07:58:23] model.py:918 - step 1: {'train/ppo_kl': 0.0, 'train/lr-pg_0': 1e-06, 'train/grad_norm': 2.0, 'train/step': 1}",
      "",
    ].join("\n"),
  );
});

/** Parses one Python repr dict of the kinds slime prints (numbers, nan/inf, np.float64(...)). */
function parsePyDict(text: string): Record<string, number> {
  const out: Record<string, number> = {};
  const body = text.slice(1, -1);
  const re = /'([^']+)': (np\.float64\(([^)]*)\)|[^,]+)(?:, |$)/gy;
  let consumed = 0;
  for (let m = re.exec(body); m !== null; m = re.exec(body)) {
    const raw = m[3] ?? m[2];
    out[m[1]] = raw === "nan" ? NaN : raw === "inf" ? Infinity : raw === "-inf" ? -Infinity : Number(raw);
    assert.ok(!Number.isNaN(out[m[1]]) || raw === "nan", `unparsed value ${raw}`);
    consumed = re.lastIndex;
  }
  assert.equal(consumed, body.length, `whole dict parsed: ${text.slice(0, 80)}`);
  return out;
}

test("data/local logs agree with the frozen W&B history on every shared numeric field", async () => {
  const archive = await loadArchive(path.join(DATA, "wandb"));
  const line =
    /^\((RolloutManager|MegatronTrainRayActor) pid=(\d+)\) \[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)\] ([\w.]+):(\d+) - (perf|rollout|step) (\d+): (\{.*\})$/;
  let compared = 0;
  let nanCompared = 0;
  let npValues = 0;
  for (const run of archive.runs) {
    const text = readFileSync(path.join(DATA, "local", `${run.runId}.log`), "utf8");
    const metricLines = text.split("\n").filter((l) => / - (perf|rollout|step) \d+: \{/.test(l));
    assert.equal(metricLines.length, 100, run.runId);
    npValues += (text.match(/np\.float64\(/g) ?? []).length;
    const used = new Set<number>();
    for (const l of metricLines) {
      const m = line.exec(l);
      assert.ok(m, `format: ${l.slice(0, 120)}`);
      const [, actor, , stamp, , , what, idText, dict] = m;
      const id = Number(idText);
      const values = parsePyDict(dict);
      let rowIndex: number;
      if (what === "step") {
        assert.equal(values["train/step"], id);
        rowIndex = run.rows.findIndex((r) => r["train/step"] === id);
      } else {
        assert.equal(values["rollout/step"], undefined, "logged before rollout/step is added");
        const pick =
          what === "rollout"
            ? (r: HistoryRow) => r["rollout/log_probs"] !== undefined
            : actor === "RolloutManager"
              ? (r: HistoryRow) => r["perf/rollout_time"] !== undefined
              : (r: HistoryRow) => r["perf/actor_train_time"] !== undefined;
        rowIndex = run.rows.findIndex((r) => pick(r) && r["rollout/step"] === id);
      }
      assert.ok(rowIndex >= 0 && !used.has(rowIndex), `${run.runId}: ${what} ${id}`);
      used.add(rowIndex);
      const row = run.rows[rowIndex];
      // The log line's time is the W&B row's _timestamp, truncated to the second.
      assert.equal(stamp, new Date(Math.floor(row._timestamp) * 1000).toISOString().slice(0, 19).replace("T", " "));
      const wandbKeys = metricKeys(row).filter((k) => k !== "rollout/step");
      assert.deepEqual(Object.keys(values).sort(), wandbKeys.sort(), `${run.runId} ${what} ${id} keys`);
      for (const [k, v] of Object.entries(values)) {
        assert.ok(Object.is(v, row[k]), `${run.runId} ${what} ${id} ${k}: log ${v}, W&B ${row[k]}`);
        compared++;
        if (Number.isNaN(v)) nanCompared++;
      }
    }
  }
  assert.equal(nanCompared, 1);
  assert.ok(npValues >= 160, `np.float64 values: ${npValues}`);
  assert.equal(compared, 4 * (20 * 11 + 20 * 11 + 40 * 10 + 20 * 13) + extraKeys(archive.runs.flatMap((r) => r.rows)));
});

/** Keys a batch logs only sometimes: dynamic-filter drops, zero_std counts, save_model time. */
function extraKeys(rows: HistoryRow[]): number {
  return rows.reduce((a, r) => a + Object.keys(r).filter((k) => /dynamic_filter|zero_std|save_model/.test(k)).length, 0);
}
