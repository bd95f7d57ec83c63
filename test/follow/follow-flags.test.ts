/**
 * Flags as rounds complete (scripts/follow.ts): a health flag of a run that grows while it is followed
 * is printed once, at the poll whose snapshot closes its batch, with its rule; an open batch is never
 * analysed; a restarted follow does not print it again; --report writes what `npm run export` writes.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";

import { Follower } from "../../lib/follow/follower";
import { readFlagsPrinted } from "../../lib/follow/new-flags";
import { ROOT, sampleHistory, useFollowTestBed } from "./follow-test-bed";

const bed = useFollowTestBed("follow-flags-");
const root = bed.root;

/** Every file of a folder (recursively) by relative path, with its bytes. */
function filesOf(dir: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  for (const name of fs.readdirSync(dir, { recursive: true }) as string[]) {
    const p = path.join(dir, name);
    if (fs.statSync(p).isFile()) out.set(name, fs.readFileSync(p));
  }
  return out;
}

const NON_FINITE_RULE =
  "a NaN, Inf or -Inf value in a numeric key of an optimizer update or rollout batch (one flag per key and round; critic keys train/critic-* not read)";

test("a flag whose batch closes at poll 2 is printed once, at poll 2, with its rule; not while its batch is open; not again after a restart; --report equals npm run export", async () => {
  const server = bed.server;
  const late = "sim-r2-85gs"; // rollout 47 (_step 30..34) logs rollout/kl = NaN at _step 31: the sample's one flag
  const rows = sampleHistory(late);
  const config = bed.addSampleRuns(late, 32);
  let lateQueries = 0;
  server.onRequest = (entry) => {
    if (entry.operationName !== "Run" || (entry.variables as { name?: string }).name !== late) return;
    // Before poll 2: the rest of rollout 47 and the first rows of rollout 48 (its manager rows, _step 35 and 36).
    if (++lateQueries === 2) server.appendRows(config.entity, config.project, late, rows.slice(32, 37));
  };
  const out = path.join(root, "archive");
  const exportsDir = path.join(root, "exports");
  const args = ["--config", path.join(ROOT, "data/runs.json"), "--out", out, "--interval", "0", "--report", "--report-out", exportsDir];
  const first = await bed.follow([...args, "--polls", "2"]);
  server.onRequest = null;
  assert.equal(first.code, 0, first.stderr);
  const lines = first.stdout.trimEnd().split("\n");
  const poll2 = lines.findIndex((l) => l.startsWith("poll 2:"));
  assert.match(lines[0], /^poll 1: snapshot 1: .*sim-r2-85gs \+32/);
  assert.deepEqual(lines.slice(1, poll2), [
    "  open: run sim-r2-85gs (round R2): rollout 47 (1 rollout record(s), 0 update(s) so far) is not analysed until a later one is logged",
  ]);
  assert.match(lines[poll2], /^poll 2: snapshot 2: .*sim-r2-85gs \+5/);
  assert.deepEqual(lines.slice(poll2 + 1, -1), [
    "  open: run sim-r2-85gs (round R2): rollout 48 (1 rollout record(s), 0 update(s) so far) is not analysed until a later one is logged",
    `  new flag: non_finite (warning) run sim-r2-85gs rollout batch 47..47 rollout/kl: ${NON_FINITE_RULE}`,
  ]);
  assert.deepEqual(
    (await readFlagsPrinted(out)).map((f) => `${f.check} ${f.runId} ${f.first} snapshot ${f.snapshot}`),
    ["non_finite sim-r2-85gs 47 snapshot 2"],
  );

  // --report: the exports are those npm run export writes from the same archive, byte for byte.
  const exported = path.join(root, "exported");
  const plain = await bed.run("scripts/export.ts", ["--data", out, "--out", exported, "--config", path.join(ROOT, "data/runs.json"), "--allow-issues"]);
  assert.equal(plain.code, 0, plain.stderr);
  const a = filesOf(exportsDir);
  const b = filesOf(exported);
  assert.deepEqual([...a.keys()].sort(), [...b.keys()].sort());
  for (const [name, bytes] of a) assert.ok(bytes.equals(b.get(name)!), `${name} differs from npm run export's`);

  // The run finishes; a follow restarted on the archive freezes the rest and prints no flag again.
  server.appendRows(config.entity, config.project, late, rows.slice(37));
  server.setState(config.entity, config.project, late, "finished");
  const again = await bed.follow([...args, "--until", "finished"]);
  assert.equal(again.code, 0, again.stderr);
  const relines = again.stdout.trimEnd().split("\n");
  assert.match(relines[0], /^poll 1: snapshot 3: .*sim-r2-85gs \+63/);
  assert.deepEqual(
    relines.filter((l) => l.startsWith("  ")),
    [],
    "nothing open (the run finished), no flag printed again",
  );
  assert.equal((await readFlagsPrinted(out)).length, 1);
  // Once finished, the followed archive's health table is the bundled one.
  assert.equal(fs.readFileSync(path.join(exportsDir, "health.csv"), "utf8"), fs.readFileSync(path.join(ROOT, "exports/health.csv"), "utf8"));
});

test("a snapshot written but not analysed (the follow stopped in between) is analysed when a follow restarts, once", async () => {
  bed.server.addRun({ entity: "e", project: "p", runId: "caught", state: "finished", rows: sampleHistory("sim-r2-85gs") });
  const out = path.join(root, "caught");
  await (
    await Follower.open({
      entity: "e",
      project: "p",
      runs: [{ runId: "caught", round: "R2" }],
      outDir: out,
      ...bed.connection(),
    })
  ).poll();
  const args = ["--entity", "e", "--project", "p", "--run", "caught=R2", "--out", out, "--interval", "0", "--until", "finished"];
  const first = await bed.follow(args);
  assert.equal(first.code, 0, first.stderr);
  assert.deepEqual(first.stdout.trimEnd().split("\n").slice(0, 4), [
    "snapshot 1 (written before this follow, not analysed yet):",
    `  new flag: non_finite (warning) run caught rollout batch 47..47 rollout/kl: ${NON_FINITE_RULE}`,
    "poll 1: nothing new (caught finished)",
    "poll 2: nothing new (caught finished)",
  ]);
  assert.deepEqual(
    (await readFlagsPrinted(out)).map((f) => f.snapshot),
    [1],
  );
  const again = await bed.follow(args);
  assert.equal(again.code, 0, again.stderr);
  assert.deepEqual(
    again.stdout.split("\n").filter((l) => !l.startsWith("poll ") && !l.startsWith("followed ") && l !== ""),
    [],
    "snapshot 1 is recorded as analysed: nothing again",
  );
});

test("--html: the HTML report of notebooks 01-06 rebuilt after the snapshot, notebook 06 showing the snapshot that first printed the flag", async () => {
  bed.server.addRun({ entity: "e", project: "p", runId: "paged", state: "finished", rows: sampleHistory("sim-r2-85gs") });
  const out = path.join(root, "html", "archive");
  const report = path.join(root, "html", "exports");
  const r = await bed.follow([
    "--entity",
    "e",
    "--project",
    "p",
    "--run",
    "paged=R2",
    "--out",
    out,
    "--polls",
    "1",
    "--report",
    "--report-out",
    report,
    "--html",
  ]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, new RegExp(`\\n  report: ${report.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}/report/index\\.html \\(snapshot 1, \\d+ s\\)\\n`), r.stderr);
  assert.deepEqual(fs.readdirSync(path.join(report, "notebooks")), [
    "01-fetch.ipynb",
    "02-alignment.ipynb",
    "03-policy-diagnostics.ipynb",
    "04-response-length-throughput.ipynb",
    "05-export.ipynb",
    "06-health.ipynb",
  ]);
  // Notebook 05 shows the exports the snapshot's analysis wrote into the report folder: no second export into a temp folder.
  const nb05 = fs.readFileSync(path.join(report, "notebooks", "05-export.ipynb"), "utf8");
  assert.ok(nb05.includes(`files into ${report}`), "notebook 05 names the report folder's exports");
  assert.doesNotMatch(nb05, /follow-report-/);
  const page = fs.readFileSync(path.join(report, "report", "06-health.html"), "utf8");
  assert.match(page, /rollout 47\.\.47<\/td><td[^>]*>rollout 47\.\.47<\/td><td[^>]*>1<\/td>/, "first seen in snapshot 1");
  assert.ok(fs.existsSync(path.join(report, "report", "index.html")));
  assert.deepEqual(
    fs.readdirSync(report).filter((n) => n.startsWith(".")),
    [],
    "no staging folder left",
  );
});
