/**
 * Conformance on REAL runs: every fixture under test/fixtures/real-runs/ was written by a framework's
 * own code (tools/real-runs/, README there). Each case is frozen from its .wandb file(s) with the
 * workspace's fetchAndFreeze and exported in memory; then
 * - each round's frozen rows equal the history records wandb's own Python reader counted (case.json);
 *   logs of one run id (resumed into its own id) are one run of the first log's round;
 * - each summary cell of a concept equals the mean computed from the framework's OWN record
 *   (trainer_state.json log_history, the dicts handed to the logger), never from the W&B rows, to 1e-12
 *   relative; a cell is empty exactly when the own record has no finite value of its key;
 * - `rollouts` equals the own record's training records per round;
 * - rows the framework logs for itself (TRL profiling/*) are never records and never superseded.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, describe, test } from "node:test";

import { fetchAndFreeze } from "../../lib/archive/fetch-and-freeze";
import { loadArchive } from "../../lib/archive/load-archive";
import { alignRuns } from "../../lib/align/align-runs";
import { buildExports } from "../../lib/export/build-exports";
import { readExportCsv } from "../../lib/export/read-export-csv";
import { summaryColumnsFor } from "../../lib/export/summary-table";
import { profileOfAligned } from "../../lib/registry/profiles";
import { keysOf } from "../../lib/values/compact-values";
import { fixtureCases, ownMean, survivingEntries, upTo, verlEvalEntries, type FixtureCase, type FixtureRound, type OwnEntry } from "./own-record";

const ROOT = path.resolve(__dirname, "../fixtures/real-runs");
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "real-runs-"));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** Relative agreement to 1e-12 (exact for 0). */
function close(actual: number, expected: number): boolean {
  return expected === 0 ? actual === 0 : Math.abs(actual - expected) <= 1e-12 * Math.abs(expected);
}

/** The archive round of a fixture round: a later log of the same run id belongs to its first log's round. */
function archiveRound(c: FixtureCase, r: FixtureRound): string {
  return c.rounds.find((x) => x.wandbRunId === r.wandbRunId)!.round;
}

/** The case's runs as selected; `reversed`: the logs of each run id (a run resumed into its own id) given last first. */
function selection(c: FixtureCase, reversed: boolean) {
  const runs = c.rounds.map((r) => ({ runId: r.wandbRunId, round: archiveRound(c, r), file: path.join(c.dir, r.wandbFile) }));
  if (!reversed) return runs;
  const files = new Map<string, string[]>();
  for (const r of runs) files.set(r.runId, [...(files.get(r.runId) ?? []), r.file]);
  return runs.map((r) => ({ ...r, file: files.get(r.runId)!.pop()! }));
}

/** Freezes a case's .wandb files into an archive (one run per run id) and exports it in memory. */
async function freezeAndExport(c: FixtureCase, reversed = false) {
  const outDir = path.join(tmp, c.framework, `${c.case}${reversed ? "-reversed" : ""}`);
  const manifest = await fetchAndFreeze({
    entity: "",
    project: "",
    runs: selection(c, reversed),
    outDir,
    env: {},
    now: () => new Date("2026-12-01T00:00:00.000Z"),
    // As npm run fetch does: each run's framework decided at the freeze, then read from the manifest.
    profile: "detect",
  });
  const archive = await loadArchive(outDir);
  const aligned = alignRuns(archive.runs);
  const build = buildExports(archive, aligned, { workspaceVersion: "test" });
  const summary = readExportCsv(build.files.find((f) => f.name === "summary.csv")!.text, { file: "summary.csv" });
  return { manifest, archive, aligned, build, summary };
}

const CASES = fixtureCases(ROOT);

test("the real-run corpus is present and names every case's versions and command", () => {
  assert.ok(CASES.length >= 8, `fixture cases found: ${CASES.length}`);
  for (const c of CASES) {
    assert.match(c.command, /tools\/real-runs\//, `${c.case}: command`);
    assert.ok(Object.keys(c.versions).length >= 3, `${c.case}: versions`);
    for (const r of c.rounds) assert.ok(fs.existsSync(path.join(c.dir, r.wandbFile)), `${c.case}: ${r.wandbFile}`);
  }
});

/** Own-record entries per archive round (the entries of every log of its run id, in log order). */
function byArchiveRound(c: FixtureCase, perLog: Map<string, OwnEntry[]>): Map<string, OwnEntry[]> {
  const out = new Map<string, OwnEntry[]>();
  for (const r of c.rounds) {
    const round = archiveRound(c, r);
    out.set(round, [...(out.get(round) ?? []), ...perLog.get(r.round)!]);
  }
  return out;
}

for (const c of CASES) {
  describe(`${c.framework}/${c.case}`, () => {
    let res: Awaited<ReturnType<typeof freezeAndExport>>;
    let surviving: Map<string, OwnEntry[]>;

    test("freezes every history record wandb's own reader counts, and exports without an alignment issue", async () => {
      res = await freezeAndExport(c);
      const perLog = survivingEntries(c);
      for (const r of c.rounds) {
        if (r.exitRecord || archiveRound(c, r) !== r.round) continue;
        // A killed log's own record can outlast what its transaction log kept (see upTo).
        const kept = res.aligned.rollouts.filter((x) => x.round === r.round).map((x) => x.rollout);
        const later = c.rounds.filter((x) => x !== r && x.wandbRunId === r.wandbRunId);
        if (later.length === 0) upTo(perLog, r.round, Math.max(-1, ...kept));
      }
      surviving = byArchiveRound(c, perLog);
      for (const run of res.manifest.runs) {
        const logs = c.rounds.filter((r) => r.wandbRunId === run.runId);
        assert.equal(
          run.historyEvents,
          logs.reduce((s, r) => s + r.historyRecords, 0),
          `run ${run.runId}: frozen rows`,
        );
        if (logs.length === 1) assert.equal(run.lastStep, logs[0].lastStep ?? -1, `run ${run.runId}: last _step`);
        else assert.equal(run.resumedIn?.length, logs.length - 1, `run ${run.runId}: later logs in resumedIn`);
      }
      assert.deepEqual(res.aligned.issues, []);
      for (const run of res.manifest.runs) assert.equal(run.profile?.name, c.framework, `run ${run.runId}: the framework decided at fetch`);
      assert.equal(res.aligned.profile?.name, c.framework);
    });

    const sameIdLogs = new Set(c.rounds.map((r) => r.wandbRunId)).size < c.rounds.length;
    test("the logs of one run id given in the reverse order freeze and export to the same bytes", { skip: !sameIdLogs && "one log per run" }, async () => {
      const other = await freezeAndExport(c, true);
      assert.deepEqual(other.manifest, res.manifest);
      assert.deepEqual(
        other.build.files.map((f) => [f.name, f.text]),
        res.build.files.map((f) => [f.name, f.text]),
      );
    });

    test("each summary cell equals the mean of the framework's own record (1e-12 relative), per round and over all", () => {
      const profile = profileOfAligned(res.aligned);
      const means = summaryColumnsFor(profile).filter((col) => col.kind === "mean" && col.column.metric !== null);
      assert.ok(means.length >= 3, "the profile maps at least three summary means");
      const all = [...surviving.values()].flat();
      for (const row of res.summary.rows) {
        const round = String(row.round);
        const entries = round === "all" ? all : surviving.get(round)!;
        assert.equal(row.rollouts, entries.length, `round ${round}: records`);
        for (const col of means) {
          if (col.kind !== "mean") continue;
          const key = col.column.metric!.key;
          const expected = ownMean(entries, key);
          const actual = row[col.name];
          if (expected === null) assert.equal(actual, null, `round ${round} ${col.name}: own record has no ${key}`);
          else assert.ok(typeof actual === "number" && close(actual, expected), `round ${round} ${col.name} (${key}): ${actual} vs own record ${expected}`);
        }
      }
    });

    const ownEvals = verlEvalEntries(c);
    test("each validation-only entry of verl's own record is an eval at the step verl logged, values as recorded", {
      skip: ownEvals === null && "verl only",
    }, () => {
      const expected = c.rounds.flatMap((r) => ownEvals!.get(r.round)!.map((e) => ({ round: archiveRound(c, r), ...e })));
      assert.deepEqual(
        res.aligned.evals.map((e) => [e.round, e.evalStep, e.historyStep]),
        expected.map((e) => [e.round, e.step, e.step]),
        `${c.case}: evals (round, step, frozen _step) vs the own record's validation-only entries`,
      );
      expected.forEach((e, i) => {
        const got = res.aligned.evals[i].values;
        for (const [k, v] of Object.entries(e.values)) assert.ok(close(got[k], v), `${c.case} eval at step ${e.step} ${k}: ${got[k]} vs own record ${v}`);
      });
    });

    test("history_events per round is the W&B row count", () => {
      for (const row of res.summary.rows) {
        const logs = c.rounds.filter((r) => row.round === "all" || archiveRound(c, r) === row.round);
        assert.equal(
          row.history_events,
          logs.reduce((s, r) => s + r.historyRecords, 0),
          `round ${row.round}`,
        );
      }
    });

    test("every note that a key is missing is true of the frozen rows: no live row of that round holds it", () => {
      let checked = 0;
      for (const note of res.build.manifest.summaryNotes) {
        const m = /^round (\S+): none of the \d+ .* has (\S+)$/.exec(note);
        if (!m) continue;
        const live = (res.aligned.keyRows ?? []).filter((k) => k.round === m[1] && k.key === m[2] && k.rows > k.superseded);
        assert.deepEqual(live, [], `note "${note}"`);
        checked++;
      }
      // Without vLLM, TRL logs no sampling log-prob gap: each round's note says so.
      if (c.framework === "trl") assert.ok(checked >= c.rounds.length - 1, `notes checked: ${checked}`);
    });

    test("rows the framework logs for itself are counted, never records, never superseded", () => {
      const profile = profileOfAligned(res.aligned);
      const own = profile.axis.kind === "step" ? profile.axis.ownRows : [];
      for (const rec of res.aligned.rollouts) {
        for (const k of keysOf(rec.values)) assert.ok(!own.some((o) => k.startsWith(o.prefix)), `record ${rec.rollout} of ${rec.runId} holds ${k}`);
      }
      const ownRows = res.archive.runs.flatMap((run) => run.rows.filter((row) => keysOf(row).some((k) => own.some((o) => k.startsWith(o.prefix)))));
      if (c.framework === "trl") assert.ok(ownRows.length > 0, "a real TRL run with report_to wandb logs profiling rows");
      const noted = res.aligned.notes.filter((n) => n.kind === "own-rows").reduce((s, n) => s + Number(/: (\d+) row\(s\)/.exec(n.message)![1]), 0);
      assert.equal(noted, ownRows.length, "every own row is counted in a note");
      const resumed = c.rounds.some((r) => r.resume);
      if (!resumed) assert.deepEqual(res.aligned.superseded, [], "a run that never restarted supersedes nothing");
    });
  });
}
