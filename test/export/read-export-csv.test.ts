import { test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

import { csvText } from "../../lib/export/csv-text";
import { readExportCsv, readExportCsvFile } from "../../lib/export/read-export-csv";
import { writeExports } from "../../lib/export/write-exports";
import { makeArchive } from "../archive/make-archive";
import { slimeRows, stamp } from "../align/slime-history";

test("NaN, Inf, -Inf, empty and shortest-form numbers survive csvText + readExportCsv", () => {
  const values = [NaN, Infinity, -Infinity, null, 1e-7, -0.5, 1 / 3, 5e-324];
  const text = csvText({ name: "t.csv", columns: ["round", ...values.map((_, i) => `v${i}`)], rows: [['a,"b"', ...values]] });
  const { columns, rows } = readExportCsv(text, { file: "t.csv" });
  assert.deepEqual(columns, ["round", "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7"]);
  assert.equal(rows.length, 1);
  assert.equal(rows[0].round, 'a,"b"');
  values.forEach((v, i) => assert.ok(Object.is(rows[0][`v${i}`], v), `v${i}: ${String(rows[0][`v${i}`])} vs ${String(v)}`));
});

test("NaN/Inf/-Inf logged in the frozen history come back from the written CSVs", async () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "export-roundtrip-"));
  try {
    const rows = slimeRows({ runId: "rt", round: "R0", n: 2, rollouts: [1, 2] });
    // rows: manager(1), trainer rollout(1), update t=2, update t=3, perf(1), manager(2), ...
    rows[2]["train/loss"] = NaN;
    rows[2]["train/grad_norm"] = Infinity;
    rows[3]["train/grad_norm"] = -Infinity;
    rows[3]["train/tiny"] = 1e-7;
    rows[5]["rollout/response_len/mean"] = NaN;
    makeArchive(path.join(tmp, "data"), [{ runId: "rt", round: "R0", rows: stamp(rows) }]);
    const warnings: string[] = [];
    await writeExports({ dataDir: path.join(tmp, "data"), outDir: path.join(tmp, "out"), reporter: { warn: (m) => warnings.push(m) } });

    const updates = await readExportCsvFile(path.join(tmp, "out", "updates.csv"));
    assert.deepEqual(
      updates.rows.map((r) => r.update),
      [1, 2, 3, 4],
    );
    assert.ok(Number.isNaN(updates.rows[0]["train/loss"] as number));
    assert.equal(updates.rows[0]["train/grad_norm"], Infinity);
    assert.equal(updates.rows[1]["train/grad_norm"], -Infinity);
    assert.equal(updates.rows[1]["train/tiny"], 1e-7);
    assert.equal(updates.rows[0]["train/tiny"], null, "not logged stays missing");
    const text = fs.readFileSync(path.join(tmp, "out", "updates.csv"), "utf8");
    assert.match(text.split("\n")[1], /^R0,rt,1,2,1,0,0\.2,Inf,NaN,2,$/);

    const rollouts = await readExportCsvFile(path.join(tmp, "out", "rollouts.csv"));
    assert.ok(Number.isNaN(rollouts.rows[1]["rollout/response_len/mean"] as number));
    assert.equal(rollouts.rows[0]["rollout/response_len/mean"], 101);

    // The summary excludes the non-finite values from its means and warns once per value.
    const summary = await readExportCsvFile(path.join(tmp, "out", "summary.csv"));
    assert.equal(summary.rows[0].response_len_mean, 101);
    assert.equal(summary.rows[0].grad_norm_mean, 5.5, "mean of the finite grad norms 5 and 6 (train/step 4, 5)");
    assert.equal(warnings.length, 3, warnings.join("\n"));
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});

test("readExportCsv names file, data row and column of a bad cell", () => {
  assert.throws(() => readExportCsv("round,x\nR0,1\nR1,abc\n", { file: "s.csv" }), {
    message: 's.csv data row 2 column x: invalid number cell: "abc"',
  });
  assert.throws(() => readExportCsv("round,x\nR0,1\nR1\n", { file: "s.csv" }), { message: "s.csv data row 2: 1 cells, the header has 2" });
  assert.throws(() => readExportCsv("round,x\nR0,1", { file: "s.csv" }), { message: "s.csv: truncated (does not end with a newline)" });
});

test("readExportCsv reads text columns as text, empty as null, and takes other text columns on request", () => {
  const { rows } = readExportCsv("round,run_id,state,zero_grad_norm_updates,label\nall,,,66 70,7\n", {
    textColumns: ["round", "run_id", "state", "zero_grad_norm_updates", "label"],
  });
  assert.deepEqual(rows, [{ round: "all", run_id: null, state: null, zero_grad_norm_updates: "66 70", label: "7" }]);
});
