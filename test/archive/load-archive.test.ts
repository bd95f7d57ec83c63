import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, test } from "node:test";

import { loadArchive, loadOrReport, verifyArchive } from "../../lib/archive/load-archive";
import { PREBUILT_WORKERS } from "../../lib/archive/worker-code";
import type { HistoryRow } from "../../lib/types";
import { isView, keysOf } from "../../lib/values/compact-values";
import { makeArchive, rewriteWithHash } from "./make-archive";

const root = fs.mkdtempSync(path.join(os.tmpdir(), "load-archive-"));
after(() => fs.rmSync(root, { recursive: true, force: true }));
let n = 0;
function fresh(): string {
  const dir = path.join(root, `a${n++}`);
  makeArchive(dir, [
    {
      runId: "r0",
      round: "R0",
      rows: [
        { _step: 0, a: 1 },
        { _step: 2, a: NaN, b: -Infinity },
      ],
    },
    { runId: "r1", round: "R1", rows: [{ _step: 0, c: 0.5 }] },
  ]);
  return dir;
}
const sha = (s: string) => createHash("sha256").update(s).digest("hex");

test("loads rows, rounds and non-finite values", async () => {
  const dir = fresh();
  const progress: string[] = [];
  const archive = await loadArchive(dir, { progress: (task, done, total) => progress.push(`${task} ${done}/${total}`) });
  assert.deepEqual(
    archive.runs.map((r) => [r.runId, r.round, r.entity, r.project, r.state, r.rows.length]),
    [
      ["r0", "R0", "e", "p", "finished", 2],
      ["r1", "R1", "e", "p", "finished", 1],
    ],
  );
  const [, second] = archive.runs[0].rows;
  assert.ok(Number.isNaN(second.a));
  assert.equal(second.b, -Infinity);
  assert.equal("b" in archive.runs[0].rows[0], false, "absent stays absent");
  assert.deepEqual(progress, ["load r0 0/2", "load r0 2/2", "load r1 0/1", "load r1 1/1"]);
  assert.equal((await verifyArchive(dir)).ok, true);
});

test("a changed byte is refused naming file, expected and actual hash", async () => {
  const dir = fresh();
  const file = path.join(dir, "history/r1.jsonl");
  const before = fs.readFileSync(file, "utf8");
  const changed = before.replace("0.5", "0.6");
  fs.writeFileSync(file, changed);
  await assert.rejects(loadArchive(dir), {
    message: `archive file ${file}: sha256 mismatch (expected ${sha(before)}, actual ${sha(changed)}); the file changed after it was frozen`,
  });
  const report = await verifyArchive(dir);
  assert.equal(report.ok, false);
  assert.deepEqual(report.files, [
    { file: "history/r0.jsonl", runId: "r0", expected: report.files[0].expected, actual: report.files[0].expected, ok: true },
    { file: "history/r1.jsonl", runId: "r1", expected: sha(before), actual: sha(changed), ok: false, problem: "sha256 mismatch" },
  ]);
});

test("a missing file is refused and reported", async () => {
  const dir = fresh();
  fs.rmSync(path.join(dir, "history/r0.jsonl"));
  await assert.rejects(loadArchive(dir), { message: `archive file ${path.join(dir, "history/r0.jsonl")} is missing (listed in manifest.json for run r0)` });
  const report = await verifyArchive(dir);
  assert.deepEqual(report.files[0].actual, null);
  assert.equal(report.files[0].problem, "missing");
});

test("a history file the manifest does not list is refused", async () => {
  const dir = fresh();
  fs.writeFileSync(path.join(dir, "history/stray.jsonl"), '{"_step":0}\n');
  await assert.rejects(loadArchive(dir), {
    message: `archive ${dir}: ${path.join(dir, "history/stray.jsonl")} not listed in manifest.json (mixed or tampered archive)`,
  });
  const report = await verifyArchive(dir);
  assert.deepEqual(report.files[2], {
    file: "history/stray.jsonl",
    runId: "",
    expected: "",
    actual: sha('{"_step":0}\n'),
    ok: false,
    problem: "not listed in manifest.json",
  });
});

test("missing or invalid manifest", async () => {
  const dir = path.join(root, "empty");
  fs.mkdirSync(dir);
  await assert.rejects(loadArchive(dir), { message: `archive ${dir} has no manifest.json (not a frozen archive, or never fetched)` });
  assert.deepEqual(await verifyArchive(dir), {
    ok: false,
    files: [
      {
        file: "manifest.json",
        runId: "",
        expected: "",
        actual: null,
        ok: false,
        problem: `archive ${dir} has no manifest.json (not a frozen archive, or never fetched)`,
      },
    ],
  });
  const bad = fresh();
  fs.writeFileSync(path.join(bad, "manifest.json"), '{"kind": "other"}');
  await assert.rejects(loadArchive(bad), { message: `invalid manifest ${path.join(bad, "manifest.json")}: kind is "other", expected "wandb-frozen-history"` });
  fs.writeFileSync(path.join(bad, "manifest.json"), '{"kind": "wandb-');
  await assert.rejects(loadArchive(bad), /^Error: invalid manifest .*manifest\.json: not valid JSON/);
});

test("corrupt JSON, truncation, non-numeric values and bad _step name file and line (hashes rewritten to match)", async () => {
  const cases: [string, (file: string) => string][] = [
    ['{"_step":0,"c":0.5}\n{"_step":1,"c":\n', (f) => `archive file ${f} line 2: not valid JSON (`],
    ['{"_step":0,"c":0.5}\n{"_step":1,"c":1}', (f) => `archive file ${f} line 2: truncated (the file does not end with a newline)`],
    ['{"_step":0,"c":"abc"}\n', (f) => `archive file ${f} line 1 key "c": key "c" is not numeric: "abc"`],
    ['{"c":1}\n', (f) => `archive file ${f} line 1 key "_step": missing or not an integer`],
    ['{"_step":3}\n{"_step":3}\n', (f) => `archive file ${f} line 2: _step 3 does not increase (previous 3)`],
    ['{"_step":0}\n{"_step":1}\n', (f) => `archive file ${f}: holds 2 rows, manifest.json says historyEvents 1`],
  ];
  for (const [text, message] of cases) {
    const dir = fresh();
    rewriteWithHash(dir, "r1", text);
    const file = path.join(dir, "history/r1.jsonl");
    await assert.rejects(loadArchive(dir), (e: unknown) => (e as Error).message.startsWith(message(file)), message(file));
  }
});

test("an empty run (no history) loads as zero rows", async () => {
  const dir = path.join(root, "empty-run");
  makeArchive(dir, [{ runId: "r0", round: "R0", rows: [] }]);
  const archive = await loadArchive(dir);
  assert.deepEqual(archive.runs[0].rows, []);
});

test("loadOrReport: the archive when every file verifies, else the full verify report (each changed, missing and unlisted file)", async () => {
  const good = await loadOrReport(fresh());
  assert.ok("archive" in good);
  assert.deepEqual(
    good.archive.runs.map((r) => r.rows.length),
    [2, 1],
  );

  const changed = fresh();
  fs.writeFileSync(path.join(changed, "history/r1.jsonl"), fs.readFileSync(path.join(changed, "history/r1.jsonl"), "utf8").replace("0.5", "0.6"));
  const r1 = await loadOrReport(changed);
  assert.ok("report" in r1);
  assert.deepEqual(
    r1.report.files.map((f) => [f.file, f.ok, f.problem]),
    [
      ["history/r0.jsonl", true, undefined],
      ["history/r1.jsonl", false, "sha256 mismatch"],
    ],
  );

  const gone = fresh();
  fs.rmSync(path.join(gone, "history/r0.jsonl"));
  fs.writeFileSync(path.join(gone, "history/extra.jsonl"), "{}\n");
  const r2 = await loadOrReport(gone);
  assert.ok("report" in r2);
  assert.deepEqual(
    r2.report.files.filter((f) => !f.ok).map((f) => [f.file, f.problem]),
    [
      ["history/r0.jsonl", "missing"],
      ["history/extra.jsonl", "not listed in manifest.json"],
    ],
  );

  const malformed = fresh();
  rewriteWithHash(malformed, "r1", '{"_step":0,"c":"x"}\n');
  await assert.rejects(loadOrReport(malformed), /key "c" is not numeric/, "a file that verifies but does not parse is an error, not a report");
});

test("compact rows hold the same keys, in the same order, and values; a bad line is refused with the same message", async () => {
  const dir = fresh();
  const plain = await loadArchive(dir);
  const compact = await loadArchive(dir, {}, { compact: true });
  compact.runs.forEach((run, i) =>
    run.rows.forEach((row, j) => {
      const p = plain.runs[i].rows[j];
      assert.ok(isView(row), "a view");
      assert.deepEqual(keysOf(row), Object.keys(p));
      for (const k of Object.keys(p)) assert.ok(Object.is(row[k], p[k]), `run ${i} row ${j} ${k}`);
    }),
  );
  const bad = fresh();
  rewriteWithHash(bad, "r1", '{"_step":0,"c":"x"}\n');
  const message = await loadArchive(bad).then(
    () => "loaded",
    (e: Error) => e.message,
  );
  assert.match(message, /key "c" is not numeric/);
  await assert.rejects(loadArchive(bad, {}, { compact: true }), { message });
});

test("compact load reads every second file on a worker thread: same rows; several failing files throw the first in manifest order; a changed file read there is still a report", async () => {
  const dir = path.join(root, `w${n++}`);
  const runs = [0, 1, 2, 3].map((i) => {
    const rows: HistoryRow[] = [
      { _step: 0, a: i },
      { _step: 1, a: i + 0.5, b: NaN },
    ];
    return { runId: `r${i}`, round: `R${i}`, rows };
  });
  makeArchive(dir, runs);
  const compact = await loadArchive(dir, {}, { compact: true, worker: true });
  assert.deepEqual(
    compact.runs.map((r) => r.rows.map((row) => keysOf(row).map((k) => row[k]))),
    runs.map((r) => r.rows.map((row) => Object.values(row))),
  );
  assert.ok(compact.runs.every((r) => r.rows.every(isView)));
  const here = await loadArchive(dir, {}, { compact: true, worker: false });
  assert.deepEqual(
    here.runs.map((r) => r.rows.map((row) => keysOf(row).map((k) => row[k]))),
    compact.runs.map((r) => r.rows.map((row) => keysOf(row).map((k) => row[k]))),
    "the same rows without the worker",
  );
  // A load worker that cannot start (its entry missing): its files are read on this thread, same rows.
  const g = globalThis as { [PREBUILT_WORKERS]?: Record<string, string> };
  g[PREBUILT_WORKERS] = { "load-worker": path.join(root, "no-such-load-worker.cjs") };
  try {
    const fallback = await loadArchive(dir, {}, { compact: true, worker: true });
    assert.deepEqual(
      fallback.runs.map((r) => r.rows.map((row) => keysOf(row).map((k) => row[k]))),
      here.runs.map((r) => r.rows.map((row) => keysOf(row).map((k) => row[k]))),
      "the same rows when the worker cannot start",
    );
  } finally {
    delete g[PREBUILT_WORKERS];
  }
  const allOnWorkers = await loadArchive(dir, {}, { compact: true, worker: "all" });
  assert.deepEqual(
    allOnWorkers.runs.map((r) => r.rows.map((row) => keysOf(row).map((k) => row[k]))),
    compact.runs.map((r) => r.rows.map((row) => keysOf(row).map((k) => row[k]))),
    "the same rows with every file on one of two workers",
  );
  // r1 (worker) and r2 (this thread) broken: r1's error, as the plain load gives it.
  rewriteWithHash(dir, "r1", '{"_step":0,"a":"x"}\n');
  rewriteWithHash(dir, "r2", '{"_step":0,"a":"y"}\n');
  const plainError = await loadArchive(dir).then(
    () => "loaded",
    (e: Error) => e.message,
  );
  assert.match(plainError, /r1\.jsonl line 1 key "a"/);
  await assert.rejects(loadArchive(dir, {}, { compact: true, worker: true }), { message: plainError });
  await assert.rejects(loadArchive(dir, {}, { compact: true, worker: "all" }), { message: plainError }, "both on workers: still the first in manifest order");
  // A changed byte in r3 (read on the worker): the full verify report, not an error.
  const changed = path.join(root, `w${n++}`);
  makeArchive(changed, runs);
  const f3 = path.join(changed, "history/r3.jsonl");
  fs.writeFileSync(f3, fs.readFileSync(f3, "utf8").replace("3.5", "3.25"));
  const r = await loadOrReport(changed, {}, { compact: true, worker: true });
  assert.ok("report" in r);
  assert.deepEqual(
    r.report.files.filter((f) => !f.ok).map((f) => [f.file, f.problem]),
    [["history/r3.jsonl", "sha256 mismatch"]],
  );
});

test("compact load starts no worker on a small archive unless asked: a worker's start costs more than it saves there", async () => {
  const dir = path.join(root, `w${n++}`);
  makeArchive(
    dir,
    [0, 1].map((i) => ({ runId: `r${i}`, round: `R${i}`, rows: [{ _step: 0, a: i }] })),
  );
  // A load worker that leaves a mark and stops: its file is then read on this thread, same rows.
  const mark = path.join(root, `worker-started-${n}`);
  const entry = path.join(root, `marking-load-worker-${n}.cjs`);
  fs.writeFileSync(entry, `require("node:fs").writeFileSync(${JSON.stringify(mark)}, "x"); throw new Error("stop");\n`);
  const g = globalThis as { [PREBUILT_WORKERS]?: Record<string, string> };
  g[PREBUILT_WORKERS] = { "load-worker": entry };
  try {
    const byDefault = await loadArchive(dir, {}, { compact: true });
    assert.equal(fs.existsSync(mark), false, "no worker by default on a 2-row archive");
    const asked = await loadArchive(dir, {}, { compact: true, worker: true });
    assert.equal(fs.existsSync(mark), true, "a worker when asked for one");
    assert.deepEqual(
      asked.runs.map((r) => r.rows.map((row) => keysOf(row).map((k) => row[k]))),
      byDefault.runs.map((r) => r.rows.map((row) => keysOf(row).map((k) => row[k]))),
    );
  } finally {
    delete g[PREBUILT_WORKERS];
  }
});
