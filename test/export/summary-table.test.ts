import { test } from "node:test";
import assert from "node:assert/strict";
import * as path from "node:path";

import { loadArchive } from "../../lib/archive/load-archive";
import { alignRuns } from "../../lib/align/align-runs";
import { csvText } from "../../lib/export/csv-text";
import { readExportCsv } from "../../lib/export/read-export-csv";
import { summaryTable } from "../../lib/export/summary-table";
import { buildAligned } from "../diagnostics/aligned-builder";

/** The summary.csv header as the export contract states it. */
const HEADER =
  "round,run_id,state,history_events,rollouts,updates,entropy_mean,clipfrac_mean,grad_norm_mean,actor_tok_per_s_mean,response_len_mean,truncated_ratio_mean,rollout_time_mean,logprob_abs_diff_mean,ppo_kl_first_update_mean,ppo_kl_later_updates_mean,zero_grad_norm_updates";

const upd = (ent: number, grad: number, kl: number, clip?: number, lp?: number): Record<string, number> => {
  const v: Record<string, number> = { "train/entropy_loss": ent, "train/grad_norm": grad, "train/ppo_kl": kl };
  if (clip !== undefined) v["train/pg_clipfrac"] = clip;
  if (lp !== undefined) v["train/train_rollout_logprob_abs_diff"] = lp;
  return v;
};
const rol = (tok: number, len: number, trunc: number, time: number): Record<string, number> => ({
  "perf/actor_train_tok_per_s": tok,
  "rollout/response_len/mean": len,
  "rollout/truncated_ratio": trunc,
  "perf/rollout_time": time,
});

function smallAligned() {
  const aligned = buildAligned([
    {
      round: "R0",
      batches: [
        { rollout: rol(100, 10, 0.5, 20), updates: [upd(0.25, 1, 0, 0, 0.5), upd(0.75, 0, 0.125, 0.5, 0.25)] },
        { rollout: rol(200, 30, 0, 40), updates: [upd(0.5, 2, 0)] },
      ],
    },
    { round: "R1", batches: [{ rollout: rol(NaN, 20, 0.25, 30), updates: [upd(0.125, 0, 0, 0, 0.5), upd(0.125, 4, 0.375, 0.25, 0.5)] }] },
  ]);
  aligned.runs[0].historyEvents = 7;
  aligned.runs[1].historyEvents = 5;
  aligned.runs[1].state = "crashed";
  return aligned;
}

test("summary.csv header is the contract, column by column", () => {
  const { table } = summaryTable(smallAligned());
  assert.equal(table.name, "summary.csv");
  assert.equal(table.columns.join(","), HEADER);
});

test("summary.csv rows: round means from the diagnostics, an `all` row over every record, hand-computed", () => {
  const warnings: string[] = [];
  const { table, notes } = summaryTable(smallAligned(), { reporter: { warn: (m) => warnings.push(m) } });
  assert.equal(
    csvText(table),
    HEADER +
      "\n" +
      "R0,syn-r0,finished,7,2,3,0.5,0.25,1,150,20,0.25,30,0.375,0,0.125,2\n" +
      // R1's only actor tokens/s is NaN: no finite value, so the mean is empty (never 0).
      "R1,syn-r1,crashed,5,1,2,0.125,0.125,2,,20,0.25,30,0.5,0,0.375,5\n" +
      // Zero grad norms at updates 2 and 5 (train/step 3 and 6; rollout 2 logged one update, so 4 is absent).
      // entropy over all 5 updates = 1.75 / 5 = 0.35, not the mean of round means (0.3125).
      "all,,,12,3,5,0.35,0.1875,1.4,150,20,0.25,30,0.4375,0,0.25,2 5\n",
  );
  assert.equal(warnings.length, 1, `one warning for the one NaN, got ${JSON.stringify(warnings)}`);
  assert.match(warnings[0], /run syn-r1 rollout 3 .*perf\/actor_train_tok_per_s is NaN; excluded from means/);
  assert.ok(
    notes.some((n) => n.includes("round R1: all 1 values of perf/actor_train_tok_per_s are non-finite")),
    notes.join("\n"),
  );
});

test("summary.csv of the bundled sample reproduces the reference tables at their printed precision", async () => {
  const archive = await loadArchive(path.resolve(__dirname, "../../data/wandb"));
  const { table } = summaryTable(alignRuns(archive.runs));
  const { rows } = readExportCsv(csvText(table), { file: "summary.csv" });
  const num = (v: unknown) => {
    assert.equal(typeof v, "number");
    return v as number;
  };
  const fixed = (col: string, digits: number) => rows.map((r) => num(r[col]).toFixed(digits));
  assert.deepEqual(
    rows.map((r) => r.round),
    ["R0", "R1", "R2", "R3", "all"],
  );
  assert.deepEqual(
    rows.map((r) => r.state),
    ["finished", "finished", "finished", "finished", null],
  );
  assert.deepEqual(rows.map((r) => r.run_id).slice(4), [null]);
  assert.deepEqual(
    rows.map((r) => r.history_events),
    [100, 100, 100, 100, 400],
  );
  assert.deepEqual(
    rows.map((r) => r.rollouts),
    [20, 20, 20, 20, 80],
  );
  assert.deepEqual(
    rows.map((r) => r.updates),
    [40, 40, 40, 40, 160],
  );
  const rounds = (xs: string[]) => xs.slice(0, 4);
  assert.deepEqual(rounds(fixed("entropy_mean", 5)), ["0.18025", "0.15557", "0.14212", "0.13258"]);
  assert.deepEqual(rounds(fixed("clipfrac_mean", 5)), ["0.00123", "0.00058", "0.00056", "0.00038"]);
  assert.deepEqual(rounds(fixed("grad_norm_mean", 2)), ["2.18", "2.16", "1.38", "1.14"]);
  assert.deepEqual(rounds(fixed("actor_tok_per_s_mean", 2)), ["13538.13", "13502.78", "13468.47", "13527.11"]);
  assert.deepEqual(rounds(fixed("response_len_mean", 0)), ["288", "269", "205", "247"]);
  assert.deepEqual(rounds(rows.map((r) => (100 * num(r.truncated_ratio_mean)).toFixed(1))), ["11.8", "20.4", "22.3", "15.8"]);
  assert.deepEqual(rounds(fixed("rollout_time_mean", 0)), ["234", "245", "224", "209"]);
  // "Mean |train - rollout log-prob| stays near 0.01"; ppo_kl ~0 on first updates, non-zero later.
  for (const r of rows) {
    assert.equal(num(r.logprob_abs_diff_mean).toFixed(2), "0.01", `log-prob gap of ${r.round}`);
    assert.ok(Math.abs(num(r.ppo_kl_first_update_mean)) < 1e-9, `first-update ppo_kl of ${r.round}`);
    assert.ok(num(r.ppo_kl_later_updates_mean) > 1e-5, `later-update ppo_kl of ${r.round}`);
  }
  assert.deepEqual(
    rows.map((r) => r.zero_grad_norm_updates),
    [null, "66 70", "82 116", "140 142 156 160", "66 70 82 116 140 142 156 160"],
  );
});
