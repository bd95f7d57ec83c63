/**
 * Starts the W&B test server from the command line:
 *   npx tsx tools/wandb-test-server/cli.ts --port 0 [--api-key K] [--host 127.0.0.1]
 * Prints one line `WANDB_BASE_URL=http://127.0.0.1:PORT` and serves until SIGINT/SIGTERM.
 *
 * Live mode (a run that grows while it is followed, live-run.ts; docs/follow.md, "A live run by hand"):
 *   --live FILE=ENTITY/PROJECT/RUN_ID   replay a JSON Lines history (e.g. data/wandb/history/sim-r2-85gs.jsonl)
 *   [--every SECONDS (2)] [--rows N (5): rows per tick] [--via store|sdk (store)]
 *   [--rewind-at TICK:STEP] [--resume-at TICK:STEP] [--delete-at TICK] [--lag-steps K: parquet exports lag K steps]
 * Prints one line per tick (`tick 3: e/p/live +5 rows (steps 10..14) running`) and serves on after the
 * run finished or was deleted.
 */
import { parseArgs } from "node:util";
import { type LiveEvent, LiveRun, type LiveRunOptions, type TickResult } from "./live-run";
import { startWandbTestServer, type WandbTestServer } from "./server";

interface LiveCli {
  run: Omit<LiveRunOptions, "events"> & { events: LiveEvent[] };
  everySeconds: number;
  lagSteps: number | null;
}

/** `TICK:STEP` of --rewind-at / --resume-at. */
function tickAndStep(option: string, text: string): { tick: number; toStep: number } {
  const m = /^(\d+):(\d+)$/.exec(text);
  if (!m || Number(m[1]) < 1) throw new Error(`invalid --${option}: ${text} (TICK:STEP, ticks from 1)`);
  return { tick: Number(m[1]), toStep: Number(m[2]) };
}

/** A count option: an integer >= min. */
function count(option: string, text: string, min: number): number {
  if (!/^\d+$/.test(text) || Number(text) < min) throw new Error(`invalid --${option}: ${text}`);
  return Number(text);
}

/** The live-mode options, or null without --live (the others are refused without it). */
function liveOptions(v: Record<string, string | string[] | boolean | undefined>): LiveCli | null {
  const given = ["every", "rows", "via", "rewind-at", "resume-at", "delete-at", "lag-steps"].filter((k) => v[k] !== undefined);
  if (v.live === undefined) {
    if (given.length > 0) throw new Error(`invalid --${given[0]}: only with --live`);
    return null;
  }
  const m = /^(.+)=([^/=]+)\/([^/=]+)\/([^/=]+)$/.exec(v.live as string);
  if (!m) throw new Error(`invalid --live: ${String(v.live)} (FILE=ENTITY/PROJECT/RUN_ID)`);
  const every = (v.every as string | undefined) ?? "2";
  if (!/^\d+(\.\d+)?$/.test(every) || Number(every) <= 0) throw new Error(`invalid --every: ${every} (seconds between ticks)`);
  const via = (v.via as string | undefined) ?? "store";
  if (via !== "store" && via !== "sdk") throw new Error(`invalid --via: ${via} (store or sdk)`);
  const events: LiveEvent[] = [
    ...((v["rewind-at"] as string[] | undefined) ?? []).map((t) => ({ kind: "rewind" as const, ...tickAndStep("rewind-at", t) })),
    ...((v["resume-at"] as string[] | undefined) ?? []).map((t) => ({ kind: "resume" as const, ...tickAndStep("resume-at", t) })),
    ...(v["delete-at"] === undefined ? [] : [{ kind: "delete" as const, tick: count("delete-at", v["delete-at"] as string, 1) }]),
  ];
  return {
    run: { historyFile: m[1], entity: m[2], project: m[3], runId: m[4], rowsPerTick: count("rows", (v.rows as string | undefined) ?? "5", 1), via, events },
    everySeconds: Number(every),
    lagSteps: v["lag-steps"] === undefined ? null : count("lag-steps", v["lag-steps"] as string, 0),
  };
}

/** One stdout line per tick. */
function tickLine(run: LiveCli["run"], r: TickResult): string {
  const steps = r.steps === null ? "" : ` (steps ${r.steps[0]}..${r.steps[1]})`;
  const events = r.events.length > 0 ? `; ${r.events.join("; ")}` : "";
  return `tick ${r.tick}: ${run.entity}/${run.project}/${run.runId} +${r.rows} rows${steps} ${r.state}${events}`;
}

/** Ticks the live run every `everySeconds` until it is finished or deleted; the server serves on. */
async function startLive(server: WandbTestServer, live: LiveCli): Promise<NodeJS.Timeout> {
  if (live.lagSteps !== null) server.setParquetExports({ enabled: true, lagSteps: live.lagSteps });
  const run = await LiveRun.start(server, live.run);
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return; // a tick through the SDK can outlast the interval
    busy = true;
    run
      .tick()
      .then((r) => {
        process.stdout.write(`${tickLine(live.run, r)}\n`);
        if (r.state !== "running") {
          clearInterval(timer);
          process.stdout.write(`live run ${r.state}: serving until Ctrl-C\n`);
        }
      })
      .catch((e: Error) => {
        clearInterval(timer);
        process.stderr.write(`live run stopped: ${e.message}\n`);
      })
      .finally(() => {
        busy = false;
      });
  }, live.everySeconds * 1000);
  return timer;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: "string", default: "0" },
      "api-key": { type: "string" },
      host: { type: "string", default: "127.0.0.1" },
      live: { type: "string" },
      every: { type: "string" },
      rows: { type: "string" },
      via: { type: "string" },
      "rewind-at": { type: "string", multiple: true },
      "resume-at": { type: "string", multiple: true },
      "delete-at": { type: "string" },
      "lag-steps": { type: "string" },
    },
    strict: true,
  });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`invalid --port: ${values.port}`);
  const live = liveOptions(values);
  const server = await startWandbTestServer({ port, host: values.host, apiKey: values["api-key"] });
  process.stdout.write(`WANDB_BASE_URL=${server.url}\n`);
  const timer = live === null ? null : await startLive(server, live);
  const stop = () => {
    if (timer !== null) clearInterval(timer);
    server.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

main().catch((e: Error) => {
  process.stderr.write(`${e.message}\n`);
  process.exit(2);
});
