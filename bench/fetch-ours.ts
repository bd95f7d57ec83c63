/**
 * Benchmark side A of the fetch benchmark, run as its own process so that its peak memory is its own:
 *   tsx bench/fetch-ours.ts freeze ENTITY/PROJECT OUT_DIR RUN_ID [RUN_ID ...]
 *   tsx bench/fetch-ours.ts scan   ENTITY/PROJECT -       RUN_ID [RUN_ID ...]
 *   tsx bench/fetch-ours.ts raw    ENTITY/PROJECT -       RUN_ID [RUN_ID ...]
 * `freeze` is the workspace's fetch path with default settings (fetchAndFreeze into OUT_DIR);
 * `scan` reads metadata and every row through scanHistory without collecting or writing them (the
 * reader alone, like the Python side's loop), with the fetch's requests at once (pagesPerRun); `raw`
 * only downloads the same HistoryPage windows with as many requests at once and counts the row
 * strings, parsing none of them: the server's ceiling, what no client can beat on this server.
 * Env: WANDB_BASE_URL, WANDB_API_KEY.
 * Prints one JSON line: rows per run, seconds of the fetch (process start-up excluded), bytes frozen,
 * peak resident memory (VmHWM, kB).
 */
import { fetchAndFreeze } from "../lib/archive/fetch-and-freeze";
import { connectWandb } from "../lib/wandb/connection";
import { DEFAULT_CONCURRENCY } from "../lib/wandb/fetch-runs";
import { mapConcurrent } from "../lib/wandb/map-concurrent";
import { HISTORY_PAGE_QUERY } from "../lib/wandb/queries";
import { readRunMeta } from "../lib/wandb/read-run-meta";
import { DEFAULT_PAGE_SIZE, historyWindows, pagesPerRun, scanHistory } from "../lib/wandb/scan-history";
import { vmHwmKb } from "./process-memory";

async function main(): Promise<void> {
  const [mode, projectPath, outDir, ...runIds] = process.argv.slice(2);
  const [entity, project] = projectPath.split("/");
  const t0 = performance.now();
  // As fetchAndFreeze shares its concurrency: a lone run's windows are asked for 4 at a time.
  const pagesInFlight = pagesPerRun(DEFAULT_CONCURRENCY, runIds.length);
  let rows: number[];
  let bytes: number | null = null;
  if (mode === "freeze") {
    const manifest = await fetchAndFreeze({ entity, project, outDir, runs: runIds.map((runId, i) => ({ runId, round: `R${i}` })) });
    rows = manifest.runs.map((r) => r.historyEvents);
    bytes = manifest.runs.reduce((a, r) => a + r.bytes, 0);
  } else if (mode === "scan") {
    const conn = connectWandb();
    rows = await mapConcurrent(runIds, DEFAULT_CONCURRENCY, async (runId, _i, signal) => {
      const meta = await readRunMeta(conn, { entity, project, runId }, signal);
      let count = 0;
      await scanHistory(conn, meta, {
        signal,
        pagesInFlight,
        onRows: (page) => {
          count += page.length;
        },
      });
      return count;
    });
  } else if (mode === "raw") {
    const conn = connectWandb();
    const auth = `Basic ${Buffer.from(`api:${conn.apiKey}`).toString("base64")}`;
    rows = await mapConcurrent(runIds, DEFAULT_CONCURRENCY, async (runId, _i, signal) => {
      const meta = await readRunMeta(conn, { entity, project, runId }, signal);
      const counts = await mapConcurrent(historyWindows(meta.lastStep, DEFAULT_PAGE_SIZE), pagesInFlight, async ({ minStep, maxStep }) => {
        const variables = { entity, project, run: runId, minStep, maxStep, pageSize: DEFAULT_PAGE_SIZE };
        const res = await fetch(`${conn.baseUrl}/graphql`, {
          method: "POST",
          headers: { "Content-Type": "application/json", Authorization: auth },
          body: JSON.stringify({ query: HISTORY_PAGE_QUERY, variables, operationName: "HistoryPage" }),
        });
        return ((await res.json()) as { data: { project: { run: { history: string[] } } } }).data.project.run.history.length;
      });
      return counts.reduce((a, b) => a + b, 0);
    });
  } else {
    throw new Error(`invalid mode: ${mode}`);
  }
  const seconds = (performance.now() - t0) / 1000;
  process.stdout.write(JSON.stringify({ side: `ours-${mode}`, rows, seconds, processSeconds: process.uptime(), bytes, peakRssKb: vmHwmKb() }) + "\n");
}

main().catch((e) => {
  process.stderr.write(`${(e as Error).stack ?? e}\n`);
  process.exit(1);
});
