import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, test } from "node:test";

import { readRunsConfig } from "../../lib/archive/runs-config";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "runs-config-"));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));
const write = (name: string, body: unknown) => {
  const p = path.join(tmp, name);
  fs.writeFileSync(p, typeof body === "string" ? body : JSON.stringify(body));
  return p;
};

test("a valid config is read in order", () => {
  const p = write("ok.json", {
    entity: "e",
    project: "p",
    runs: [
      { runId: "b2", round: "R0" },
      { runId: "a1", round: "R1" },
    ],
  });
  assert.deepEqual(readRunsConfig(p), {
    entity: "e",
    project: "p",
    runs: [
      { runId: "b2", round: "R0" },
      { runId: "a1", round: "R1" },
    ],
  });
});

test("the shipped example is valid", () => {
  const cfg = readRunsConfig(path.join(__dirname, "../../data/runs.example.json"));
  assert.equal(cfg.runs.length, 2);
});

test("errors name the file and what is wrong", () => {
  const cases: [unknown, string][] = [
    ["{", "not valid JSON"],
    [[], "not a JSON object"],
    [{ project: "p", runs: [] }, '"entity" must be a non-empty string'],
    [{ entity: "e", project: "p", runs: [] }, '"runs" must be a non-empty list of {"runId", "round"}'],
    [{ entity: "e", project: "p", runs: [{ runId: "../x", round: "R0" }] }, 'runs[0]: invalid runId: "../x"'],
    [{ entity: "e", project: "p", runs: [{ runId: "a", round: "" }] }, "runs[0].round must be a non-empty string"],
    [
      {
        entity: "e",
        project: "p",
        runs: [
          { runId: "a", round: "R0" },
          { runId: "a", round: "R1" },
        ],
      },
      "run a is listed twice",
    ],
  ];
  cases.forEach(([body, what], i) => {
    const p = write(`bad${i}.json`, body);
    assert.throws(
      () => readRunsConfig(p),
      (e: unknown) => (e as Error).message.startsWith(`invalid runs config: ${p}: ${what}`),
      what,
    );
  });
  const missing = path.join(tmp, "missing.json");
  assert.throws(() => readRunsConfig(missing), new Error(`invalid runs config: ${missing}: cannot read (ENOENT)`));
});
