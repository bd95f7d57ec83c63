/**
 * Comparing on binned axes (lib/compare/compare-axis.ts, axis-cells.ts, wall-clock.ts): each bin's
 * value against means computed here straight from the frozen JSONL lines (no aligner), empty bins
 * left empty, and refusals when an axis is missing on one side.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

import { fetchAndFreeze } from "../../lib/archive/fetch-and-freeze";
import { axisCells } from "../../lib/compare/axis-cells";
import { compareArms } from "../../lib/compare/compare-arms";
import { binLabel, binOf, compareAxis, type CompareAxis } from "../../lib/compare/compare-axis";
import { runComparison, readCompareConfig } from "../../lib/compare/compare-config";
import { comparedColumns } from "../../lib/compare/compared-columns";
import { loadExperiment } from "../../lib/compare/experiment";
import { TRL_PROFILE } from "../../lib/registry/profile-trl";
import type { AlignedRuns, HistoryRow } from "../../lib/types";
import { makeArchive } from "../archive/make-archive";

const ROOT = path.resolve(__dirname, "../..");
const SAMPLE = path.join(ROOT, "data/compare");
const work = mkdtempSync(path.join(os.tmpdir(), "compare-axis-test-"));
after(() => rmSync(work, { recursive: true, force: true }));

/** The runs of an archive as parsed JSON lines, in manifest order. */
function runsOf(dir: string): { runId: string; round: string; rows: HistoryRow[] }[] {
  const manifest = JSON.parse(readFileSync(path.join(dir, "manifest.json"), "utf8")) as { runs: { runId: string; round: string; file: string }[] };
  return manifest.runs.map((r) => ({
    runId: r.runId,
    round: r.round,
    rows: readFileSync(path.join(dir, r.file), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as HistoryRow),
  }));
}

/** Mean per bin label of (x, v) pairs. */
function binMeans(points: { x: number; v: number }[], width: number): Map<string, number> {
  const sums = new Map<string, { s: number; n: number }>();
  for (const { x, v } of points) {
    const label = binLabel(Math.floor(x / width), width);
    const acc = sums.get(label) ?? { s: 0, n: 0 };
    acc.s += v;
    acc.n++;
    sums.set(label, acc);
  }
  return new Map([...sums].map(([k, { s, n }]) => [k, s / n]));
}

/** Reward points of an archive: one per rollout batch (rows sharing rollout/step), x by `at`. */
function rewardPoints(dir: string, at: (batch: HistoryRow[], origin: number) => number): { x: number; v: number }[] {
  const runs = runsOf(dir);
  const origin = Math.min(...runs.map((r) => (r.rows[0]._timestamp as number) - (r.rows[0]._runtime as number)));
  const out: { x: number; v: number }[] = [];
  for (const run of runs) {
    const batches = new Map<number, HistoryRow[]>();
    for (const row of run.rows)
      if (typeof row["rollout/step"] === "number") batches.set(row["rollout/step"], [...(batches.get(row["rollout/step"]) ?? []), row]);
    for (const batch of batches.values()) {
      const reward = batch.find((r) => typeof r["rollout/raw_reward"] === "number");
      if (reward !== undefined) out.push({ x: at(batch, origin), v: reward["rollout/raw_reward"] as number });
    }
  }
  return out;
}

/** Entropy points of an archive: one per optimizer update row, x by `at`. */
function entropyPoints(dir: string, at: (row: HistoryRow, firstStep: number, origin: number) => number): { x: number; v: number }[] {
  const runs = runsOf(dir);
  const origin = Math.min(...runs.map((r) => (r.rows[0]._timestamp as number) - (r.rows[0]._runtime as number)));
  const rows = runs.flatMap((r) => r.rows).filter((r) => typeof r["train/entropy_loss"] === "number");
  const firstStep = Math.min(...rows.map((r) => r["train/step"] as number));
  return rows.map((r) => ({ x: at(r, firstStep, origin), v: r["train/entropy_loss"] as number }));
}

/** Asserts an experiment's bin cells of a column equal the expected means (1e-12 relative) and no other bin has a value. */
function assertCells(cells: Record<string, number | null>, expected: Map<string, number>, what: string): void {
  const bins = Object.keys(cells).filter((k) => k !== "all" && cells[k] !== null);
  assert.deepEqual(bins.sort(), [...expected.keys()].sort(), `${what}: the bins with a value`);
  for (const [bin, v] of expected) assert.ok(Math.abs((cells[bin] as number) - v) <= 1e-12 * Math.abs(v), `${what} ${bin}: ${cells[bin]} vs ${v}`);
}

const dirs = ["n8-s1", "n8-s2", "n16-s4"];

test("rollout axis: each bin is the mean of the batches whose rollout/step falls in it; bins of a round's width give the round's cells", async () => {
  const width = 3;
  for (const d of dirs) {
    const e = await loadExperiment(path.join(SAMPLE, d), {}, d, compareAxis("rollout", width));
    assertCells(
      e.cells.reward_mean,
      binMeans(
        rewardPoints(path.join(SAMPLE, d), (b) => b[0]["rollout/step"] as number),
        width,
      ),
      `${d} reward`,
    );
    assert.equal(e.unplaced, 0);
  }
  // The sample's rounds are 8 rollouts each (R0: 0-7, R1: 8-15): bins of 8 are the rounds, for every column.
  const byRound = await loadExperiment(path.join(SAMPLE, "n8-s1"));
  const byBin = await loadExperiment(path.join(SAMPLE, "n8-s1"), {}, "n8-s1", compareAxis("rollout", 8));
  assert.deepEqual(byBin.rounds, ["0-8", "8-16"]);
  for (const c of byRound.columns) {
    assert.equal(byBin.cells[c.name]["0-8"] ?? null, byRound.cells[c.name].R0, c.name);
    assert.equal(byBin.cells[c.name]["8-16"] ?? null, byRound.cells[c.name].R1, c.name);
    assert.equal(byBin.cells[c.name].all, byRound.cells[c.name].all, `${c.name}: the all cell is the summary's`);
  }
});

test("update axis: 0-based update index (train/step from the lineage's first), per-update concepts by their own update", async () => {
  const width = 5;
  for (const d of dirs) {
    const e = await loadExperiment(path.join(SAMPLE, d), {}, d, compareAxis("update", width));
    const expected = binMeans(
      entropyPoints(path.join(SAMPLE, d), (r, first) => (r["train/step"] as number) - first),
      width,
    );
    assertCells(e.cells.entropy_mean, expected, `${d} entropy`);
  }
});

test("wall axis: seconds since the first run started (_timestamp - _runtime), a batch at its latest row, gaps between runs included", async () => {
  const width = 600;
  for (const d of dirs) {
    const dir = path.join(SAMPLE, d);
    const e = await loadExperiment(dir, {}, d, compareAxis("wall", width));
    assertCells(
      e.cells.entropy_mean,
      binMeans(
        entropyPoints(dir, (r, _f, origin) => (r._timestamp as number) - origin),
        width,
      ),
      `${d} entropy`,
    );
    const latest = (b: HistoryRow[], origin: number) => Math.max(...b.map((r) => r._timestamp as number)) - origin;
    assertCells(e.cells.reward_mean, binMeans(rewardPoints(dir, latest), width), `${d} reward`);
  }
  // The second run starts about 40 minutes after the first ended: bins in that gap hold nothing.
  const e = await loadExperiment(path.join(SAMPLE, "n8-s1"), {}, "n8-s1", compareAxis("wall", 60));
  const ks = e.rounds.map((b) => Number.parseFloat(b) / 60);
  assert.ok(
    ks.some((k, i) => i > 0 && k - ks[i - 1] > 1),
    `a gap in ${ks.join(" ")}`,
  );
});

test("an empty bin stays empty: never filled from its neighbours; n counts only the experiments with a value there", async () => {
  const out = path.join(work, "wall");
  const spec = { ...readCompareConfig(readFileSync(path.join(ROOT, "data/compare.json"), "utf8"), "compare.json", path.join(ROOT, "data")), resamples: 200 };
  const run = await runComparison({ ...spec, axis: compareAxis("wall", 300) }, out);
  const experiments = run.arms.flatMap((a) => a.experiments);
  let empty = 0;
  for (const row of run.result.compare.rows) {
    const [arm, concept, scope, n, , , , , , , values] = row as [string, string, string, number, ...unknown[]];
    if (scope === "all") continue;
    const armExperiments = run.arms.find((a) => a.name === arm)!.experiments;
    const cells = armExperiments.map((x) => x.cells[concept]?.[scope] ?? null);
    assert.equal(values, cells.map((c) => (c === null ? "" : String(c))).join(";"), `${arm} ${concept} ${scope}`);
    assert.equal(n, cells.filter((c) => c !== null).length);
    empty += cells.filter((c) => c === null).length;
  }
  assert.ok(empty > 0, "the sample's runs have gaps on 300 s bins");
  // Filling would give every experiment a value in every bin between its first and last: some have none there.
  const gapped = experiments.filter((x) => {
    const ks = Object.keys(x.cells.entropy_mean)
      .filter((b) => b !== "all")
      .map((b) => binOf(Number.parseFloat(b), 300)!);
    return Math.max(...ks) - Math.min(...ks) + 1 > ks.length;
  });
  assert.ok(gapped.length > 0, "an experiment without values inside its span");
  const manifest = JSON.parse(readFileSync(path.join(out, "compare-manifest.json"), "utf8"));
  assert.equal(manifest.axis.name, "wall");
  assert.equal(manifest.axis.width, 300);
  assert.equal(manifest.axis.emptyCells, empty);
  assert.match(manifest.axis.is, /gaps between runs .* included/);
  assert.deepEqual(manifest.axis.edges, [0, Number.parseFloat(run.result.scopes.at(-2)!) + 300]);
  assert.ok(
    run.result.scopes.every((s, i, all) => i === 0 || s === "all" || Number.parseFloat(s) > Number.parseFloat(all[i - 1])),
    "bins in axis order",
  );
});

test("an axis missing on one side is refused, naming the concept, the axis and both sides; nothing of it is compared", async () => {
  // n8-s1 with _runtime dropped from every row: its start is unknown, so it has no wall time.
  const stripped = path.join(work, "no-runtime");
  makeArchive(
    stripped,
    runsOf(path.join(SAMPLE, "n8-s1")).map((r) => ({ ...r, rows: r.rows.map(({ _runtime, ...rest }) => rest as HistoryRow) })),
  );
  const axis = compareAxis("wall", 600);
  const a = await loadExperiment(path.join(SAMPLE, "n8-s2"), {}, "n8-s2", axis);
  const b = await loadExperiment(stripped, {}, "no-runtime", axis);
  assert.deepEqual(b.rounds, []);
  const r = compareArms([{ name: "x", experiments: [a, b] }], null, { seed: 0, resamples: 100, axis });
  assert.deepEqual(r.columns, [], "every concept refused");
  assert.equal(r.compare.rows.length, 0);
  const reward = r.refused.find((x) => x.concept === "reward_mean")!;
  assert.deepEqual(reward.sides, ["n8-s2", "no-runtime"]);
  assert.match(
    reward.reason,
    /^reward_mean \(reward\) is missing on one side on the wall axis \(s\): n8-s2: has it; no-runtime: run scn-r0-kb17 \(round R0\) has no row with both _timestamp and _runtime/,
  );
  // The same experiments on rollout ids compare.
  const ra = await loadExperiment(path.join(SAMPLE, "n8-s2"), {}, "n8-s2", compareAxis("rollout", 4));
  const rb = await loadExperiment(stripped, {}, "no-runtime", compareAxis("rollout", 4));
  assert.equal(compareArms([{ name: "x", experiments: [ra, rb] }], null, { seed: 0, resamples: 100, axis: compareAxis("rollout", 4) }).refused.length, 0);
});

test("tokens: where no tokens-seen count is logged (slime), refused for every concept, naming the experiment and why (never estimated)", async () => {
  const axis = compareAxis("tokens", 1000);
  const [a, b] = await Promise.all(["n8-s1", "n16-s4"].map((d) => loadExperiment(path.join(SAMPLE, d), {}, d, axis)));
  const r = compareArms(
    [
      { name: "x", experiments: [a] },
      { name: "y", experiments: [b] },
    ],
    null,
    { seed: 0, resamples: 100, axis },
  );
  assert.deepEqual(r.columns, []);
  assert.equal(r.refused.length, a.columns.filter((c) => c.metric !== null).length);
  for (const x of r.refused)
    assert.match(
      x.reason,
      /missing on both sides on the tokens axis \(tokens\): n8-s1, n16-s4: slime logs no tokens seen: slime logs no cumulative token count.*never estimated/,
    );
});

const TRL = path.join(ROOT, "test/fixtures/real-runs/trl");
test("tokens on real TRL runs: each bin's reward mean equals the trainer's own log_history (trainer_state.json) binned by num_tokens", {
  skip: existsSync(TRL) ? false : "TRL real-run fixtures absent",
}, async () => {
  const width = 100;
  for (const c of ["grpo-log1", "grpo-bnpo-noscale", "grpo-dapo-mask-truncated"]) {
    const dir = path.join(TRL, c);
    const wandbFile = readdirSync(dir).find((f) => f.endsWith(".wandb"))!;
    const out = path.join(work, `trl-${c}`, "archive");
    await fetchAndFreeze({
      entity: "",
      project: "",
      runs: [{ runId: /run-(\w+)\.wandb$/.exec(wandbFile)![1], round: "R0", file: path.join(dir, wandbFile) }],
      outDir: out,
      env: {},
    });
    const e = await loadExperiment(out, {}, c, compareAxis("tokens", width));
    assert.equal(e.profile.name, "trl");
    // TRL's own record of the same run: one log_history entry per logged step, with num_tokens and reward.
    const history = (JSON.parse(readFileSync(path.join(dir, "trainer_state.R0.json"), "utf8")).log_history as Record<string, number>[]).filter(
      (h) => "reward" in h && "num_tokens" in h,
    );
    assert.ok(history.length >= 3);
    const expected = binMeans(
      history.map((h) => ({ x: h.num_tokens, v: h.reward })),
      width,
    );
    assert.deepEqual(e.rounds, [...expected.keys()], `${c}: the bins holding a logged step`);
    for (const [bin, mean] of expected) assert.ok(Math.abs(e.cells.reward_mean[bin]! - mean) < 1e-12, `${c} ${bin}: ${e.cells.reward_mean[bin]} vs ${mean}`);
  }
});

test("an axis needs a declared bin width (round takes none); unknown axes are refused", () => {
  const ok: CompareAxis = compareAxis("update", 100);
  assert.deepEqual(ok, { name: "update", width: 100 });
  assert.throws(() => compareAxis("update", null), /invalid axis: update needs a bin width > 0 in optimizer update/);
  assert.throws(() => compareAxis("wall", 0), /needs a bin width > 0/);
  assert.throws(() => compareAxis("round", 5), /round takes no bin width/);
  assert.throws(() => compareAxis("epoch", 5), /invalid axis: "epoch" \(one of round, rollout, update, tokens, wall\)/);
  assert.equal(binLabel(3, 0.1), "0.3-0.4");
  assert.equal(binOf(-1, 10), null, "no negative coordinate is placed");
  assert.throws(
    () => readCompareConfig(JSON.stringify({ arms: [{ name: "a", archives: ["x"] }], axis: { name: "wall" } }), "c.json", "."),
    /invalid axis: wall needs a bin width .* \(in c\.json\)/,
  );
});

test("update axis where single updates are not observable (TRL): every concept has no coordinate, and says why", () => {
  const columns = comparedColumns(TRL_PROFILE);
  const aligned = { updates: [], rollouts: [] } as unknown as AlignedRuns;
  const cells = axisCells(aligned, TRL_PROFILE, columns, compareAxis("update", 10), null);
  const live = columns.filter((c) => c.metric !== null);
  assert.ok(live.length > 0);
  for (const c of live) assert.match(cells.missing[c.name], /^TRL .*logs no single optimizer updates \(TRL logs every logging_steps/);
  assert.deepEqual(cells.scopes, []);
});
