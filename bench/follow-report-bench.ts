/**
 * Per-snapshot cost of `npm run follow -- --report` before and after its exports came from the
 * follow's in-memory alignment (issue 41), in one process on one archive: a slime-shaped run of
 * `--rows` rows is followed on the local test server; then, `--reps` times, `--new` rows are
 * appended, one poll writes the snapshot, and both --report analyses of that snapshot run, taking
 * turns in order:
 *   - before: `analyseSnapshot` with exports from the lib of commit `--before` (extracted with `git
 *     archive` into a temporary folder): the whole archive loaded, aligned, checked, exported;
 *   - after: this tree's `LiveArchive.analyse` with exports: new rows parsed, one alignment, one
 *     analysis with its exports planned from it.
 * Both write into folders of their own, which must be equal byte for byte at every rep. Prints wall
 * and CPU (every thread of the process) medians and their ratios.
 *
 *   npx tsx bench/follow-report-bench.ts --before <commit> [--rows 100000] [--new 1000] [--reps 7]
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { parseArgs } from "node:util";

import { Follower } from "../lib/follow/follower";
import { LiveArchive } from "../lib/follow/live-archive";
import { startWandbTestServer } from "../tools/wandb-test-server/server";
import { ROOT } from "./child";
import { generateRun, pyJsonRow, rolloutsForRows } from "./slime-history";
import { median, spread } from "./stats";

/** The analysis of one --report snapshot: writes the exports of `dir` into `out`. */
type ReportStep = (dir: string, out: string) => Promise<unknown>;

/** `analyseSnapshot` of commit `rev`'s lib, from a copy of that commit's lib/ next to this tree's node_modules. */
async function analyseSnapshotAt(rev: string, tmp: string): Promise<ReportStep> {
  const old = path.join(tmp, "before-lib");
  fs.mkdirSync(old);
  const tar = execFileSync("git", ["archive", rev, "lib", "package.json"], { cwd: ROOT, maxBuffer: 1 << 28 });
  execFileSync("tar", ["-x", "-C", old], { input: tar });
  fs.symlinkSync(path.join(ROOT, "node_modules"), path.join(old, "node_modules"), "dir");
  const mod = (await import(path.join(old, "lib", "follow", "poll-analysis.ts"))) as {
    analyseSnapshot: (dir: string, opts: { exportsDir: string }) => Promise<unknown>;
  };
  return (dir, out) => mod.analyseSnapshot(dir, { exportsDir: out });
}

/** Every file of a folder, for the byte-for-byte check. */
function folderBytes(dir: string): Map<string, Buffer> {
  return new Map(
    fs
      .readdirSync(dir)
      .filter((n) => fs.statSync(path.join(dir, n)).isFile())
      .sort()
      .map((n) => [n, fs.readFileSync(path.join(dir, n))]),
  );
}

/** Wall and CPU (all threads) milliseconds of one step. */
async function timed(step: () => Promise<unknown>): Promise<{ wall: number; cpu: number }> {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  await step();
  const wall = performance.now() - t0;
  const c = process.cpuUsage(c0);
  return { wall, cpu: (c.user + c.system) / 1000 };
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { before: { type: "string" }, rows: { type: "string" }, new: { type: "string" }, reps: { type: "string" } } });
  if (!values.before) throw new Error("invalid --before: give the commit whose --report path is measured as before");
  const total = Number(values.rows ?? 100_000);
  const fresh = Number(values.new ?? 1000);
  const reps = Number(values.reps ?? 7);
  const texts: string[] = [];
  generateRun({ seed: 7, firstRollout: 0, rollouts: rolloutsForRows(total + fresh * reps) + 1, maxRows: total + fresh * reps }, (row) => {
    texts.push(pyJsonRow(row));
  });
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "follow-report-bench-"));
  const server = await startWandbTestServer({});
  try {
    const before = await analyseSnapshotAt(values.before, tmp);
    server.addRun({ entity: "e", project: "p", runId: "big", state: "running", rows: texts.slice(0, total) });
    const dir = path.join(tmp, "followed");
    const follower = await Follower.open({
      entity: "e",
      project: "p",
      runs: [{ runId: "big", round: "R0" }],
      outDir: dir,
      baseUrl: server.url,
      apiKey: server.apiKey,
      env: {},
    });
    await follower.poll();
    const live = new LiveArchive(dir);
    const after: ReportStep = (d, out) => (d === dir ? live.analyse(undefined, out) : Promise.reject(new Error(d)));
    // The follow's first snapshot: its in-memory archive reads everything once (not measured).
    await after(dir, path.join(tmp, "after"));
    const t = { before: [] as { wall: number; cpu: number }[], after: [] as { wall: number; cpu: number }[] };
    for (let r = 0; r < reps; r++) {
      server.appendRows("e", "p", "big", texts.slice(total + r * fresh, total + (r + 1) * fresh));
      await follower.poll();
      const order: ("before" | "after")[] = r % 2 === 0 ? ["before", "after"] : ["after", "before"];
      for (const side of order) t[side].push(await timed(() => (side === "before" ? before : after)(dir, path.join(tmp, side))));
      const a = folderBytes(path.join(tmp, "before"));
      const b = folderBytes(path.join(tmp, "after"));
      for (const [name, bytes] of a) if (!b.get(name)?.equals(bytes)) throw new Error(`rep ${r}: ${name} differs between before and after`);
      if (a.size !== b.size) throw new Error(`rep ${r}: ${a.size} files before, ${b.size} after`);
    }
    await live.close();
    const wall = (s: "before" | "after") => t[s].map((x) => x.wall);
    const cpu = (s: "before" | "after") => t[s].map((x) => x.cpu);
    console.log(`run of ${total}..${total + fresh * reps} rows, ${fresh} new rows per snapshot, ${reps} reps, before = ${values.before}`);
    for (const s of ["before", "after"] as const)
      console.log(`  ${s}: wall ${median(wall(s)).toFixed(0)} ms (${spread(wall(s), 0)}), CPU ${median(cpu(s)).toFixed(0)} ms (${spread(cpu(s), 0)})`);
    console.log(
      `  before / after: wall ${(median(wall("before")) / median(wall("after"))).toFixed(1)}x, CPU ${(median(cpu("before")) / median(cpu("after"))).toFixed(1)}x; exports byte-identical at every rep`,
    );
  } finally {
    await server.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
