import assert from "node:assert/strict";
import { test } from "node:test";

import { checkRunId, historyFile, parseManifest, serializeManifest } from "../../lib/archive/manifest";
import type { SourceManifest } from "../../lib/types";

const run = {
  bytes: 10,
  sha256: "a".repeat(64),
  droppedKeys: { z: 1, a: 2 },
  file: "history/r1.jsonl",
  fetchedAt: "2025-01-01T00:00:00.000Z",
  createdAt: null,
  lastStep: 4,
  historyEvents: 2,
  state: "finished",
  round: "R0",
  runId: "r1",
  project: "p",
  entity: "e",
};
const manifest = { runs: [run], pageSize: 1000, readerVersion: "0.1.0", formatVersion: 1, kind: "wandb-frozen-history" } as SourceManifest;

test("serialized bytes: fixed key order whatever the input order, sorted droppedKeys", () => {
  assert.equal(
    serializeManifest(manifest),
    `{
  "kind": "wandb-frozen-history",
  "formatVersion": 1,
  "readerVersion": "0.1.0",
  "pageSize": 1000,
  "runs": [
    {
      "entity": "e",
      "project": "p",
      "runId": "r1",
      "round": "R0",
      "displayName": null,
      "state": "finished",
      "historyEvents": 2,
      "lastStep": 4,
      "createdAt": null,
      "fetchedAt": "2025-01-01T00:00:00.000Z",
      "file": "history/r1.jsonl",
      "sha256": "${"a".repeat(64)}",
      "bytes": 10,
      "droppedKeys": {
        "a": 2,
        "z": 1
      }
    }
  ]
}
`,
  );
});

test("parse accepts what serialize wrote", () => {
  assert.equal(parseManifest(serializeManifest(manifest), "m.json").runs[0].runId, "r1");
});

test("parse refuses unsafe or inconsistent runs, naming the field", () => {
  const bad = (patch: Record<string, unknown>) => serializeManifest({ ...manifest, runs: [{ ...run, ...patch }] } as SourceManifest);
  assert.throws(() => parseManifest(bad({ file: "../etc/passwd" }), "m.json"), {
    message: 'invalid manifest m.json: runs[0].file is "../etc/passwd", expected "history/r1.jsonl"',
  });
  assert.throws(() => parseManifest(bad({ sha256: "xyz" }), "m.json"), { message: "invalid manifest m.json: runs[0].sha256 is not a sha256 hex digest" });
  assert.throws(() => parseManifest(bad({ historyEvents: "2" }), "m.json"), { message: "invalid manifest m.json: runs[0].historyEvents is not an integer" });
  const twice = JSON.stringify({ ...manifest, runs: [run, run] });
  assert.throws(() => parseManifest(twice, "m.json"), { message: "invalid manifest m.json: run r1 is listed twice" });
  assert.throws(() => parseManifest(JSON.stringify({ ...manifest, formatVersion: 2 }), "m.json"), {
    message: "invalid manifest m.json: formatVersion 2 is not supported (expected 1)",
  });
});

test("run ids must be safe file names", () => {
  assert.equal(historyFile("8ov14yyc"), "history/8ov14yyc.jsonl");
  for (const bad of ["", ".", "..", "a/b", "a\\b", "-x", "a b"]) assert.throws(() => checkRunId(bad), /^Error: invalid runId: /, bad);
});
