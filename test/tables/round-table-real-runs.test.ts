/**
 * The round tables of real TRL and verl runs (test/fixtures/real-runs/) as the notebooks show them:
 * a concept the framework never logs is a dash under its registry label, never NaN, never an internal id.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, test } from "node:test";

import { alignRuns } from "../../lib/align/align-runs";
import { fetchAndFreeze } from "../../lib/archive/fetch-and-freeze";
import { loadArchive } from "../../lib/archive/load-archive";
import { policyRoundTable } from "../../lib/diagnostics/policy-round-table";
import { rolloutRoundTable } from "../../lib/diagnostics/rollout-round-table";
import { MISSING_CELL, tableHtml } from "../../lib/display/table-html";
import type { AlignedRuns } from "../../lib/types";
import { roundTableFrame, roundTableRows, type RoundTableLike } from "../../lib/tables/round-table-frame";

const ROOT = path.resolve(__dirname, "../fixtures/real-runs");
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "round-table-real-"));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

const frozen = new Map<string, Promise<AlignedRuns>>();

/** One fixture's first .wandb file frozen as round R0 and aligned (once per fixture). */
function alignedFixture(framework: string, name: string): Promise<AlignedRuns> {
  const id = `${framework}/${name}`;
  if (!frozen.has(id)) frozen.set(id, freezeFixture(framework, name));
  return frozen.get(id)!;
}

/** Freezes a fixture's first .wandb file under the run id its case.json names. */
async function freezeFixture(framework: string, name: string): Promise<AlignedRuns> {
  const dir = path.join(ROOT, framework, name);
  const c = JSON.parse(fs.readFileSync(path.join(dir, "case.json"), "utf8"));
  const first = c.rounds?.[0] ?? c;
  const outDir = path.join(tmp, framework, name);
  await fetchAndFreeze({
    entity: "",
    project: "",
    runs: [{ runId: first.wandbRunId, round: "R0", file: path.join(dir, first.wandbFile) }],
    outDir,
    env: {},
    now: () => new Date("2026-12-01T00:00:00.000Z"),
    profile: "detect",
  });
  return alignRuns((await loadArchive(outDir)).runs);
}

/** Internal field or concept ids that must never head a column. */
const INTERNAL = /\b(actorTokPerS|logprobGap|ppoKl|gradNorm|klToRef|responseLen|rolloutTime|stepTime|clipfrac)\b/;

/** Every header a registry label; every unlogged cell null in the rows and a dash in the HTML, no NaN. */
function assertDashes<F extends string>(framework: string, table: RoundTableLike<F>): void {
  const absent = table.columns.filter((c) => c.metric === null);
  for (const c of table.columns) assert.doesNotMatch(c.label, INTERNAL, `${framework}: header ${c.label}`);
  const rows = roundTableRows(table);
  for (const c of absent) for (const r of rows) assert.equal(r[c.label], null, `${framework}: ${c.label} in round ${r.round}`);
  const html = tableHtml(roundTableFrame(table));
  assert.doesNotMatch(html, />NaN</, `${framework}: no NaN cell`);
  assert.doesNotMatch(html, INTERNAL, `${framework}: no internal id in the table`);
  if (absent.length > 0) assert.ok(html.includes(`<td title="missing">${MISSING_CELL}</td>`), `${framework}: dash cells`);
}

for (const [framework, name] of [
  ["trl", "grpo-log1"],
  ["verl", "plain"],
] as const) {
  test(`${framework} ${name}: unlogged concepts are a dash under their registry label, never NaN`, async () => {
    const aligned = await alignedFixture(framework, name);
    assertDashes(framework, policyRoundTable(aligned));
    assertDashes(framework, rolloutRoundTable(aligned));
  });
}

test("trl grpo-log1: the policy table heads its unlogged columns with the registry's labels", async () => {
  const policy = policyRoundTable(await alignedFixture("trl", "grpo-log1"));
  const labels = policy.columns.map((c) => c.label);
  assert.ok(labels.includes("|train - rollout log-prob|"), labels.join(", "));
  assert.ok(labels.includes("ppo_kl (first update of batch)"), labels.join(", "));
  assert.ok(labels.includes("actor tokens/s"), labels.join(", "));
});

test("a mean of only non-finite logged values is NaN; a mean never logged is null", () => {
  const cell = (mean: number | null, nonFinite: number) => ({ mean, n: 0, nonFinite, missing: 0, note: null });
  const table = {
    columns: [
      { field: "a" as const, label: "a", metric: null, over: "" },
      { field: "b" as const, label: "b", metric: null, over: "" },
    ],
    rows: [{ round: "R0", runId: "x", a: cell(null, 2), b: cell(null, 0) }],
    all: { round: "all", runId: null, a: cell(null, 2), b: cell(null, 0) },
  };
  const rows = roundTableRows(table);
  assert.ok(Number.isNaN(rows[0].a));
  assert.equal(rows[0].b, null);
  const html = tableHtml(roundTableFrame(table));
  assert.match(html, />NaN</);
  assert.match(html, new RegExp(`<td title="missing">${MISSING_CELL}</td>`));
});
