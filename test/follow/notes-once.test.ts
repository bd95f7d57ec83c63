/** A follow's analysis notes, said once: the same note with other counts is the same note; warnings pass as they are. */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test } from "node:test";

import { notesOnce } from "../../lib/follow/notes-once";
import { peekRunIdOfLogBeingWritten, runIdOfLogName } from "../../lib/wandb-file/locate-wandb-file";

test("notesOnce: a note again with only its numbers changed is not said again; another note, and every warning, are", () => {
  const said: string[] = [];
  const r = notesOnce({ info: (m) => said.push(`info ${m}`), warn: (m) => said.push(`warn ${m}`) });
  r.info?.("run a (round R0): 68 row(s) of TRL's profiling timers kept out");
  r.info?.("run a (round R0): 76 row(s) of TRL's profiling timers kept out");
  r.info?.("run b (round R1): 3 row(s) of TRL's profiling timers kept out");
  r.warn?.("alignment found 1 issue(s)");
  r.warn?.("alignment found 1 issue(s)");
  assert.deepEqual(said, [
    "info run a (round R0): 68 row(s) of TRL's profiling timers kept out",
    "info run b (round R1): 3 row(s) of TRL's profiling timers kept out",
    "warn alignment found 1 issue(s)",
    "warn alignment found 1 issue(s)",
  ]);
});

test("a log its writer has only begun: no run id yet (null), the id in its name instead; a damaged or foreign start still throws", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "begun-log-"));
  try {
    const real = fs.readFileSync(path.join(__dirname, "../fixtures/real-runs/verl/plain/run-verl-plain.wandb"));
    const file = path.join(dir, "offline-run-20260101_120000-verl-plain", "run-verl-plain.wandb");
    fs.mkdirSync(path.dirname(file));
    for (const bytes of [0, 3, 7, 5000]) {
      fs.writeFileSync(file, real.subarray(0, bytes));
      assert.equal(peekRunIdOfLogBeingWritten(file), null, `${bytes} bytes`);
    }
    fs.writeFileSync(file, real);
    assert.equal(peekRunIdOfLogBeingWritten(file), "verl-plain");
    assert.equal(runIdOfLogName(file), "verl-plain");
    assert.equal(runIdOfLogName(path.join(dir, "offline-run-20260101_120000-abc123", "x.wandb")), "abc123", "the run folder's id");
    assert.equal(runIdOfLogName(path.join(dir, "half.wandb")), null);
    fs.writeFileSync(file, Buffer.from("PK\x03\x04 not a log"));
    assert.throws(() => peekRunIdOfLogBeingWritten(file), /not a W&B transaction log/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
