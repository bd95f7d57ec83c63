/**
 * The MCP server through the official SDK's own client over stdio, on the bundled sample, on real TRL
 * and verl runs (test/fixtures/real-runs/) and on the sample's comparison archives: every tool is
 * listed and called; summary and health equal the CSVs `npm run export` writes, history the frozen
 * lines, compare the files `npm run compare` writes; refusals arrive as tool errors naming the reason.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, before, test } from "node:test";

import { runComparison } from "../../lib/compare/compare-config";
import { writeExports } from "../../lib/export/write-exports";
import { EXPORT_TEXT_COLUMNS } from "../../lib/export/read-export-csv";
import { healthSettings } from "../../lib/health/health-params";
import { MEASURED } from "../../lib/health/measured-scores";
import { cellOfCsv, csvFile, fileSha256, frozenLines } from "./expected";
import { ids, slimeRun } from "../align/slime-history";
import { makeArchive } from "../archive/make-archive";
import { freezeFixtureInto } from "../real-runs/aligned-fixture";
import { answer, refusal, type ServerClient, startServer } from "./mcp-client";

const ROOT = path.resolve(__dirname, "../..");
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "mcp-server-"));
const COMPARE = ["n8-s1", "n8-s2", "n8-s3", "n16-s4", "n16-s5", "n16-s6", "reference"];
/** Archive name -> folder. */
const ARCHIVES: Record<string, string> = { sample: path.join(ROOT, "data/wandb"), trl: path.join(tmp, "trl"), verl: path.join(tmp, "verl") };
for (const c of COMPARE) ARCHIVES[c] = path.join(ROOT, "data/compare", c);
// A slime run whose rollout 2 lacks train/step 5: the axis mapping does not hold (test/export/refuse-export.test.ts).
ARCHIVES.broken = path.join(tmp, "broken");
const EXPORTED = ["sample", "trl", "verl"];
let server: ServerClient;

before(async () => {
  makeArchive(ARCHIVES.broken, [{ runId: "a", round: "R0", rows: slimeRun({ runId: "a", round: "R0", n: 2, rollouts: ids(1, 3), dropSteps: [5] }).rows }]);
  await freezeFixtureInto("trl", "grpo-gspo", ARCHIVES.trl);
  await freezeFixtureInto("verl", "plain", ARCHIVES.verl);
  for (const name of EXPORTED) {
    // The thresholds `npm run export` reads: runs.json beside the archive (none here sets any) and no HEALTH_* variables.
    const health = healthSettings({}, path.join(path.dirname(ARCHIVES[name]), "runs.json")).params;
    await writeExports({ dataDir: ARCHIVES[name], outDir: path.join(tmp, `exports-${name}`), health });
  }
  server = await startServer(Object.entries(ARCHIVES).map(([n, d]) => `${n}=${d}`));
});
after(async () => {
  await server?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** The archive's manifest. */
function manifestOf(name: string): { runs: { runId: string; round: string; file: string; sha256: string; historyEvents: number }[] } {
  return JSON.parse(fs.readFileSync(path.join(ARCHIVES[name], "manifest.json"), "utf8"));
}

test("the client lists the six tools, each with an input and an output schema, all read-only", async () => {
  const { tools } = await server.client.listTools();
  assert.deepEqual(
    tools.map((t) => t.name),
    ["runs", "concepts", "summary", "history", "health", "compare"],
  );
  for (const t of tools) {
    assert.equal(t.inputSchema.type, "object", t.name);
    assert.equal(t.outputSchema?.type, "object", t.name);
    assert.equal(t.annotations?.readOnlyHint, true, t.name);
  }
});

test("runs: every archive with its manifest's sha256 and each run's file, rows and sha256 as on disk", async () => {
  type Runs = {
    archives: { archive: string; manifestSha256: string; framework: string; runs: { runId: string; rows: number; sha256: string; file: string }[] }[];
  };
  const a = await answer<Runs>(server.client, "runs");
  assert.deepEqual(
    a.archives.map((x) => x.archive),
    Object.keys(ARCHIVES),
  );
  for (const x of a.archives) {
    assert.equal(x.manifestSha256, fileSha256(path.join(ARCHIVES[x.archive], "manifest.json")), x.archive);
    for (const r of x.runs) {
      const file = path.join(ARCHIVES[x.archive], r.file);
      assert.equal(r.sha256, fileSha256(file), r.runId);
      assert.equal(r.rows, frozenLines(file).length, r.runId);
    }
  }
  assert.deepEqual(
    a.archives.filter((x) => EXPORTED.includes(x.archive)).map((x) => x.framework),
    ["slime", "trl", "verl"],
  );
});

test("summary equals summary.csv cell for cell on the sample, TRL and verl, citing the manifest", async () => {
  for (const name of EXPORTED) {
    const csv = csvFile(path.join(tmp, `exports-${name}`, "summary.csv"));
    const a = await answer<{ columns: string[]; rows: unknown[][]; manifestSha256: string; meanings: { name: string }[] }>(server.client, "summary", {
      archive: name,
    });
    assert.equal(a.manifestSha256, fileSha256(path.join(ARCHIVES[name], "manifest.json")));
    assert.deepEqual(a.columns, csv.columns, name);
    assert.deepEqual(
      a.rows,
      csv.rows.map((r) => r.map((cell, i) => cellOfCsv(cell, csv.columns[i], EXPORT_TEXT_COLUMNS))),
      name,
    );
    assert.deepEqual(
      a.meanings.map((m) => m.name),
      csv.columns,
    );
  }
});

test("summary narrowed to columns and rounds is the same cells", async () => {
  const csv = csvFile(path.join(tmp, "exports-sample", "summary.csv"));
  const a = await answer<{ columns: string[]; rows: unknown[][] }>(server.client, "summary", {
    archive: "sample",
    columns: ["reward_mean", "grad_norm_mean"],
    rounds: ["R2", "all"],
  });
  const at = (c: string) => csv.columns.indexOf(c);
  const want = csv.rows.filter((r) => r[0] === "R2" || r[0] === "all").map((r) => [r[0], Number(r[at("grad_norm_mean")]), Number(r[at("reward_mean")])]);
  assert.deepEqual(a.columns, ["round", "grad_norm_mean", "reward_mean"]);
  assert.deepEqual(a.rows, want);
  // A concept id stands for its mean columns: ppoKl's first and later updates.
  const byConcept = await answer<{ columns: string[] }>(server.client, "summary", { archive: "sample", columns: ["ppoKl"] });
  assert.deepEqual(byConcept.columns, ["round", "ppo_kl_first_update_mean", "ppo_kl_later_updates_mean"]);
});

test("summary by update bins equals the values npm run compare bins on that axis", async () => {
  const out = path.join(tmp, "compare-bins");
  await runComparison(
    {
      arms: [{ name: "one", archives: [ARCHIVES.sample] }],
      root: ROOT,
      reference: null,
      seed: 0,
      resamples: 100,
      corridor: {},
      axis: { name: "update", width: 40 },
    },
    out,
  );
  const csv = csvFile(path.join(out, "compare.csv"));
  const a = await answer<{ columns: string[]; rows: unknown[][] }>(server.client, "summary", { archive: "sample", axis: "update", binWidth: 40 });
  let checked = 0;
  for (const r of csv.rows) {
    const [concept, scope, values] = [r[csv.columns.indexOf("concept")], r[csv.columns.indexOf("scope")], r[csv.columns.indexOf("values")]];
    const row = a.rows.find((x) => x[0] === scope)!;
    assert.equal(row[a.columns.indexOf(concept)], values === "" ? null : Number(values), `${concept} ${scope}`);
    checked++;
  }
  assert.ok(checked >= 5 * 10, `${checked} cells`);
});

/** Every row of a run through the cursor, `limit` at a time. */
async function allPages(args: Record<string, unknown>, limit: number) {
  type Page = {
    rows: { line: number; values: Record<string, unknown> }[];
    nextCursor: string | null;
    lines: { first: number; last: number };
    fileSha256: string;
    file: string;
    manifestSha256: string;
  };
  const pages: Page[] = [];
  let page = await answer<Page>(server.client, "history", { ...args, limit });
  pages.push(page);
  while (page.nextCursor !== null) {
    page = await answer<Page>(server.client, "history", { archive: args.archive, cursor: page.nextCursor, limit });
    pages.push(page);
  }
  return pages;
}

test("history pages every run of the sample, TRL and verl: the frozen file line for line, each page citing its sha256 and lines", async () => {
  for (const name of EXPORTED) {
    for (const run of manifestOf(name).runs) {
      const file = path.join(ARCHIVES[name], run.file);
      const lines = frozenLines(file);
      const pages = await allPages({ archive: name, run: run.runId }, 37);
      assert.equal(pages.length, Math.ceil(lines.length / 37), run.runId);
      const rows = pages.flatMap((p) => p.rows);
      assert.deepEqual(
        rows.map((r) => r.line),
        lines.map((_, i) => i + 1),
      );
      assert.deepEqual(
        rows.map((r) => r.values),
        lines,
        run.runId,
      );
      for (const p of pages) {
        assert.equal(p.fileSha256, fileSha256(file));
        assert.equal(p.file, run.file);
        assert.deepEqual(p.lines, { first: p.rows[0].line, last: p.rows[p.rows.length - 1].line });
      }
    }
  }
});

test("history over chosen keys and a step range: exactly the frozen rows holding them, NaN as the file writes it", async () => {
  const run = manifestOf("sample").runs[2];
  const lines = frozenLines(path.join(ARCHIVES.sample, run.file));
  const keys = ["rollout/kl", "train/grad_norm"];
  const want = lines
    .map((l, i) => ({ line: i + 1, l }))
    .filter(({ l }) => (l._step as number) >= 10 && (l._step as number) <= 80 && keys.some((k) => k in l))
    .map(({ line, l }) => ({ line, values: Object.fromEntries(Object.entries(l).filter(([k]) => k === "_step" || keys.includes(k))) }));
  const rows = (await allPages({ archive: "sample", run: run.runId, keys, fromStep: 10, toStep: 80 }, 10)).flatMap((p) => p.rows);
  assert.deepEqual(rows, want);
  assert.ok(
    rows.some((r) => r.values["rollout/kl"] === "NaN"),
    "the sample's NaN rollout/kl is among them",
  );
});

test("health equals health.csv flag for flag, each check with its rule and its measured recall and false-alarm rate", async () => {
  type Health = {
    manifestSha256: string;
    checks: {
      check: string;
      rule: string;
      measured: { recall: number | null; falseAlarmRate: number | null; caught: number } | null;
      flags: Record<string, unknown>[];
    }[];
  };
  for (const name of EXPORTED) {
    const csv = csvFile(path.join(tmp, `exports-${name}`, "health.csv"));
    const a = await answer<Health>(server.client, "health", { archive: name });
    const flags = a.checks.flatMap((c) => c.flags.map((f) => [c.check, f.round, f.runId, f.unit, f.first, f.last, f.count, f.key, f.value, c.rule]));
    const want = csv.rows.map((r) => {
      const x = (col: string) => r[csv.columns.indexOf(col)];
      return [
        x("check"),
        x("round"),
        x("run_id"),
        x("unit"),
        Number(x("first")),
        Number(x("last")),
        Number(x("count")),
        x("key"),
        cellOfCsv(x("value"), "value", []),
        x("rule"),
      ];
    });
    assert.deepEqual(flags, want, name);
    for (const c of a.checks) {
      const s = MEASURED.rules[c.check];
      if (s === undefined) assert.equal(c.measured, null);
      else {
        assert.equal(c.measured!.caught, s.caught);
        assert.equal(c.measured!.recall, s.faultRuns === 0 ? null : s.caught / s.faultRuns);
        assert.equal(c.measured!.falseAlarmRate, s.healthyValues === 0 ? null : s.falseAlarms / s.healthyValues);
      }
    }
  }
  const sample = await answer<Health>(server.client, "health", { archive: "sample", flaggedOnly: true });
  assert.deepEqual(
    sample.checks.map((c) => c.check),
    ["non_finite"],
  );
});

test("concepts: an archive's keys and reading rules equal its export manifest's summary columns (settings applied)", async () => {
  type Concepts = { framework: string; manifestSha256: string | null; concepts: { key: string | null; is: string | null; isNot: string | null }[] };
  for (const name of EXPORTED) {
    const manifest = JSON.parse(fs.readFileSync(path.join(tmp, `exports-${name}`, "manifest.json"), "utf8"));
    const a = await answer<Concepts>(server.client, "concepts", { archive: name });
    assert.equal(a.manifestSha256, fileSha256(path.join(ARCHIVES[name], "manifest.json")));
    for (const col of manifest.summaryColumns as { kind: string; key?: string; is?: string; isNot?: string }[]) {
      if (col.kind !== "mean" || col.key === undefined) continue;
      const c = a.concepts.find((x) => x.key === col.key);
      assert.ok(c, `${name}: ${col.key}`);
      assert.equal(c.is, col.is);
      assert.equal(c.isNot, col.isNot);
    }
  }
  const verl = await answer<Concepts>(server.client, "concepts", { framework: "verl" });
  assert.equal(verl.manifestSha256, null);
  assert.equal(verl.framework, "verl");
});

test("compare equals the files npm run compare writes for the same arms, reference, seed and resamples", async () => {
  const out = path.join(tmp, "compare");
  const arms = [
    { name: "n8", archives: ["n8-s1", "n8-s2", "n8-s3"] },
    { name: "n16", archives: ["n16-s4", "n16-s5", "n16-s6"] },
  ];
  const spec = { arms, root: path.join(ROOT, "data/compare"), reference: "reference", seed: 3, resamples: 2000, corridor: {} };
  await runComparison(spec, out);
  type Table = { columns: string[]; rows: unknown[][] };
  const a = await answer<{ compare: Table; improvement: Table; corridor: Table; archives: { archive: string; manifestSha256: string }[] }>(
    server.client,
    "compare",
    {
      arms,
      reference: "reference",
      seed: 3,
      resamples: 2000,
    },
  );
  for (const [file, table] of [
    ["compare.csv", a.compare],
    ["improvement.csv", a.improvement],
    ["corridor.csv", a.corridor],
  ] as const) {
    const csv = csvFile(path.join(out, file));
    assert.deepEqual(table.columns, csv.columns, file);
    // Cells that name an archive or list values name them as given: the same names on both sides here.
    assert.deepEqual(
      table.rows,
      csv.rows.map((r) => r.map((cell, i) => cellOfCsv(cell, csv.columns[i], ["arm", "arm_x", "arm_y", "concept", "scope", "archive", "values", "outside"]))),
      file,
    );
  }
  assert.deepEqual(
    a.archives.map((x) => x.manifestSha256),
    a.archives.map((x) => fileSha256(path.join(ARCHIVES[x.archive], "manifest.json"))),
  );
});

test("refusals arrive as tool errors naming the reason and the manifest, never as empty answers", async () => {
  const c = server.client;
  const sampleSha = fileSha256(path.join(ARCHIVES.sample, "manifest.json"));
  const cases: [string, Record<string, unknown>, string, RegExp][] = [
    ["summary", {}, "unknown_archive", /several archives are open: name one of sample, trl/],
    ["summary", { archive: "nope" }, "unknown_archive", /no archive named nope/],
    ["history", { archive: "sample", run: "nope" }, "unknown_run", /no run nope: the archive has sim-r0-ghfk/],
    ["history", { archive: "sample", run: "sim-r0-ghfk", keys: ["loss"] }, "unknown_key", /never logged loss/],
    ["history", { archive: "sample", run: "sim-r0-ghfk", fromStep: 1000 }, "nothing_in_range", /no row with _step in \[1000, end\].*last step is 99/],
    ["history", { archive: "sample", cursor: "bm90IGEgY3Vyc29y" }, "invalid_cursor", /invalid cursor/],
    ["summary", { archive: "sample", columns: ["loss_mean"] }, "unknown_column", /no column loss_mean/],
    ["summary", { archive: "sample", binWidth: 10 }, "invalid_argument", /round axis takes none/],
    ["health", { archive: "sample", check: "nope" }, "unknown_check", /no check nope/],
    ["concepts", { archive: "sample", framework: "verl" }, "unknown_framework", /slime runs, not verl/],
  ];
  for (const [tool, args, code, reason] of cases) {
    const r = await refusal(c, tool, args);
    assert.equal(r.tool, tool);
    assert.equal(r.code, code, `${tool} ${JSON.stringify(args)}: ${r.reason}`);
    assert.match(r.reason, reason);
    if (args.archive === "sample") assert.equal(r.manifestSha256, sampleSha);
  }
  // Where the export refuses, the tools refuse with its reason; the frozen rows can still be read.
  const broken = await refusal(c, "summary", { archive: "broken" });
  assert.equal(broken.code, "mapping_does_not_hold");
  assert.match(broken.reason, /^broken: refusing the summary: the axis mapping does not hold for run a, round R0, train\/step 5: missing-update/);
  assert.equal((await refusal(c, "compare", { arms: [{ name: "x", archives: ["broken"] }] })).code, "mapping_does_not_hold");
  assert.equal((await answer<{ rows: unknown[] }>(c, "history", { archive: "broken" })).rows.length, manifestOf("broken").runs[0].historyEvents);
  // A cursor of another archive is refused, not read against this one.
  const page = await answer<{ nextCursor: string }>(c, "history", { archive: "sample", run: "sim-r0-ghfk", limit: 10 });
  assert.equal((await refusal(c, "history", { archive: "trl", cursor: page.nextCursor })).code, "invalid_cursor");
  // Arguments outside the schema are refused by the SDK before any tool runs.
  const bad = await c.callTool({ name: "history", arguments: { archive: "sample", limit: 0 } });
  assert.equal(bad.isError, true);
  assert.match(JSON.stringify(bad.content), /Input validation error/);
});
