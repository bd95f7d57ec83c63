/**
 * The event files TRL (transformers' TensorBoard callback), verl (its Tracking's tensorboard backend)
 * and OpenRLHF (its TensorBoard logger) wrote in the real-run fixtures (test/fixtures/real-runs/):
 * every metric of the framework's own record (TRL's log_history, the dicts verl and OpenRLHF handed
 * their loggers; test/real-runs/own-record.ts) is in the file at its step, as the float32 the writer
 * stored: PyTorch's SummaryWriter writes simple_value, a float32, so the file holds Math.fround(v).
 */
import assert from "node:assert/strict";
import * as path from "node:path";
import { test } from "node:test";

import { readTensorboardRun } from "../../lib/tensorboard/read-tensorboard-run";
import { fixtureCases, survivingEntries } from "../real-runs/own-record";

const ROOT = path.join(__dirname, "../fixtures/real-runs");

const cases = fixtureCases(ROOT).filter((c) => c.rounds.some((r) => r.tensorboardFiles.length > 0));

test("the real-run fixtures hold event files of all three frameworks", () => {
  assert.deepEqual([...new Set(cases.map((c) => c.framework))].sort(), ["openrlhf", "trl", "verl"]);
});

for (const c of cases) {
  test(`${c.framework}/${c.case}: every value of the framework's own record is in its event file, as float32`, async () => {
    const own = survivingEntries(c);
    let compared = 0;
    for (const r of c.rounds) {
      for (const tb of r.tensorboardFiles) {
        const run = await readTensorboardRun(path.join(c.dir, tb));
        assert.equal(
          run.files.every((f) => f.fileVersion === "brain.Event:2"),
          true,
        );
        const byStep = new Map(run.rows.map((row) => [row._step, row]));
        for (const e of own.get(r.round) ?? []) {
          const row = byStep.get(e.step);
          // A killed writer loses what it had not flushed: only steps after the file's last one may be missing.
          if (row === undefined && !r.exitRecord && e.step > run.lastStep) continue;
          assert.ok(row, `${tb}: no row at step ${e.step}`);
          for (const [key, v] of Object.entries(e.values)) {
            const got: number | undefined = row![key];
            assert.ok(got !== undefined, `${tb}: ${key} missing at step ${e.step}`);
            if (Number.isNaN(v)) assert.ok(Number.isNaN(got), `${tb} ${key}@${e.step}`);
            else assert.equal(got, Math.fround(v), `${tb} ${key}@${e.step}`);
            compared++;
          }
        }
      }
    }
    assert.ok(compared > 0, "nothing compared");
  });
}
