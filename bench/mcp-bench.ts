/**
 * The MCP server on a 10^6-row archive (run by hand: `npx tsx bench/mcp-bench.ts`, numbers copied into
 * bench/RESULTS.md). One run of 400,000 optimizer updates (1,020,000 rows, the analysis bench's
 * generator, cached in bench/work/). Measures, in this process with the server's own code, opening the
 * archive (hash, parse, align), preparing its summary and health report (the server does both at start) and each answer; then the same calls through the official SDK's client
 * over stdio to a spawned server, round trip included, and that server's peak RSS.
 *
 *   npx tsx bench/mcp-bench.ts [--updates N (400000)] [--reps N (5)] [--work-dir DIR (bench/work)]
 */
import { readFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { parseArgs } from "node:util";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

import { callTool } from "../lib/mcp/mcp-server";
import { ArchiveSet } from "../lib/mcp/served-archive";
import { toolByName } from "../lib/mcp/tools";
import { ensureAnalysisArchive } from "./analysis-data";
import { ROOT } from "./child";

/** The calls measured: a first page, a page at the middle of the run by step, a cursor's next page, the summary, the health report. */
function calls(lastStep: number): { what: string; tool: string; args: Record<string, unknown> }[] {
  return [
    { what: "history, first 10^4 rows", tool: "history", args: { limit: 10_000 } },
    { what: "history, 10^4 rows from the middle step", tool: "history", args: { limit: 10_000, fromStep: Math.floor(lastStep / 2) } },
    {
      what: "history, 10^4 rows of 2 keys from the middle step",
      tool: "history",
      args: { limit: 10_000, fromStep: Math.floor(lastStep / 2), keys: ["train/grad_norm", "rollout/raw_reward"] },
    },
    { what: "summary (all columns, 1 round + all)", tool: "summary", args: {} },
    { what: "health (every check)", tool: "health", args: {} },
  ];
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (t0: number) => performance.now() - t0;

/** The answers in this process: first call (cold: memos empty) and the median of the later ones. */
async function inProcess(dir: string, reps: number, lastStep: number): Promise<void> {
  let t0 = performance.now();
  const set = await ArchiveSet.open([{ name: "big", dir }]);
  console.log(`open (verify + parse + align), in process: ${(ms(t0) / 1000).toFixed(2)} s`);
  t0 = performance.now();
  set.get("big").prepare();
  console.log(
    `prepare (summary + health, as the server does at start): ${(ms(t0) / 1000).toFixed(2)} s; ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB RSS`,
  );
  for (const c of calls(lastStep)) {
    const times: number[] = [];
    let rows = 0;
    for (let i = 0; i <= reps; i++) {
      t0 = performance.now();
      const out = callTool(set, toolByName(c.tool)!, c.args);
      times.push(ms(t0));
      if ("refusal" in out) throw new Error(`${c.tool} refused: ${out.refusal.reason}`);
      rows = (out.answer as { rows?: unknown[] }).rows?.length ?? 0;
    }
    console.log(`  ${c.what}: first ${times[0].toFixed(0)} ms, then median ${median(times.slice(1)).toFixed(0)} ms (${rows} rows)`);
  }
}

/** The same calls through the SDK's client to a spawned server over stdio. */
async function overStdio(dir: string, reps: number, lastStep: number): Promise<void> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ["--import", "tsx", "scripts/mcp.ts", "--data", `big=${dir}`],
    cwd: ROOT,
    stderr: "ignore",
  });
  const client = new Client({ name: "mcp-bench", version: "0" });
  let t0 = performance.now();
  await client.connect(transport);
  await client.listTools();
  console.log(`spawn + initialize + list tools over stdio: ${(ms(t0) / 1000).toFixed(2)} s`);
  // The first call waits while the server opens and prepares the archive.
  await client.callTool({ name: "runs", arguments: {} }, undefined, { timeout: 1_800_000 });
  console.log(`first answer (the server has opened and prepared the archive): ${(ms(t0) / 1000).toFixed(2)} s after the spawn`);
  for (const c of calls(lastStep)) {
    const times: number[] = [];
    for (let i = 0; i <= reps; i++) {
      t0 = performance.now();
      const r = await client.callTool({ name: c.tool, arguments: c.args });
      times.push(ms(t0));
      if (r.isError) throw new Error(JSON.stringify(r.content));
    }
    console.log(`  ${c.what}: first ${times[0].toFixed(0)} ms, then median ${median(times.slice(1)).toFixed(0)} ms (round trip)`);
  }
  const status = readFileSync(`/proc/${transport.pid}/status`, "utf8");
  console.log(`server peak RSS: ${status.match(/VmHWM:\s+(\d+)/)?.[1] ?? "?"} kB`);
  await client.close();
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      updates: { type: "string", default: "400000" },
      reps: { type: "string", default: "5" },
      "work-dir": { type: "string", default: path.join(ROOT, "bench", "work") },
    },
  });
  const a = await ensureAnalysisArchive(Number(values.updates), { workDir: values["work-dir"]!, runs: 1, log: console.log });
  const manifest = JSON.parse(readFileSync(path.join(a.dir, "manifest.json"), "utf8"));
  const lastStep = manifest.runs[0].lastStep as number;
  console.log(
    `archive: ${a.rows} rows, ${(a.bytes / 2 ** 20).toFixed(0)} MiB, 1 run; ${os.cpus().length} cores, load average ${os.loadavg()[0].toFixed(1)} at the start`,
  );
  await inProcess(a.dir, Number(values.reps), lastStep);
  await overStdio(a.dir, Number(values.reps), lastStep);
  console.log(`load average at the end: ${os.loadavg()[0].toFixed(1)}`);
}

main();
