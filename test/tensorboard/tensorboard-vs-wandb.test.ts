/**
 * The same real runs read from TensorBoard and from W&B (test/fixtures/real-runs/: each case wrote
 * both, through the frameworks' own loggers) export the same metric cells:
 * - the same training records (round, step), and every record cell (rollouts.csv) of the TensorBoard
 *   run equals Math.fround of the W&B cell, or both are empty: PyTorch's SummaryWriter stores each
 *   value as a float32 simple_value, W&B keeps the float64 the framework handed it, so exact
 *   agreement is expected for float32-representable values and the float32 rounding otherwise;
 * - every summary cell (summary.csv, a mean over records) agrees within 2^-24 of the largest |value|
 *   averaged (each float32 value is within 2^-24 relative of its float64), and is empty in both or neither;
 * - `history_events` differs and says what it counts: one row per step (TensorBoard) vs one per logging call (W&B).
 * One stated difference in cells: a value the framework logged as None (TRL's clip_ratio/high_max
 * when nothing was clipped high) is null in W&B, which the workspace reads as NaN, and absent from
 * TensorBoard (transformers' callback writes only ints and floats): W&B NaN against an empty cell.
 * Killed runs are the stated exception: each writer lost a different tail (wandb-core loses the 32 KiB
 * block being filled; SummaryWriter what it had not flushed), so only the records both kept are
 * compared, and those must be the first records of each.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, test } from "node:test";

import { fetchAndFreeze, type RunSelection } from "../../lib/archive/fetch-and-freeze";
import { loadArchive } from "../../lib/archive/load-archive";
import { alignRuns } from "../../lib/align/align-runs";
import { crossCheckTensorboard } from "../../lib/tensorboard/cross-check-wandb";
import { resumePoints } from "../../lib/diagnostics/mismatch-resumes";
import type { AlignedRuns } from "../../lib/types";
import { buildExports } from "../../lib/export/build-exports";
import type { ExportCell } from "../../lib/export/export-cell";
import { readExportCsv, type ExportCsv } from "../../lib/export/read-export-csv";
import { fixtureCases, type FixtureCase, type FixtureRound } from "../real-runs/own-record";

const ROOT = path.resolve(__dirname, "../fixtures/real-runs");
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "tb-vs-wandb-"));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** The archive round of a fixture round: a later log of the same run id belongs to its first log's round. */
function archiveRound(c: FixtureCase, r: FixtureRound): string {
  return c.rounds.find((x) => x.wandbRunId === r.wandbRunId)!.round;
}

/** One TensorBoard run per archive round: its one event file, or a folder of the round's files (a restart in place). */
function tensorboardRuns(c: FixtureCase): RunSelection[] {
  const rounds = [...new Set(c.rounds.map((r) => archiveRound(c, r)))];
  return rounds.map((round) => {
    const files = c.rounds.filter((r) => archiveRound(c, r) === round).flatMap((r) => r.tensorboardFiles);
    if (files.length === 1) return { runId: `tb-${round}`, round, tensorboard: path.join(c.dir, files[0]) };
    const dir = path.join(tmp, "logdirs", c.framework, c.case, round);
    fs.mkdirSync(dir, { recursive: true });
    for (const f of files) fs.copyFileSync(path.join(c.dir, f), path.join(dir, f));
    return { runId: `tb-${round}`, round, tensorboard: dir };
  });
}

async function exported(c: FixtureCase, kind: string, runs: RunSelection[]) {
  const outDir = path.join(tmp, kind, c.framework, c.case);
  await fetchAndFreeze({ entity: "", project: "", runs, outDir, env: {}, now: () => new Date("2026-12-01T00:00:00.000Z") });
  const archive = await loadArchive(outDir);
  const aligned = alignRuns(archive.runs);
  const build = buildExports(archive, aligned, { workspaceVersion: "test" });
  const csv = (name: string): ExportCsv => readExportCsv(build.files.find((f) => f.name === name)!.text!, { file: name });
  return { archive, aligned, rollouts: csv("rollouts.csv"), summary: csv("summary.csv"), manifest: build.manifest };
}

const recordKey = (r: Record<string, ExportCell>) => `${r.round}@${r.rollout}`;

/**
 * Cells TensorBoard holds from another process than W&B's record, in a verl run resumed in place: at
 * the checkpoint's step verl validates again, and TensorBoard keeps one value per tag and step (the
 * later file's) where W&B's record is the first process's row (its validation merged in; the later
 * validation is an eval of its own); after it, TensorBoard's purge is per tag, so a tag only the first
 * process logged (its checkpoint's save timing) keeps its value where W&B's record, the later row, has
 * none. Each side is as verl logged it.
 */
function otherProcessCell(c: FixtureCase, rec: Record<string, ExportCell>, col: string): boolean {
  const at = resumedInPlace(c);
  if (at === null || rec.round !== at.round) return false;
  return (rec.rollout === at.step && col.startsWith("val-")) || (Number(rec.rollout) > at.step && rec[col] === null);
}

/** The archive round and checkpoint step of a verl run resumed in place (a later log of its id); null for any other case. */
function resumedInPlace(c: FixtureCase): { round: string; step: number } | null {
  const r = c.rounds.find((x) => x.resume === "same-id" && /\d+$/.test(x.resumedFrom ?? ""));
  if (c.framework !== "verl" || r === undefined) return null;
  return { round: archiveRound(c, r), step: Number(/(\d+)$/.exec(r.resumedFrom!)![1]) };
}

const isNum = (v: ExportCell): v is number => typeof v === "number";

/** W&B NaN where TensorBoard has no value: a None the framework logged (see above). */
const loggedNone = (tb: ExportCell, wb: ExportCell) => tb === null && isNum(wb) && Number.isNaN(wb);

function sameCell(tb: ExportCell, wb: ExportCell): boolean {
  if (!isNum(wb) || !isNum(tb)) return tb === wb || loggedNone(tb, wb);
  return Object.is(tb, Math.fround(wb)) || (Number.isNaN(tb) && Number.isNaN(wb)) || tb === Math.fround(wb);
}

const CASES = fixtureCases(ROOT).filter((c) => c.rounds.every((r) => r.tensorboardFiles.length > 0));

test("every real-run case with event files is compared (TRL, verl, OpenRLHF)", () => {
  assert.deepEqual([...new Set(CASES.map((c) => c.framework))].sort(), ["openrlhf", "trl", "verl"]);
  assert.ok(CASES.length >= 15, `${CASES.length} cases`);
});

for (const c of CASES) {
  const killed = c.rounds.some((r) => !r.exitRecord);
  test(`${c.framework}/${c.case}: TensorBoard and W&B export the same records and cells${killed ? " (killed: the records both kept)" : ""}`, async () => {
    const wb = await exported(
      c,
      "wandb",
      c.rounds.map((r) => ({ runId: r.wandbRunId, round: archiveRound(c, r), file: path.join(c.dir, r.wandbFile) })),
    );
    const tb = await exported(c, "tensorboard", tensorboardRuns(c));
    const wbRecords = wb.rollouts.rows.map(recordKey);
    const tbRecords = tb.rollouts.rows.map(recordKey);
    if (killed) {
      const common = wbRecords.filter((k) => tbRecords.includes(k));
      assert.deepEqual(wbRecords.slice(0, common.length), common, "the records both kept are W&B's first ones");
      assert.deepEqual(tbRecords.slice(0, common.length), common, "and TensorBoard's first ones");
      assert.ok(common.length > 0);
    } else assert.deepEqual(tbRecords, wbRecords, "the same training records");
    const tbByKey = new Map(tb.rollouts.rows.map((r) => [recordKey(r), r]));
    let cells = 0;
    let nones = 0;
    for (const w of wb.rollouts.rows) {
      const t = tbByKey.get(recordKey(w));
      if (t === undefined) continue;
      for (const col of wb.rollouts.columns) {
        if (col === "run_id" || otherProcessCell(c, w, col)) continue;
        const [a, b] = [t[col] ?? null, w[col]];
        if (loggedNone(a, b)) nones++;
        assert.ok(sameCell(a, b), `${recordKey(w)} ${col}: TensorBoard ${a}, W&B ${b} (float32 ${isNum(b) ? Math.fround(b) : "-"})`);
        cells++;
      }
    }
    assert.ok(cells > 0);
    if (c.framework !== "trl") assert.equal(nones, 0, "only TRL logs None values");
    assert.deepEqual(
      restartFacts(tb.aligned, killed),
      restartFacts(wb.aligned, killed),
      "the same restarts and superseded training records (issue 39, case 6)",
    );
    const extra = tb.rollouts.columns.filter((col) => !wb.rollouts.columns.includes(col));
    assert.deepEqual(extra, [], "no column only TensorBoard has");
    crossCheckAgrees(c, wb.aligned, tb.aligned, killed);
    if (killed) return; // the summaries average different records (see above)
    compareSummary(c, wb, tb);
  });
}

/**
 * What each source says of restarts, run ids left out (they differ by source): the restarts the health
 * checks read (mismatch_resume_spike), and the superseded training records of superseded.csv, but
 * for a killed run, whose lost tail (a different one per writer, see above) decides what a later round supersedes.
 */
function restartFacts(aligned: AlignedRuns, killed: boolean): unknown[] {
  const restarts = resumePoints(aligned).map((p) => [p.round, p.kind, p.from]);
  return killed ? restarts : [restarts, aligned.superseded.map((s) => [s.round, s.byRound, s.rollouts, s.updates])];
}

/**
 * The cross-check of the two alignments agrees on every field in both; what is on one side only is
 * the stated difference: a killed run's lost tail (whole records), TRL's logged None (W&B NaN fields).
 */
function crossCheckAgrees(c: FixtureCase, wb: AlignedRuns, tb: AlignedRuns, killed: boolean): void {
  const check = crossCheckTensorboard(wb, tb);
  assert.ok(check.compared >= 50, `${check.compared} fields compared`);
  const at = resumedInPlace(c);
  if (at === null) {
    assert.ok(check.agree, check.verdict);
    assert.match(check.verdict, /^TensorBoard agrees with W&B on all \d+ fields present in both/);
  } else {
    // Only the checkpoint step's validation differs (see otherProcessCell): TensorBoard's is the later process's.
    const other = check.mismatches.filter((m) => !(m.kind === "record" && m.round === at.round && m.step === at.step && m.key.startsWith("val-")));
    assert.deepEqual(other, [], check.verdict);
  }
  const records = wb.rollouts.filter((r) => tb.rollouts.some((t) => t.round === r.round && t.rollout === r.rollout)).length;
  assert.ok(check.pairedRecords >= records, `${check.pairedRecords} paired, ${records} training records in both`);
  for (const x of check.oneSided) {
    if (at !== null && x.side === "tensorboard" && x.kind === "record" && x.round === at.round && x.step > at.step) continue; // a tag only the first process logged (otherProcessCell)
    if (x.key === null) assert.ok(killed || x.kind === "eval", `${c.case}: record ${x.round}@${x.step} only in ${x.side}`);
    else {
      assert.equal(x.side, "wandb", `${c.case}: ${x.key}@${x.step} only in TensorBoard`);
      const w = wb.rollouts.find((r) => r.round === x.round && r.rollout === x.step)?.values[x.key];
      assert.ok(x.kind === "eval" || (w !== undefined && Number.isNaN(w)), `${c.case}: ${x.key}@${x.step} only in W&B is ${w}`);
    }
  }
}

/** summary.csv: counts equal, means within the float32 rounding of the values averaged, history_events as each source counts rows. */
function compareSummary(c: FixtureCase, wb: Awaited<ReturnType<typeof exported>>, tb: Awaited<ReturnType<typeof exported>>): void {
  const keyOf = new Map(wb.manifest.summaryColumns.map((col) => [col.name, col.key]));
  wb.summary.rows.forEach((w, i) => {
    const t = tb.summary.rows[i];
    assert.equal(t.round, w.round);
    assert.equal(t.rollouts, w.rollouts, `${w.round} rollouts`);
    if (w.round !== "all") {
      const frozen = tb.archive.manifest.runs.find((r) => r.round === w.round)!;
      assert.equal(t.history_events, frozen.historyEvents, "TensorBoard: the frozen rows, one per step and the re-logged ones of a restart");
      const steps = tb.archive.runs.find((r) => r.round === w.round)!.rows.map((r) => r._step);
      const relogged = steps.filter((s, i) => steps.slice(i + 1).some((later) => later <= s)).length;
      assert.equal(relogged > 0, resumedInPlace(c)?.round === w.round, "re-logged rows only in a run resumed in place");
      assert.equal(frozen.historyEvents, new Set(steps).size + relogged);
    }
    for (const col of wb.summary.columns) {
      if (["round", "run_id", "state", "history_events"].includes(col)) continue;
      const key = keyOf.get(col);
      const a = t[col];
      const b = w[col];
      if (!isNum(b) || !isNum(a) || key === undefined || key === null) {
        assert.deepEqual(a, b, `${c.case} ${w.round} ${col}`);
        continue;
      }
      const records = wb.rollouts.rows.filter((r) => w.round === "all" || r.round === w.round);
      const largest = Math.max(
        0,
        ...records
          .map((r) => r[key])
          .filter(isNum)
          .map(Math.abs),
      );
      assert.ok(Math.abs(a - b) <= 2 ** -24 * largest * (1 + 1e-9), `${c.case} ${w.round} ${col}: TensorBoard ${a}, W&B ${b}, largest |value| ${largest}`);
    }
  });
}
