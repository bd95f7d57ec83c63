import { test } from "node:test";
import assert from "node:assert/strict";

import { csvText } from "../../lib/export/csv-text";
import { HEALTH_COLUMNS, healthTable } from "../../lib/export/health-table";
import { runHealthChecks } from "../../lib/health/run-health-checks";
import { buildAligned } from "../diagnostics/aligned-builder";

test("health.csv header is the contract", () => {
  assert.deepEqual([...HEALTH_COLUMNS], ["check", "severity", "round", "run_id", "unit", "first", "last", "count", "key", "value", "rule"]);
});

test("health.csv: the contract header, one row per flag, NaN / Inf cells, empty value for an absence, quoted rules", () => {
  const aligned = buildAligned([
    {
      round: "R0",
      batches: [
        { rollout: { "perf/actor_train_tok_per_s": 1 }, updates: [{ "train/loss": Infinity }, { "train/loss": 1 }] },
        { rollout: { "rollout/kl": NaN }, updates: [{ "train/loss": 1 }] },
      ],
    },
  ]);
  const text = csvText(healthTable(runHealthChecks(aligned)));
  assert.equal(
    text,
    [
      "check,severity,round,run_id,unit,first,last,count,key,value,rule",
      'non_finite,warning,R0,syn-r0,update,1,1,1,train/loss,Inf,"a NaN, Inf or -Inf value in a numeric key of an optimizer update or rollout batch (one flag per key and round; critic keys train/critic-* not read)"',
      'non_finite,warning,R0,syn-r0,rollout,2,2,1,rollout/kl,NaN,"a NaN, Inf or -Inf value in a numeric key of an optimizer update or rollout batch (one flag per key and round; critic keys train/critic-* not read)"',
      "missing_trainer_perf,notice,R0,syn-r0,rollout,2,2,1,perf/actor_train_tok_per_s,,a rollout batch with optimizer updates but no perf/actor_train_tok_per_s (no trainer perf row; consecutive batches form one flag)",
      "",
    ].join("\n"),
  );
});
