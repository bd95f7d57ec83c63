/**
 * Cost of one follow poll against a full re-fetch of the same archive (issue 30, item 6), measured in
 * one process on the local test server: a run of `--rows` slime-shaped rows is frozen by a first
 * poll; then, `--reps` times, `--new` rows are appended and one poll freezes them, and the same run
 * is fetched whole by fetchAndFreeze into another folder. Prints medians, their ratio and the rows
 * the server sent per poll (counted from the HistoryPage windows asked for).
 *
 *   npx tsx bench/follow-bench.ts [--rows 100000] [--new 1000] [--reps 5] [--overlap 100]
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { parseArgs } from "node:util";

import { fetchAndFreeze } from "../lib/archive/fetch-and-freeze";
import { Follower } from "../lib/follow/follower";
import { startWandbTestServer } from "../tools/wandb-test-server/server";
import { generateRun, pyJsonRow, rolloutsForRows } from "./slime-history";

function median(xs: number[]): number {
  const s = xs.slice().sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { rows: { type: "string" }, new: { type: "string" }, reps: { type: "string" }, overlap: { type: "string" } } });
  const total = Number(values.rows ?? 100_000);
  const fresh = Number(values.new ?? 1000);
  const reps = Number(values.reps ?? 5);
  const overlap = Number(values.overlap ?? 100);
  const texts: string[] = [];
  const steps: number[] = [];
  generateRun({ seed: 7, firstRollout: 0, rollouts: rolloutsForRows(total + fresh * reps) + 1, maxRows: total + fresh * reps }, (row) => {
    texts.push(pyJsonRow(row));
    steps.push(row._step);
  });
  const server = await startWandbTestServer({});
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "follow-bench-"));
  try {
    server.addRun({ entity: "e", project: "p", runId: "big", state: "running", rows: texts.slice(0, total) });
    const conn = { baseUrl: server.url, apiKey: server.apiKey, env: {} };
    const follower = await Follower.open({
      entity: "e",
      project: "p",
      runs: [{ runId: "big", round: "R0" }],
      outDir: path.join(tmp, "followed"),
      overlapRows: overlap,
      ...conn,
    });
    await follower.poll();
    const pollMs: number[] = [];
    const fullMs: number[] = [];
    const sent: number[] = [];
    for (let r = 0; r < reps; r++) {
      const from = total + r * fresh;
      server.appendRows("e", "p", "big", texts.slice(from, from + fresh));
      const before = server.requests.length;
      let t = performance.now();
      await follower.poll();
      pollMs.push(performance.now() - t);
      // Rows the server sent: those inside each HistoryPage window asked for.
      let rows = 0;
      for (const q of server.requests.slice(before)) {
        if (q.operationName !== "HistoryPage") continue;
        const { minStep, maxStep } = q.variables as { minStep: number; maxStep: number };
        rows += steps.slice(0, from + fresh).filter((s) => s >= minStep && s < maxStep).length;
      }
      sent.push(rows);
      t = performance.now();
      await fetchAndFreeze({
        entity: "e",
        project: "p",
        runs: [{ runId: "big", round: "R0" }],
        outDir: path.join(tmp, `full-${r}`),
        allowRunning: true,
        ...conn,
      });
      fullMs.push(performance.now() - t);
    }
    const p = median(pollMs);
    const f = median(fullMs);
    console.log(`run of ${total}..${total + fresh * reps} rows, ${fresh} new rows per poll, overlap ${overlap} rows, ${reps} reps`);
    console.log(`poll (new rows only): median ${p.toFixed(0)} ms [${Math.min(...pollMs).toFixed(0)}..${Math.max(...pollMs).toFixed(0)}]`);
    console.log(`full re-fetch of the same run: median ${f.toFixed(0)} ms [${Math.min(...fullMs).toFixed(0)}..${Math.max(...fullMs).toFixed(0)}]`);
    console.log(`full / poll: ${(f / p).toFixed(1)}x; rows sent per poll: ${sent.join(", ")} (new ${fresh} + overlap ${overlap} = ${fresh + overlap})`);
  } finally {
    await server.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
