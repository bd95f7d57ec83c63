/**
 * Cost of one follow poll against a full re-fetch of the same archive (issue 30, item 6), measured in
 * one process on the local test server: a run of `--rows` slime-shaped rows is frozen by a first
 * poll; then, `--reps` times, `--new` rows are appended and one poll freezes them, and the same run
 * is fetched whole by fetchAndFreeze into another folder. Prints medians, their ratio and the rows
 * the server sent per poll (counted from the HistoryPage windows asked for).
 *
 * Then the time from a row being logged to its flag being printed: in each rep's new rows one
 * rollout batch logs NaN in another key (non_finite flags once per key and run) (a later batch follows in the same rows, so the batch is
 * closed); from `appendRows` the poll freezes the rows and an analysis finds the flag: `LiveArchive`
 * (what `npm run follow` runs after each snapshot: new rows parsed) and `analyseSnapshot` (the whole
 * archive reloaded, as `--report` does), in turns. The peer is what finds it without a follow: a full
 * re-fetch of the run and `writeExports` of it. The wait for the next poll (at most `--interval`)
 * comes on top of the follow's figure and is not in it.
 *
 *   npx tsx bench/follow-bench.ts [--rows 100000] [--new 1000] [--reps 5] [--overlap 100] [--shape slime|trl]
 *
 * --shape trl: a run of one row per logged step with GRPOTrainer's keys (the step-axis aligner)
 * instead of slime's rows.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { parseArgs } from "node:util";

import { fetchAndFreeze } from "../lib/archive/fetch-and-freeze";
import { writeExports } from "../lib/export/write-exports";
import { Follower } from "../lib/follow/follower";
import { FlagsSeen } from "../lib/follow/new-flags";
import { LiveArchive } from "../lib/follow/live-archive";
import { analyseSnapshot } from "../lib/follow/poll-analysis";
import { startWandbTestServer, type WandbTestServer } from "../tools/wandb-test-server/server";
import { generateRun, pyJsonRow, rolloutsForRows } from "./slime-history";

/** Keys a rep's batch logs NaN in: one per rep, since non_finite flags a key once per run (the slime generator already logs NaN in rollout/kl and train/grad_norm). */
const SLIME_NAN_KEYS = [
  "rollout/log_probs",
  "rollout/raw_reward",
  "rollout/ref_log_probs",
  "rollout/advantages",
  "rollout/returns",
  "rollout/rewards",
  "rollout/total_lengths",
  "rollout/repetition_frac",
  "rollout/response_lengths",
];

/** TRL-shaped keys (one row per logged step, as GRPOTrainer logs them), each NaN in one rep. */
const TRL_KEYS = [
  "train/loss",
  "train/grad_norm",
  "train/learning_rate",
  "train/reward",
  "train/reward_std",
  "train/frac_reward_zero_std",
  "train/kl",
  "train/entropy",
  "train/clip_ratio/region_mean",
  "train/completions/mean_length",
  "train/completions/max_length",
  "train/rewards/accuracy/mean",
];

/**
 * A TRL-shaped run (--shape trl): one row per logged step, GRPOTrainer's keys with smooth values,
 * `train/num_tokens` cumulative and `train/global_step` the step; the step-axis aligner reads it.
 */
function trlRows(rows: number, emit: (row: Record<string, number>) => void): void {
  let tokens = 0;
  for (let i = 0; i < rows; i++) {
    const row: Record<string, number> = { _step: i, _runtime: 2 * i + 1, "train/global_step": i + 1, "train/epoch": i / 1000 };
    TRL_KEYS.forEach((k, j) => {
      row[k] = Math.sin(i / (50 + j)) + 1.5 + j;
    });
    tokens += 4096 + (i % 97);
    row["train/num_tokens"] = tokens;
    emit(row);
  }
}

function median(xs: number[]): number {
  const s = xs.slice().sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { rows: { type: "string" }, new: { type: "string" }, reps: { type: "string" }, overlap: { type: "string" }, shape: { type: "string" } },
  });
  const shape = values.shape ?? "slime";
  if (shape !== "slime" && shape !== "trl") throw new Error(`invalid --shape: ${shape} (slime or trl)`);
  const NAN_KEYS = shape === "trl" ? TRL_KEYS : SLIME_NAN_KEYS;
  const total = Number(values.rows ?? 100_000);
  const fresh = Number(values.new ?? 1000);
  const reps = Number(values.reps ?? 5);
  if (reps > NAN_KEYS.length) throw new Error(`invalid --reps: ${reps} (at most ${NAN_KEYS.length})`);
  const overlap = Number(values.overlap ?? 100);
  const texts: string[] = [];
  const steps: number[] = [];
  const nanIn = new Set<number>();
  // Rows of the latency part: `reps` more chunks of `fresh` rows, each with one batch's rollout/kl NaN.
  const rows = total + fresh * reps * 2;
  const emit = (row: Record<string, number>) => {
    const chunk = Math.floor((texts.length - total - fresh * reps) / fresh);
    const at = texts.length - total - fresh * reps - chunk * fresh;
    const key = NAN_KEYS[chunk % NAN_KEYS.length];
    if (chunk >= 0 && at >= fresh / 2 && key in row && !nanIn.has(chunk)) {
      row[key] = NaN;
      nanIn.add(chunk);
    }
    texts.push(pyJsonRow(row));
    steps.push(row._step);
  };
  if (shape === "trl") trlRows(rows, emit);
  else generateRun({ seed: 7, firstRollout: 0, rollouts: rolloutsForRows(rows) + 1, maxRows: rows }, emit);
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
    await flagLatency({ server, texts, from: total + fresh * reps, fresh, reps, follower, dir: path.join(tmp, "followed"), tmp, conn });
  } finally {
    await server.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/** What the latency part needs: the server, the rows, the follower of the first part and its archive. */
interface LatencySetup {
  server: WandbTestServer;
  texts: string[];
  from: number;
  fresh: number;
  reps: number;
  follower: Follower;
  dir: string;
  tmp: string;
  conn: { baseUrl: string; apiKey: string; env: Record<string, string> };
}

/**
 * Milliseconds from appending a chunk with a NaN batch to its flag: by a poll and each analysis (the
 * full one, `analyseSnapshot`, and the in-memory one `npm run follow` uses, `LiveArchive`, taking
 * turns on the same snapshot), and by a full re-fetch and export.
 */
async function flagLatency(x: LatencySetup): Promise<void> {
  const seen = await FlagsSeen.open(x.dir);
  const seenLive = await FlagsSeen.open(x.dir);
  const live = new LiveArchive(x.dir);
  const t: Record<"poll" | "full" | "live" | "refetch" | "fetch" | "read" | "align" | "health" | "cpuFollow" | "cpuPeer", number[]> = {
    cpuFollow: [],
    cpuPeer: [],
    fetch: [],
    poll: [],
    full: [],
    live: [],
    refetch: [],
    read: [],
    align: [],
    health: [],
  };
  const printed = (flags: readonly { check: string }[]) => flags.filter((f) => f.check === "non_finite").length;
  // The flags already there (none in the generated rows, but say so if there were); the in-memory archive reads it whole here.
  const base = printed(seen.take((await analyseSnapshot(x.dir)).health.flags));
  if (printed(seenLive.take((await live.analyse()).health.flags)) !== base) throw new Error("the in-memory analysis differs from analyseSnapshot's");
  for (let r = 0; r < x.reps; r++) {
    const from = x.from + r * x.fresh;
    x.server.appendRows("e", "p", "big", x.texts.slice(from, from + x.fresh));
    let t0 = performance.now();
    // CPU of every thread of the process (the hashing thread included), in ms.
    const cpuMs = (from: NodeJS.CpuUsage) => {
      const u = process.cpuUsage(from);
      return (u.user + u.system) / 1000;
    };
    let c0 = process.cpuUsage();
    const result = await x.follower.poll();
    t.poll.push(performance.now() - t0);
    let cpuFollow = cpuMs(c0);
    let cpuPeer = 0;
    const at = { snapshot: result.sequence ?? 0, takenAt: result.takenAt };
    const analyses: (() => Promise<void>)[] = [
      async () => {
        t0 = performance.now();
        c0 = process.cpuUsage();
        const fresh = printed(seen.take((await analyseSnapshot(x.dir)).health.flags, at));
        t.full.push(performance.now() - t0);
        cpuPeer += cpuMs(c0);
        if (fresh !== 1) throw new Error(`rep ${r}: ${fresh} new non_finite flag(s) printed by analyseSnapshot, expected 1`);
      },
      async () => {
        t0 = performance.now();
        c0 = process.cpuUsage();
        const fresh = printed(seenLive.take((await live.analyse()).health.flags, at));
        t.live.push(performance.now() - t0);
        cpuFollow += cpuMs(c0);
        if (fresh !== 1) throw new Error(`rep ${r}: ${fresh} new non_finite flag(s) printed by LiveArchive, expected 1`);
        if (live.stats.rowsParsed !== x.fresh) throw new Error(`rep ${r}: LiveArchive parsed ${live.stats.rowsParsed} rows, ${x.fresh} new`);
        t.read.push(live.stats.ms.read);
        t.align.push(live.stats.ms.align);
        t.health.push(live.stats.ms.health);
      },
    ];
    for (const a of r % 2 === 0 ? analyses : analyses.reverse()) await a();
    t0 = performance.now();
    c0 = process.cpuUsage();
    const once = path.join(x.tmp, `latency-${r}`);
    await fetchAndFreeze({ entity: "e", project: "p", runs: [{ runId: "big", round: "R0" }], outDir: path.join(once, "wandb"), allowRunning: true, ...x.conn });
    t.fetch.push(performance.now() - t0);
    cpuPeer += cpuMs(c0);
    t.cpuFollow.push(cpuFollow);
    t.cpuPeer.push(cpuPeer);
    const exported = await writeExports({ dataDir: path.join(once, "wandb"), outDir: path.join(once, "exports"), allowIssues: true });
    t.refetch.push(performance.now() - t0);
    if (printed(exported.health.flags) !== base + r + 1)
      throw new Error(`rep ${r}: the full re-fetch and export found ${printed(exported.health.flags)} non_finite flags`);
  }
  const span = (xs: number[]) => `median ${median(xs).toFixed(0)} ms [${Math.min(...xs).toFixed(0)}..${Math.max(...xs).toFixed(0)}]`;
  const sums = (ys: number[]) => t.poll.map((p, i) => p + ys[i]);
  const refetch = median(t.refetch);
  console.log(
    `load average at the end: ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")}`,
  );
  console.log(`row logged -> flag printed (wait for the poll not included); poll alone: ${span(t.poll)}`);
  console.log(`  poll + analyseSnapshot (full reload): ${span(sums(t.full))}; full re-fetch / this: ${(refetch / median(sums(t.full))).toFixed(1)}x`);
  console.log(`  poll + LiveArchive (new rows parsed): ${span(sums(t.live))}; full re-fetch / this: ${(refetch / median(sums(t.live))).toFixed(1)}x`);
  console.log(
    `  analysis alone: analyseSnapshot ${span(t.full)}; LiveArchive ${span(t.live)} (read + hash ${span(t.read)}, align ${span(t.align)}, health ${span(t.health)})`,
  );
  console.log(`  the same flag by a full re-fetch and export: ${span(t.refetch)}`);
  // The issue's peer: a full re-fetch and re-analysis (no exports), per rep: that rep's re-fetch plus its analyseSnapshot.
  const reanalysed = t.fetch.map((f, i) => f + t.full[i]);
  console.log(
    `  full re-fetch + analyseSnapshot (re-analysis, no exports): ${span(reanalysed)}; / poll + LiveArchive: ${(median(reanalysed) / median(sums(t.live))).toFixed(1)}x`,
  );
  console.log(
    `  CPU, all threads: poll + LiveArchive ${span(t.cpuFollow)}; full re-fetch + analyseSnapshot ${span(t.cpuPeer)}; ratio ${(median(t.cpuPeer) / median(t.cpuFollow)).toFixed(1)}x`,
  );
  await live.close();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
