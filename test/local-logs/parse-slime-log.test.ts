import { test } from "node:test";
import assert from "node:assert/strict";
import { parseSlimeLog, parseSlimeLogWithStats } from "../../lib/local-logs/parse-slime-log";
import { LOG_TEXT } from "./slime-log-fixture";

function recorder() {
  const warns: string[] = [];
  const infos: string[] = [];
  return { warns, infos, warn: (m: string) => void warns.push(m), info: (m: string) => void infos.push(m) };
}

test("records of a slime log: kinds, ids, values, line numbers", () => {
  const rep = recorder();
  const { records, stats, malformed } = parseSlimeLogWithStats(LOG_TEXT, { runId: "run-a", file: "round0.log", reporter: rep });
  assert.deepEqual(
    records.map((r) => [r.kind, r.id, r.line]),
    [
      ["rollout-manager-perf", 1, 3],
      ["rollout", 1, 4],
      ["step", 2, 5],
      ["step", 3, 6],
      ["trainer-perf", 1, 7],
      ["rollout-manager-perf", 2, 9],
      ["rollout", 2, 10],
      ["step", 4, 11],
      ["step", 5, 12],
      ["trainer-perf", 2, 13],
      ["eval", 2, 15],
    ],
  );
  assert.deepEqual(records[0].values, { "rollout/response_len/mean": 101, "rollout/truncated_ratio": 0.01, "perf/rollout_time": 11 });
  assert.deepEqual(records[3].values, { "train/loss": 0.003, "train/grad_norm": NaN, "train/entropy_loss": 0.2, "train/step": 3 });
  assert.deepEqual(records[6], { kind: "rollout", id: 2, line: 10, values: { "rollout/log_probs": -0.52, "rollout/rewards": 0.2 }, skipped: ["rollout/flag"] });
  assert.deepEqual(records[7].values, { "train/loss": 0.004, "train/grad_norm": 5, "train/entropy_loss": 0.2, "train/step": 4 });
  assert.equal(records[8].values["train/loss"], 0.0051);
  assert.equal(records[9].values["perf/x"], Infinity);
  assert.deepEqual(stats, { lines: 17, metricLines: 13, records: 11, malformed: 2, nonNumeric: 1 });
  assert.deepEqual(rep.warns, [
    `round0.log:14: run run-a: metric line "step 6: {..." not parsed: unterminated string at column ${LOG_TEXT.split("\n")[13].length + 1}`,
    'round0.log:16: run run-a: metric line "rollout 3: {..." not parsed: unexpected text after the dict at column 40',
  ]);
  assert.deepEqual(
    malformed.map((m) => [m.file, m.line, m.message]),
    [
      ["round0.log", 14, "step 6"],
      ["round0.log", 16, "rollout 3"],
    ],
  );
  assert.deepEqual(rep.infos, [
    "round0.log: run run-a: 11 metric record(s) from 17 line(s), 2 malformed metric line(s) skipped, 1 non-numeric value(s) skipped",
  ]);
});

test("perf flavours are told apart by their keys", () => {
  const text = [
    "perf 0: {'rollout/zero_std/count_0': 12, 'perf/tokens_per_gpu_per_sec': 5}",
    "perf 0: {'perf/train_wait_time': 1.5, 'perf/step_time': 9}",
    "perf 0: {'perf/rollout_time': 371.17}",
    "multi_turn 0: {'multi_turn/round_number_mean': 2}",
    "passrate 0: {'passrate/pass@1': 0.5}",
    "critic-step 0: {'train/critic-loss': 0.3, 'train/step': 0}",
  ].join("\n");
  assert.deepEqual(
    parseSlimeLog(text, { runId: "x" }).map((r) => r.kind),
    ["rollout-manager-perf", "trainer-perf", "rollout-manager-perf", "rollout", "rollout", "critic-step"],
  );
});

test("warnings are capped at 20 plus one count line; file defaults to <text>", () => {
  const bad = Array.from({ length: 25 }, (_, i) => `step ${i}: {'train/loss': `).join("\n");
  const rep = recorder();
  const { stats } = parseSlimeLogWithStats(bad, { runId: "x", reporter: rep });
  assert.equal(stats.malformed, 25);
  assert.equal(rep.warns.length, 21);
  assert.match(rep.warns[0], /^<text>:1: run x: metric line "step 0: \{\.\.\." not parsed/);
  assert.equal(rep.warns[20], "<text>: run x: 5 more malformed metric line(s) not shown");
});

test("empty text, CRLF text, and option errors", () => {
  assert.deepEqual(parseSlimeLog("", { runId: "x" }), []);
  const crlf = "step 2: {'train/loss': 1}\r\nstep 3: {'train/loss': 2}\r\n";
  assert.deepEqual(
    parseSlimeLog(crlf, { runId: "x" }).map((r) => [r.id, r.line, r.values["train/loss"]]),
    [
      [2, 1, 1],
      [3, 2, 2],
    ],
  );
  assert.throws(() => parseSlimeLog("", { runId: "" }), { message: "invalid runId: " });
});
