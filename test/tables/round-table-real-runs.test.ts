/**
 * The round tables of real TRL and verl runs (test/fixtures/real-runs/) as the notebooks show them:
 * a concept the framework never logs is a dash under its registry label, never NaN, never an internal id.
 */
import assert from "node:assert/strict";
import { test } from "node:test";

import { policyRoundTable } from "../../lib/diagnostics/policy-round-table";
import { recordCountsText } from "../../lib/diagnostics/record-counts";
import { rolloutRoundTable } from "../../lib/diagnostics/rollout-round-table";
import { MISSING_CELL, tableHtml } from "../../lib/display/table-html";
import { alignedFixture } from "../real-runs/aligned-fixture";
import { roundTableFrame, roundTableRows, type RoundTableLike } from "../../lib/tables/round-table-frame";

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
  assert.deepEqual(Object.keys(roundTableRows(policy, ["updates", "rollouts"])[0]).slice(0, 4), ["round", "run", "optimizer updates", "logged steps"]);
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

test("trl grpo-log1: 6 optimizer steps read as 6 logged steps with updates not observable, never 'updates 0, N = 0'", async () => {
  const aligned = await alignedFixture("trl", "grpo-log1");
  const text = recordCountsText(aligned);
  assert.match(text, /^6 logged steps \(single optimizer updates are not observable: TRL GRPOTrainer: TRL logs every logging_steps optimizer steps/);
  assert.doesNotMatch(text, /N = |0 optimizer updates/);
  const policy = policyRoundTable(aligned);
  const rows = roundTableRows(policy, ["updates", "rollouts"]);
  assert.deepEqual(
    rows.map((r) => [r.round, r["optimizer updates"], r["logged steps"]]),
    [
      ["R0", null, 6],
      ["all", null, 6],
    ],
  );
  assert.ok(policy.unobservable?.updates.startsWith("TRL GRPOTrainer: "));
  assert.equal(policy.notes.filter((n) => n === policy.unobservable!.updates).length, 1, "the reason once");
  // The updates cell (third) is a dash, not a counted 0 (the 0 clip fraction beside it is a logged value).
  assert.match(
    tableHtml(roundTableFrame(policy, ["updates", "rollouts"])),
    /<td style="text-align: left">trlgrpolog1<\/td><td title="missing">\u2014<\/td><td style="text-align: right">6<\/td>/,
  );
});
