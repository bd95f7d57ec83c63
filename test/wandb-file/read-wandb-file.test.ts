import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, test } from "node:test";

import { readWandbFile } from "../../lib/wandb-file/read-wandb-file";
import type { Reporter } from "../../lib/types";
import { buildLog, exitRecord, headerRecord, historyRecord, outputRecord, runRecord, summaryRecord, unknownRecord, type ItemSpec } from "./wandb-log-builder";

const root = fs.mkdtempSync(path.join(os.tmpdir(), "wandb-file-"));
after(() => fs.rmSync(root, { recursive: true, force: true }));

function write(name: string, bytes: Buffer): string {
  const file = path.join(root, name);
  fs.writeFileSync(file, bytes);
  return file;
}

function recorder(): Reporter & { warnings: string[]; infos: string[] } {
  const r = { warnings: [] as string[], infos: [] as string[] };
  return {
    ...r,
    warn: (m: string) => r.warnings.push(m),
    info: (m: string) => r.infos.push(m),
    get warnings() {
      return r.warnings;
    },
    get infos() {
      return r.infos;
    },
  };
}

const step = (s: number, extra: ItemSpec[] = []) =>
  historyRecord([{ nested: ["_step"], json: String(s) }, { nested: ["_runtime"], json: String(s / 2) }, ...extra], s);

/** A run of `n` rows with output noise between them, optional exit code. */
function runLog(runId: string, n: number, exit: number | null, more: Buffer[] = []): ReturnType<typeof buildLog> {
  const recs: Buffer[] = [
    headerRecord("0.31.0+deadbeef"),
    runRecord({ runId, entity: "e", project: "p", displayName: "shown", startSeconds: 1700000000, cliVersion: "0.31.0" }),
  ];
  for (let i = 0; i < n; i++) recs.push(step(i, [{ nested: ["loss"], json: i === 2 ? "NaN" : String(1 / (i + 1)) }]), outputRecord(`line ${i}\n`.repeat(40)));
  recs.push(...more);
  recs.push(summaryRecord([{ key: "_step", json: String(n - 1) }]));
  if (exit !== null) recs.push(exitRecord(exit));
  return buildLog(recs);
}

test("a finished run: identity, start time, SDK version, rows, exit code 0, sha256 of the file", async () => {
  const { bytes } = runLog("abc123", 1000, 0);
  const file = write("run-abc123.wandb", bytes);
  const rep = recorder();
  const run = await readWandbFile(file, { reporter: rep });
  assert.equal(run.state, "finished");
  assert.equal(run.exitCode, 0);
  assert.equal(run.runId, "abc123");
  assert.equal(run.entity, "e");
  assert.equal(run.displayName, "shown");
  assert.equal(run.startedAt, "2023-11-14T22:13:20");
  assert.equal(run.sdkVersion, "0.31.0");
  assert.equal(run.fileName, "run-abc123.wandb");
  assert.equal(run.bytes, bytes.length);
  assert.equal(run.sha256, createHash("sha256").update(bytes).digest("hex"));
  assert.equal(run.rowCount, 1000);
  assert.equal(run.lastStep, 999);
  assert.deepStrictEqual(run.rows[2], { _step: 2, _runtime: 1, loss: NaN });
  assert.deepStrictEqual(run.rows[999], { _step: 999, _runtime: 499.5, loss: 1 / 1000 });
  assert.equal(run.recordCounts.output_raw, 1000);
  assert.ok(bytes.length > 10 * 32768, "spans many blocks");
  assert.deepEqual(rep.warnings, []);
  assert.deepEqual(rep.infos, []);
});

test("exit code 1 is failed; no exit record is crashed", async () => {
  assert.equal((await readWandbFile(write("run-f1.wandb", runLog("f1", 3, 1).bytes))).state, "failed");
  const crashed = await readWandbFile(write("run-c1.wandb", runLog("c1", 3, null).bytes));
  assert.equal(crashed.state, "crashed");
  assert.equal(crashed.exitCode, null);
});

test("a torn tail (a killed run) ends at the last whole record and is reported through the reporter", async () => {
  const { bytes, offsets } = runLog("torn1", 50, null);
  const cutAt = offsets[offsets.length - 3] + 9; // inside the history record of step 49
  const file = write("run-torn1.wandb", bytes.subarray(0, cutAt));
  const rep = recorder();
  const run = await readWandbFile(file, { reporter: rep });
  assert.equal(run.rowCount, 49);
  assert.equal(run.lastStep, 48);
  assert.equal(run.state, "crashed");
  assert.deepEqual(run.tornTail, { offset: offsets[offsets.length - 3], bytes: 9, reason: "a chunk of 54 bytes runs past the end of the file" });
  assert.deepEqual(rep.warnings, [
    `W&B file ${file} (run torn1): the last 9 bytes (from byte ${offsets[offsets.length - 3]}) hold no whole record (a chunk of 54 bytes runs past the end of the file): the torn end of a killed run; read up to the last whole record`,
  ]);
});

test("a bad CRC mid-file is an error naming file, run and byte offset; no rows are handed out past it", async () => {
  const { bytes, offsets } = runLog("bad1", 400, 0);
  const bad = Buffer.from(bytes);
  bad[offsets[300] + 12] ^= 0x40;
  const file = write("run-bad1.wandb", bad);
  const seen: number[] = [];
  await assert.rejects(
    readWandbFile(file, { onRows: (rows) => void seen.push(...rows.map((r) => r._step)) }),
    new RegExp(`^WandbFileError: W&B file ${file.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")} \\(run bad1\\) at byte ${offsets[300]}: chunk checksum mismatch`),
  );
  assert.ok(seen.length < 150, "rows stop before the damaged block");
});

test("a wrong magic is refused at byte 0", async () => {
  const file = write("run-m.wandb", Buffer.from('{"_step": 0}\n'));
  await assert.rejects(readWandbFile(file), /at byte 0: not a W&B transaction log: it starts with 7b 22 5f 73 74 65 70/);
});

test("unknown record kinds are skipped and counted in one info line; rows around them are kept", async () => {
  const { bytes } = runLog("unk1", 5, 0, [unknownRecord(1), unknownRecord(2)]);
  const rep = recorder();
  const run = await readWandbFile(write("run-unk1.wandb", bytes), { reporter: rep });
  assert.equal(run.rowCount, 5);
  assert.equal(run.recordCounts.unknown, 2);
  assert.deepEqual(rep.infos, [
    `W&B file ${path.join(root, "run-unk1.wandb")} (run unk1): skipped 2 records of a kind this reader does not know (Record field 999)`,
  ]);
});

test("a file of another run id: refused by file name, by expected id, and for a second run record", async () => {
  const { bytes, offsets } = runLog("other1", 2, 0);
  await assert.rejects(
    readWandbFile(write("run-mine1.wandb", bytes)),
    new RegExp(`run-mine1\\.wandb at byte ${offsets[1]}: the file holds run "other1", not "mine1": a file of another run`),
  );
  await assert.rejects(readWandbFile(write("copy.wandb", bytes), { expectRunId: "mine1" }), /the file holds run "other1", not "mine1"/);
  const two = buildLog([runRecord({ runId: "a1" }), step(0), runRecord({ runId: "b2" })]);
  await assert.rejects(
    readWandbFile(write("two.wandb", two.bytes)),
    new RegExp(`two\\.wandb \\(run a1\\) at byte ${two.offsets[2]}: a second run record holds run "b2"`),
  );
});

test("history that does not step forward, or has no step, is refused naming the record's offset", async () => {
  const back = buildLog([runRecord({ runId: "s1" }), step(0), step(5), step(5)]);
  await assert.rejects(
    readWandbFile(write("s1.wandb", back.bytes)),
    new RegExp(`\\(run s1\\) at byte ${back.offsets[3]}: _step 5 does not increase \\(previous 5\\)`),
  );
  const none = buildLog([runRecord({ runId: "s2" }), historyRecord([{ key: "x", json: "1" }])]);
  await assert.rejects(readWandbFile(write("s2.wandb", none.bytes)), /at byte \d+: history record without a non-negative integer _step \(undefined\)/);
  const badJson = buildLog([
    runRecord({ runId: "s3" }),
    historyRecord([
      { key: "_step", json: "0" },
      { key: "loss", json: "nan" },
    ]),
  ]);
  await assert.rejects(readWandbFile(write("s3.wandb", badJson.bytes)), /at byte \d+: history record: key "loss": value_json is not JSON/);
});

test("a file without a run record, and a summary ahead of the history, are said plainly", async () => {
  await assert.rejects(
    readWandbFile(write("norun.wandb", buildLog([step(0)]).bytes)),
    /W&B file .*norun\.wandb: no run record in \d+ bytes: cannot tell which run it holds/,
  );
  const ahead = buildLog([runRecord({ runId: "ah1" }), step(0), summaryRecord([{ key: "_step", json: "7" }]), exitRecord(0)]);
  const rep = recorder();
  await readWandbFile(write("run-ah1.wandb", ahead.bytes), { reporter: rep });
  assert.deepEqual(rep.warnings, [
    `W&B file ${path.join(root, "run-ah1.wandb")} (run ah1): the summary reached _step 7 but the history in the file ends at _step 0: later rows are not in the file`,
  ]);
});

test("records split across the reader's 1 MiB read boundary come back whole (the read buffer is reused; 2.5 MB so the second read fills it)", async () => {
  const recs: Buffer[] = [runRecord({ runId: "big1" })];
  for (let i = 0; i < 5000; i++)
    recs.push(
      step(i, [
        { key: "pad", json: JSON.stringify("x".repeat(400 + (i % 97))) },
        { key: "v", json: String(i * 3) },
      ]),
    );
  const { bytes, offsets } = buildLog(recs);
  assert.ok(
    offsets.some((o, i) => o < 1048576 && i + 1 < offsets.length && offsets[i + 1] > 1048576),
    "a record straddles byte 1048576",
  );
  const run = await readWandbFile(write("run-big1.wandb", bytes));
  assert.equal(run.rowCount, 5000);
  run.rows.forEach((row, i) => assert.deepStrictEqual(row, { _step: i, _runtime: i / 2, v: i * 3 }, `row ${i}`));
  assert.deepEqual(run.droppedKeys, { pad: 5000 });
});
