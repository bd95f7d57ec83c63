/**
 * test/fixtures/real-runs/README.md names every fixture case with its framework version, the command
 * that remakes it and its rounds (run ids, history counts): written by tools/real-runs/fixtures_readme.py,
 * checked here so that it cannot drift from the case.json files.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";

import { fixtureCases } from "./own-record";

const ROOT = path.resolve(__dirname, "../fixtures/real-runs");

test("the fixtures' README has one line per case with its version, command and rounds", () => {
  const lines = fs.readFileSync(path.join(ROOT, "README.md"), "utf8").split("\n");
  const cases = fixtureCases(ROOT);
  assert.equal(lines.filter((l) => l.startsWith("| `")).length, cases.length, "one table line per case");
  for (const c of cases) {
    const line = lines.find((l) => l.startsWith(`| \`${c.framework}/${c.case}\` |`));
    assert.ok(line, `${c.framework}/${c.case} is listed`);
    assert.ok(line.includes(`${c.framework} ${c.versions[c.framework]}`), `${c.case}: version`);
    assert.ok(line.includes(`\`${c.command.split("  #")[0]}\``), `${c.case}: command`);
    for (const r of c.rounds) assert.ok(line.includes(`${r.round} \`${r.wandbRunId}\` ${r.historyRecords}`), `${c.case}: round ${r.round}`);
  }
});
