import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";

import { MISMATCH_QUANTITIES, MISMATCH_QUANTITY_IDS, mismatchMetricsOf } from "../../lib/registry/mismatch";
import { PROFILES } from "../../lib/registry/profiles";

const DOC = fs.readFileSync(path.resolve(__dirname, "../../docs/mismatch.md"), "utf8");

test("every declared mismatch key and look-alike of every profile is in docs/mismatch.md (the doc cannot fall behind the registry)", () => {
  for (const p of PROFILES) {
    for (const q of MISMATCH_QUANTITY_IDS) {
      for (const m of mismatchMetricsOf(p.mismatch, q)) {
        assert.ok(DOC.includes(`\`${m.key}\``), `${p.name} ${q}: ${m.key}`);
        if (m.minus !== undefined) assert.ok(DOC.includes(`\`${m.minus}\``), `${p.name} ${q}: ${m.minus}`);
      }
    }
    for (const l of p.mismatch.lookAlikes) assert.ok(DOC.includes(`\`${l.key}\``), `${p.name} look-alike ${l.key}`);
  }
});

test("declarations: a key is declared once per profile; a look-alike is never also a declared key; thresholds are positive where declared", () => {
  for (const p of PROFILES) {
    const names = MISMATCH_QUANTITY_IDS.flatMap((q) => mismatchMetricsOf(p.mismatch, q).map((m) => `${m.key}-${m.minus ?? ""}`));
    assert.equal(new Set(names).size, names.length, `${p.name}: ${names.join(", ")}`);
    for (const l of p.mismatch.lookAlikes) assert.ok(!names.some((n) => n.startsWith(`${l.key}-`)), `${p.name}: ${l.key} is both`);
  }
  for (const q of Object.values(MISMATCH_QUANTITIES)) {
    if ("value" in q.driftPerRound) assert.ok(q.driftPerRound.value > 0, q.id);
    if ("relative" in q.resumeSpike) assert.ok(q.resumeSpike.relative > 0 && q.resumeSpike.floor > 0, q.id);
  }
});

test("a framework's derived value reads two keys of one grain; every profile logs at least one mismatch key", () => {
  for (const p of PROFILES) {
    const all = MISMATCH_QUANTITY_IDS.flatMap((q) => mismatchMetricsOf(p.mismatch, q));
    assert.ok(all.length > 0, p.name);
    for (const m of all.filter((x) => x.minus !== undefined)) assert.equal(m.key.split("/")[0], m.minus!.split("/")[0], `${p.name}: ${m.key} - ${m.minus}`);
  }
});
