import { type TestContext, test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

import { loadArchive } from "../../lib/archive/load-archive";
import { alignRuns } from "../../lib/align/align-runs";
import { planExports } from "../../lib/export/build-exports";
import { writeExports, writePlannedExports } from "../../lib/export/write-exports";
import { PREBUILT_WORKERS } from "../../lib/archive/worker-code";

const ROOT = path.resolve(__dirname, "../..");
const DATA = path.join(ROOT, "data", "wandb");
const COMMITTED = path.join(ROOT, "exports");
const EXPORT_FILES = ["rollouts.csv", "updates.csv", "summary.csv", "superseded.csv", "health.csv", "manifest.json"];

function tempDir(t: { after: (fn: () => void) => void }, prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** First differing line of two texts, as "line N: committed <a> / regenerated <b>". */
function firstDifference(committed: string, fresh: string): string {
  const a = committed.split("\n");
  const b = fresh.split("\n");
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (a[i] !== b[i])
      return `line ${i + 1}:\n  committed:   ${JSON.stringify(a[i] ?? "(end of file)")}\n  regenerated: ${JSON.stringify(b[i] ?? "(end of file)")}`;
  }
  return "(same lines, different bytes)";
}

test("the committed exports/ are byte-identical to a regeneration from data/", async (t) => {
  const out = tempDir(t, "exports-regen-");
  const result = await writeExports({ dataDir: DATA, outDir: out });
  assert.deepEqual([...result.files.map((f) => f.name), result.manifest.name], EXPORT_FILES);
  const committedCsvs = fs
    .readdirSync(COMMITTED)
    .filter((f) => f.endsWith(".csv"))
    .sort();
  assert.deepEqual(committedCsvs, EXPORT_FILES.filter((f) => f.endsWith(".csv")).sort(), "exports/*.csv are exactly the files the export writes");
  for (const name of EXPORT_FILES) {
    const committedFile = path.join(COMMITTED, name);
    assert.ok(fs.existsSync(committedFile), `exports/${name} is missing; run npm run export`);
    const committed = fs.readFileSync(committedFile, "utf8");
    const fresh = fs.readFileSync(path.join(out, name), "utf8");
    if (committed !== fresh) {
      assert.fail(`exports/${name} differs from a regeneration from data/ (run npm run export), first difference at ${firstDifference(committed, fresh)}`);
    }
  }
});

test("writing twice gives the same bytes and leaves no temp folder; other files in outDir stay", async (t) => {
  const out = tempDir(t, "exports-twice-");
  fs.writeFileSync(path.join(out, "keep.txt"), "mine\n");
  fs.mkdirSync(path.join(out, "notebooks"));
  const first = await writeExports({ dataDir: DATA, outDir: out });
  const bytes = EXPORT_FILES.map((f) => fs.readFileSync(path.join(out, f)));
  const second = await writeExports({ dataDir: DATA, outDir: out });
  assert.deepEqual(second, first);
  EXPORT_FILES.forEach((f, i) => assert.ok(fs.readFileSync(path.join(out, f)).equals(bytes[i]), f));
  assert.deepEqual(fs.readdirSync(out).sort(), [
    "health.csv",
    "keep.txt",
    "manifest.json",
    "notebooks",
    "rollouts.csv",
    "summary.csv",
    "superseded.csv",
    "updates.csv",
  ]);
});

test("a frozen file altered by one byte is refused, naming the file, and nothing is written", async (t) => {
  const tmp = tempDir(t, "exports-tamper-");
  const data = path.join(tmp, "data");
  fs.cpSync(DATA, data, { recursive: true });
  const victim = path.join(data, "history", "sim-r2-85gs.jsonl");
  const buf = fs.readFileSync(victim);
  const at = buf.indexOf("0.1"); // change a digit of a logged value, keep valid JSON
  buf[at + 2] = buf[at + 2] === 0x31 ? 0x32 : 0x31;
  fs.writeFileSync(victim, buf);
  const out = path.join(tmp, "out");
  await assert.rejects(writeExports({ dataDir: data, outDir: out }), (e: Error) => {
    assert.match(
      e.message,
      /^refusing to export from .*data: .*history\/sim-r2-85gs\.jsonl: sha256 mismatch \(expected sha256 5b77a52f[0-9a-f]{56}, actual [0-9a-f]{64}\)$/,
    );
    assert.ok(!e.message.includes("sim-r0-ghfk"), "only the altered file is named");
    return true;
  });
  assert.equal(fs.existsSync(out), false, "no export folder was created");
});

test("a missing history file and an unlisted file are refused, naming each", async (t) => {
  const tmp = tempDir(t, "exports-missing-");
  const data = path.join(tmp, "data");
  fs.cpSync(DATA, data, { recursive: true });
  fs.rmSync(path.join(data, "history", "sim-r1-kf63.jsonl"));
  fs.writeFileSync(path.join(data, "history", "extra.jsonl"), "{}\n");
  await assert.rejects(writeExports({ dataDir: data, outDir: path.join(tmp, "out") }), {
    message: `refusing to export from ${data}: ${path.join(data, "history/sim-r1-kf63.jsonl")}: missing; ${path.join(data, "history/extra.jsonl")}: not listed in manifest.json`,
  });
});

test("a folder without an archive manifest is refused with the archive's message", async (t) => {
  const tmp = tempDir(t, "exports-nomanifest-");
  await assert.rejects(writeExports({ dataDir: tmp, outDir: path.join(tmp, "..", path.basename(tmp) + "-out") }), {
    message: `refusing to export from ${tmp}: archive ${tmp} has no manifest.json (not a frozen archive, or never fetched)`,
  });
});

test("options: empty folders and an outDir inside the archive are refused", async () => {
  await assert.rejects(writeExports({ dataDir: "", outDir: "x" }), { message: 'invalid dataDir: ""' });
  await assert.rejects(writeExports({ dataDir: "data", outDir: "" }), { message: 'invalid outDir: ""' });
  await assert.rejects(writeExports({ dataDir: DATA, outDir: DATA }), {
    message: `invalid outDir: ${DATA} is inside the archive folder ${DATA} (exports would change the frozen archive)`,
  });
  await assert.rejects(writeExports({ dataDir: DATA, outDir: path.join(DATA, "history") }), /^Error: invalid outDir: .* is inside the archive folder/);
});

/** The sample's compact export plan (a fresh alignment per call) and its files written once on this thread. */
async function exportedHere(t: TestContext) {
  const archive = await loadArchive(DATA, {}, { compact: true });
  const plan = () => planExports({ manifest: archive.manifest }, alignRuns(archive.runs, { compact: true }), { workspaceVersion: "t" });
  const here = tempDir(t, "exports-here-");
  const a = await writePlannedExports(here, plan(), { csvWorkers: false });
  return { plan, here, a };
}

test("record tables formatted on worker threads (csvWorkers) give the same files and results as on this thread", async (t) => {
  const { plan, here, a } = await exportedHere(t);
  const workers = tempDir(t, "exports-workers-");
  const b = await writePlannedExports(workers, plan(), { csvWorkers: true });
  assert.deepEqual(b, { ...a, outDir: workers });
  assert.deepEqual(
    b.files.map((f) => f.name),
    ["rollouts.csv", "updates.csv", "summary.csv", "superseded.csv", "health.csv"],
    "manifest entries in table order, though the workers' files were written first",
  );
  for (const name of EXPORT_FILES) assert.ok(fs.readFileSync(path.join(workers, name)).equals(fs.readFileSync(path.join(here, name))), name);
  assert.ok(fs.statSync(path.join(workers, "rollouts.csv")).size > 10_000, "a real table, not a header");
});

test("a CSV worker that cannot start: the table is formatted on this thread, same bytes", async (t) => {
  const { plan, here, a } = await exportedHere(t);
  const fallback = tempDir(t, "exports-fallback-");
  const g = globalThis as { [PREBUILT_WORKERS]?: Record<string, string> };
  g[PREBUILT_WORKERS] = { "csv-worker": path.join(fallback, "no-such-csv-worker.cjs") };
  try {
    const b = await writePlannedExports(fallback, plan(), { csvWorkers: true });
    assert.deepEqual(b, { ...a, outDir: fallback });
  } finally {
    delete g[PREBUILT_WORKERS];
  }
  for (const name of EXPORT_FILES) assert.ok(fs.readFileSync(path.join(fallback, name)).equals(fs.readFileSync(path.join(here, name))), name);
});
