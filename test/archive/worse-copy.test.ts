/** A new copy of a frozen run is worse when it has fewer rows, a state that went back, or a torn end the frozen file did not have. */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, test } from "node:test";

import { serializeManifest } from "../../lib/archive/manifest";
import { refuseWorseCopies, worseThanFrozen } from "../../lib/archive/worse-copy";
import type { ManifestRun } from "../../lib/types";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "worse-copy-"));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

function run(over: Partial<ManifestRun> = {}): ManifestRun {
  return {
    entity: "e",
    project: "p",
    runId: "r1",
    round: "R0",
    displayName: null,
    state: "finished",
    historyEvents: 49,
    lastStep: 48,
    createdAt: null,
    fetchedAt: "2026-01-01T00:00:00.000Z",
    file: "history/r1.jsonl",
    sha256: "a".repeat(64),
    bytes: 1000,
    droppedKeys: {},
    ...over,
  };
}

const wandbSource = (tornBytes: number) => ({
  kind: "wandb-file" as const,
  file: "run-r1.wandb",
  sha256: "c".repeat(64),
  bytes: 5000,
  sdkVersion: "0.31.0",
  exitCode: null,
  ...(tornBytes > 0 ? { tornTail: { offset: 5000 - tornBytes, bytes: tornBytes } } : {}),
  server: null,
});

test("worse: fewer rows, finished -> anything else, a torn end the frozen file did not have; each said in words", () => {
  const b = "b".repeat(64);
  assert.deepEqual(worseThanFrozen(run(), run({ sha256: b, historyEvents: 20 })), ["20 rows, not 49"]);
  assert.deepEqual(worseThanFrozen(run(), run({ sha256: b, state: "crashed" })), ["state crashed, not finished"]);
  assert.deepEqual(worseThanFrozen(run({ source: wandbSource(0) }), run({ sha256: b, source: wandbSource(145) })), [
    "its file ends torn (the last 145 bytes hold no whole record), the frozen copy's did not",
  ]);
});

test("not worse: the same bytes again, more rows (a crashed copy replaced by a later one), a state going forward, a torn end already frozen", () => {
  const b = "b".repeat(64);
  assert.deepEqual(worseThanFrozen(run({ state: "crashed" }), run({ state: "crashed", historyEvents: 20 })), [], "same sha256: the same file read again");
  assert.deepEqual(worseThanFrozen(run({ state: "crashed", historyEvents: 20 }), run({ sha256: b })), []);
  assert.deepEqual(worseThanFrozen(run({ state: "running" }), run({ sha256: b, state: "crashed", historyEvents: 60 })), []);
  assert.deepEqual(worseThanFrozen(run({ source: wandbSource(10) }), run({ sha256: b, source: wandbSource(145) })), []);
  assert.deepEqual(
    worseThanFrozen(run({ source: wandbSource(0) }), run({ sha256: b, historyEvents: 60, source: wandbSource(145) })),
    [],
    "a torn end with more rows",
  );
});

test("refuseWorseCopies names every worse run and the override; no archive, a broken manifest, or runs it does not hold: nothing to refuse", async () => {
  const dir = path.join(tmp, "a");
  await refuseWorseCopies(dir, [run()]); // no archive yet
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, "manifest.json"), "{");
  await refuseWorseCopies(dir, [run()]);
  const m = { kind: "wandb-frozen-history" as const, formatVersion: 1 as const, readerVersion: "t", pageSize: 1000 };
  fs.writeFileSync(path.join(dir, "manifest.json"), serializeManifest({ ...m, runs: [run(), run({ runId: "r2", round: "R1", file: "history/r2.jsonl" })] }));
  await refuseWorseCopies(dir, [run({ runId: "r3", historyEvents: 1, sha256: "b".repeat(64) })]);
  await assert.rejects(
    refuseWorseCopies(dir, [
      run({ sha256: "b".repeat(64), historyEvents: 20, state: "crashed" }),
      run({ runId: "r2", round: "R1", file: "history/r2.jsonl", sha256: "b".repeat(64), historyEvents: 48 }),
    ]),
    {
      message: `refusing to replace the archive in ${dir} with a worse copy: run r1 (round R0): 20 rows, not 49; state crashed, not finished; run r2 (round R1): 48 rows, not 49. A copy made while a run was still being written, or cut short, would lose what is frozen; the archive was not changed. If the run really changed (rewound, or rows deleted), replace it anyway with --replace (replace: true)`,
    },
  );
});
