/**
 * The reader against files real writers made (tools/tensorboard/make_tb_fixtures.py: tensorboardX's
 * SummaryWriter, and scalar tensors as PyTorch's new_style/double_precision, TF2 and integer writers
 * store them): every value equals what the maker logged, as the file stores it (expected.json, computed
 * by the maker from its inputs).
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test } from "node:test";

import { readEventFile } from "../../lib/tensorboard/read-event-file";
import { readTensorboardRun } from "../../lib/tensorboard/read-tensorboard-run";
import { TensorboardError } from "../../lib/tensorboard/tensorboard-error";
import type { Reporter } from "../../lib/types";
import { eventFile, scalarEvent, versionEvent } from "./event-builder";

const ROOT = path.join(__dirname, "../fixtures/tensorboard");

type Triple = [string, number, number];

interface Expected {
  files: string[];
  perFile: [string, number, number | string][][];
  kept: [string, number, number | string][];
  droppedKinds: Record<string, number>;
  tornTail: { offset: number; bytes: number } | null;
}

const num = (v: number | string): number => (typeof v === "number" ? v : Number(v)); // "NaN", "Infinity", "-Infinity"

function expected(name: string): Expected {
  return JSON.parse(fs.readFileSync(path.join(ROOT, name, "expected.json"), "utf8"));
}

const byTagStep = (a: Triple, b: Triple) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] - b[1]);

/** Every scalar of one file in file order, as the reader hands them on. */
async function fileScalars(file: string): Promise<Triple[]> {
  const out: Triple[] = [];
  await readEventFile(file, (ev) => {
    for (const s of ev.scalars) out.push([s.tag, ev.step, s.value]);
  });
  return out;
}

/** The rows no later row goes back below: the kept values (a restart's re-logged rows come before a row at or below their step). */
function keptRows(rows: Record<string, number>[]): Record<string, number>[] {
  let below = Infinity;
  const out: Record<string, number>[] = [];
  for (let i = rows.length - 1; i >= 0; i--) {
    if (rows[i]._step < below) out.unshift(rows[i]);
    below = Math.min(below, rows[i]._step);
  }
  return out;
}

function recorder(): Reporter & { infos: string[]; warns: string[] } {
  const r = { infos: [] as string[], warns: [] as string[] };
  return { ...r, info: (m: string) => r.infos.push(m), warn: (m: string) => r.warns.push(m) };
}

for (const name of ["tensorboardx-plain", "tensor-scalars", "restart", "torn"]) {
  test(`${name}: every scalar of every file equals what the maker logged, in file order`, async () => {
    const exp = expected(name);
    for (let i = 0; i < exp.files.length; i++) {
      const got = await fileScalars(path.join(ROOT, name, exp.files[i]));
      const want = exp.perFile[i].map(([t, s, v]): Triple => [t, s, num(v)]);
      assert.deepEqual(got, want, exp.files[i]);
    }
  });

  test(`${name}: the run's rows hold exactly the values the superseding rule keeps, one row per step, after the re-logged ones`, async () => {
    const exp = expected(name);
    const rep = recorder();
    const run = await readTensorboardRun(path.join(ROOT, name), { reporter: rep });
    const kept = keptRows(run.rows);
    const got: Triple[] = [];
    for (const row of kept) for (const k of Object.keys(row)) if (!k.startsWith("_")) got.push([k, row._step, row[k]]);
    assert.deepEqual(got.sort(byTagStep), exp.kept.map(([t, s, v]): Triple => [t, s, num(v)]).sort(byTagStep));
    assert.equal(run.rows.length - kept.length, name === "restart" ? 4 : 0, "the earlier file's re-logged steps 6..9 (restart only)");
    const steps = kept.map((r) => r._step);
    assert.deepEqual(
      steps,
      [...new Set(steps)].sort((a, b) => a - b),
      "one row per step, ascending",
    );
    assert.deepEqual(run.droppedKinds, exp.droppedKinds);
    assert.deepEqual(
      run.files.map((f) => f.fileName),
      exp.files,
    );
    const torn = run.files[0].tornTail;
    assert.deepEqual(torn === null ? null : { offset: torn.offset, bytes: torn.bytes }, exp.tornTail);
    if (exp.tornTail) assert.match(rep.warns.join("\n"), /hold no whole record .* read up to the last whole record/);
  });
}

test("rows carry _step = the event step and _timestamp = the latest wall time of the step's values", async () => {
  const run = await readTensorboardRun(path.join(ROOT, "tensorboardx-plain"));
  // The maker logs step s with walltime 1.8e9 + s.
  for (const row of run.rows) assert.equal(row._timestamp, 1_800_000_000 + row._step, `step ${row._step}`);
  assert.equal(run.lastStep, 9);
  assert.equal(run.rows.length, 10);
});

test("restart: the later file supersedes by tag from the step it re-logs, keeps the earlier values before it, and says so", async () => {
  const rep = recorder();
  const run = await readTensorboardRun(path.join(ROOT, "restart"), { reporter: rep });
  const at = (step: number) => keptRows(run.rows).find((r) => r._step === step)!;
  assert.equal(at(9).a, 109, "a re-logged from step 6 on: the later file's value");
  assert.equal(at(9).b, undefined, "b's step 9 was superseded (the later file logged b from 6 to 8)");
  assert.equal(at(9).only_first, 10, "a tag the later file never logs keeps its values (the rule is by tag)");
  assert.equal(at(5).a, 6, "below the re-logged step the earlier file's values stay");
  const [a, b] = run.files.map((f) => f.fileName);
  assert.deepEqual(run.superseded, [{ file: 0, by: 1, values: 8, fromStep: 6, toStep: 9 }]); // a 6..9, b 6..9
  assert.deepEqual(run.restarts, run.superseded, "across files: a restart");
  // The earlier file's a and b at 6..9 (the maker logs a = s + 1, b = s + 1.5) as rows of their own before the re-logged steps.
  assert.deepEqual(
    run.rows.slice(6, 10).map((r) => [r._step, r.a, r.b, r.only_first]),
    [6, 7, 8, 9].map((s) => [s, s + 1, s + 1.5, undefined]),
  );
  assert.equal(run.lastStep, 12);
  assert.ok(
    rep.infos.some((m) =>
      m.includes(`${b} re-logged steps 6-9 of ${a} (a restart from a checkpoint): its 8 earlier value(s) there are frozen before the re-logged ones`),
    ),
  );
});

test("a damaged file inside a run is an error naming the file and byte offset; nothing is returned", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tb-damaged-"));
  try {
    const src = path.join(ROOT, "tensorboardx-plain", expected("tensorboardx-plain").files[0]);
    const bytes = fs.readFileSync(src);
    bytes[200] ^= 0xff;
    const file = path.join(dir, "events.out.tfevents.1.h.1.0");
    fs.writeFileSync(file, bytes);
    await assert.rejects(readTensorboardRun(dir), (e: unknown) => {
      assert.ok(e instanceof TensorboardError);
      assert.equal(e.file, file);
      assert.ok(e.offset !== null && e.offset <= 200, `offset ${e.offset}`);
      assert.match(e.message, new RegExp(`^TensorBoard file ${file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} at byte ${e.offset}: `));
      return true;
    });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("a folder without event files is refused, naming subfolders that hold runs", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tb-empty-"));
  try {
    fs.mkdirSync(path.join(dir, "run1"));
    fs.writeFileSync(path.join(dir, "run1", "events.out.tfevents.1.h.1.0"), "");
    return assert.rejects(readTensorboardRun(dir), /a folder without TensorBoard event files .*its subfolders run1 hold event files: each is a run of its own/);
  } finally {
    setTimeout(() => fs.rmSync(dir, { recursive: true, force: true }), 0);
  }
});

test("a file of several 1 MiB read buffers: records cut by a buffer's end are read whole (the reused buffer is not kept)", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tb-big-"));
  try {
    const events = [versionEvent(0)];
    for (let step = 0; step < 60_000; step++) events.push(scalarEvent(step, 1000 + step, { "a/x": step / 7, "a/y": -step }));
    const { bytes, offsets } = eventFile(events);
    assert.ok(bytes.length > 2.5 * 2 ** 20 && !offsets.includes(2 ** 20), "a record spans the buffer boundary");
    fs.writeFileSync(path.join(dir, "events.out.tfevents.1.h.1.0"), bytes);
    const run = await readTensorboardRun(dir);
    assert.equal(run.rows.length, 60_000);
    for (const row of run.rows) {
      assert.equal(row["a/x"], Math.fround(row._step / 7), `step ${row._step}`);
      assert.equal(row["a/y"], -row._step);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
