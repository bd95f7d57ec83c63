/**
 * One way into frozen data (lib/pipeline/open-archive.ts): the modules of lib/ that open an archive
 * and align it are listed here, each through openArchive, and its refusals read `refusing to
 * <purpose> <dir>: ...` whatever is wrong (a changed file, a broken snapshot chain, no runs).
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test } from "node:test";

import { openArchive } from "../../lib/pipeline/open-archive";

const ROOT = path.resolve(__dirname, "../..");
const SAMPLE = path.join(ROOT, "data", "wandb");

/** Every .ts file below `dir` (relative to the repository). */
function tsFiles(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir)).flatMap((name) => {
    const rel = path.join(dir, name);
    if (fs.statSync(path.join(ROOT, rel)).isDirectory()) return tsFiles(rel);
    return rel.endsWith(".ts") ? [rel] : [];
  });
}

/** The files of lib/ whose code (comments aside) calls one of `names`. */
function callersOf(names: readonly string[]): string[] {
  const call = new RegExp(`\\b(${names.join("|")})\\(`);
  return tsFiles("lib")
    .filter((f) =>
      fs
        .readFileSync(path.join(ROOT, f), "utf8")
        .split("\n")
        .some((line) => !/^\s*(\*|\/\/)/.test(line) && call.test(line) && !/function\s/.test(line)),
    )
    .sort();
}

test("the readers of frozen data open it through openArchive; only the pipeline and the follow's incremental reader load and align", () => {
  assert.deepEqual(callersOf(["openArchive"]), [
    path.join("lib", "compare", "experiment.ts"),
    path.join("lib", "export", "write-exports.ts"),
    path.join("lib", "mcp", "open-archive.ts"),
    path.join("lib", "workspace", "open-workspace.ts"),
    path.join("lib", "workspace", "tensorboard-cross-check.ts"),
  ]);
  assert.deepEqual(callersOf(["loadArchive", "loadOrReport"]), [
    path.join("lib", "archive", "load-archive.ts"),
    path.join("lib", "pipeline", "open-archive.ts"),
  ]);
  assert.deepEqual(callersOf(["alignRuns"]), [path.join("lib", "follow", "live-archive.ts"), path.join("lib", "pipeline", "open-archive.ts")]);
});

/** A copy of the bundled sample archive to break. */
function sampleCopy(): string {
  const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "open-archive-")), "wandb");
  fs.cpSync(SAMPLE, dir, { recursive: true });
  return dir;
}

test("opens the bundled sample: verified, aligned with the detected profile, the manifest's sha256 as read", async () => {
  const opened = await openArchive(SAMPLE, { purpose: "analyse" });
  const bytes = fs.readFileSync(path.join(SAMPLE, "manifest.json"));
  const { createHash } = await import("node:crypto");
  assert.equal(opened.manifestSha256, createHash("sha256").update(bytes).digest("hex"));
  assert.equal(opened.aligned.profile.name, "slime");
  assert.equal(opened.aligned.profile.how, "detected");
  assert.equal(opened.archive.runs.length, opened.manifest.runs.length);
  assert.equal(opened.mappingHolds, true);
});

test("refusals read `refusing to <purpose> <label>: ...`: a changed file, no runs", async () => {
  const dir = sampleCopy();
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, "manifest.json"), "utf8"));
  const file = path.join(dir, manifest.runs[0].file);
  fs.appendFileSync(file, "\n");
  await assert.rejects(openArchive(dir, { purpose: "compare", label: "arm-a" }), (e: Error) =>
    e.message.startsWith(`refusing to compare arm-a: ${file}: sha256 mismatch (expected sha256 ${manifest.runs[0].sha256}, actual `),
  );
  fs.writeFileSync(path.join(dir, "manifest.json"), JSON.stringify({ ...manifest, runs: [] }));
  fs.rmSync(path.join(dir, "history"), { recursive: true });
  await assert.rejects(openArchive(dir, { purpose: "export from" }), {
    message: `refusing to export from ${dir}: manifest.json lists no runs (empty archive)`,
  });
});
