import { test } from "node:test";
import assert from "node:assert/strict";
import { alignRuns } from "../../lib/align/align-runs";
import { crossCheck, type CrossCheckAligned, type CrossCheckLocal } from "../../lib/local-logs/cross-check";
import type { LocalLogRecord } from "../../lib/local-logs/parse-slime-log";
import { ids, slimeRun } from "../align/slime-history";
import { LOG_LINES, LOG_TEXT, localOf, wandbAligned } from "./slime-log-fixture";

/** The fixture log without its two malformed metric lines (14 and 16). */
const LOG_CLEAN = LOG_LINES.filter((_, i) => i !== 13 && i !== 15).join("\n") + "\n";

test("a log with one deliberate mismatch and two malformed lines: exact counts, the mismatch, fields only in W&B, the malformed lines", () => {
  const res = crossCheck(wandbAligned(), localOf({ runId: "run-a", text: LOG_TEXT, file: "round0.log" }));
  // Fields in both: manager 3+3, trainer rollout 2+2, steps 4*4, trainer perf 2+3, eval 1 = 32.
  assert.equal(res.records, 11);
  assert.equal(res.matchedRecords, 11);
  assert.equal(res.compared, 32);
  assert.equal(res.exact, 31);
  assert.deepEqual(res.mismatches, [{ runId: "run-a", round: "R0", kind: "step", step: 5, key: "train/loss", wandb: 0.005, local: 0.0051, line: 12 }]);
  assert.deepEqual(res.onlyInWandb, [{ runId: "run-a", round: "R0", kind: "step", step: 4, key: "train/lr-pg_0", line: 11 }]);
  assert.deepEqual(res.onlyInLocal, []);
  assert.deepEqual(res.unmatched, []);
  assert.deepEqual(
    res.malformed.map((m) => [m.runId, m.file, m.line, m.message]),
    [
      ["run-a", "round0.log", 14, "step 6"],
      ["run-a", "round0.log", 16, "rollout 3"],
    ],
  );
  assert.equal(res.agree, false);
  assert.match(
    res.verdict,
    /^W&B and the local logs DISAGREE: 1 mismatch\(es\) \(32 field\(s\) of 11 paired record\(s\)\); also 2 metric line\(s\) were malformed and not compared: round0\.log:14 \(step 6: unterminated string/,
  );
  assert.deepEqual(res.runs, [
    {
      runId: "run-a",
      round: "R0",
      records: 11,
      matchedRecords: 11,
      compared: 32,
      exact: 31,
      mismatches: 1,
      onlyInWandb: 1,
      onlyInLocal: 0,
      unmatchedRecords: 0,
      wandbRecordsWithoutLocal: 0,
      malformedLines: 2,
      supersededRecords: 0,
    },
  ]);
  assert.deepEqual(res.runsWithoutLocal, []);
});

test("without the mismatch the parsed records agree, but the verdict is not 'agree' while two metric lines are malformed", () => {
  const fixed = LOG_TEXT.replace("'train/loss': 0.0051", "'train/loss': 0.005");
  const res = crossCheck(wandbAligned(), localOf({ runId: "run-a", text: fixed, file: "round0.log" }));
  assert.deepEqual([res.compared, res.exact, res.mismatches.length, res.malformed.length], [32, 32, 0, 2]);
  assert.equal(res.agree, false);
  assert.equal(
    res.verdict,
    "W&B and the local logs agree on the 11 parsed record(s) (32 field(s)), but 2 metric line(s) were malformed and not compared: " +
      `round0.log:14 (step 6: unterminated string at column ${LOG_LINES[13].length + 1}), ` +
      "round0.log:16 (rollout 3: unexpected text after the dict at column 40): not verified",
  );
});

test("without the mismatch and the malformed lines the log agrees (nan = nan, inf, np.float64, missing step keys are fine)", () => {
  const fixed = LOG_CLEAN.replace("'train/loss': 0.0051", "'train/loss': 0.005");
  const res = crossCheck(wandbAligned(), localOf({ runId: "run-a", text: fixed }));
  assert.equal(res.agree, true);
  assert.deepEqual([res.compared, res.exact, res.mismatches.length, res.malformed.length], [32, 32, 0, 0]);
  assert.equal(res.verdict, "W&B and the local logs agree exactly: 32 field(s) of 11 paired record(s)");
});

test("a malformed count without the list (stats only) still blocks 'agree'", () => {
  const fixed = LOG_CLEAN.replace("'train/loss': 0.0051", "'train/loss': 0.005");
  const local = localOf({ runId: "run-a", text: fixed });
  const stats = local.stats.map((s) => ({ runId: s.runId, file: s.file, stats: { ...s.stats, malformed: 1 } }));
  const res = crossCheck(wandbAligned(), { records: local.records, stats });
  assert.equal(res.agree, false);
  assert.equal(
    res.verdict,
    "W&B and the local logs agree on the 11 parsed record(s) (32 field(s)), but 1 metric line(s) were malformed and not compared: not verified",
  );
});

test("records without a W&B record, fields only in the log, unknown runs, runs without a log", () => {
  const rec = (kind: LocalLogRecord["kind"], id: number, values: Record<string, number>, line: number): LocalLogRecord => ({ kind, id, values, line });
  const local: CrossCheckLocal = {
    records: new Map<string, LocalLogRecord[]>([
      [
        "a",
        [
          rec("step", 2, { "train/loss": 0.002, "train/extra": 1, "train/step": 2 }, 1),
          rec("step", 99, { "train/loss": 1 }, 2),
          rec("eval", 1, { "eval/x": 1 }, 3),
          rec("trainer-perf", 1, { "perf/actor_train_time": 5, "perf/actor_train_tok_per_s": 1001 }, 4),
        ],
      ],
      ["ghost", [rec("step", 2, { "train/loss": 1 }, 7)]],
    ]),
    stats: [],
  };
  const runs = [slimeRun({ runId: "a", round: "R0", n: 2, rollouts: ids(1, 2) }), slimeRun({ runId: "b", round: "R1", n: 2, rollouts: [3] })];
  const res = crossCheck(alignRuns(runs), local);
  assert.deepEqual(res.onlyInLocal, [{ runId: "a", round: "R0", kind: "step", step: 2, key: "train/extra", line: 1 }]);
  // Update 2's W&B record also has train/grad_norm and train/entropy_loss; rollout record 1 (manager,
  // trainer rollout and trainer perf rows merged) has five keys no line of the log printed.
  assert.deepEqual(
    res.onlyInWandb.map((f) => [f.kind, f.step, f.key, f.line]),
    [
      ["step", 2, "train/grad_norm", 1],
      ["step", 2, "train/entropy_loss", 1],
      ["rollout-manager-perf", 1, "rollout/response_len/mean", 4],
      ["rollout-manager-perf", 1, "rollout/truncated_ratio", 4],
      ["rollout-manager-perf", 1, "perf/rollout_time", 4],
      ["rollout", 1, "rollout/log_probs", 4],
      ["rollout", 1, "rollout/rewards", 4],
    ],
  );
  assert.deepEqual(res.unmatched, [
    { runId: "a", round: "R0", kind: "step", step: 99, line: 2 },
    { runId: "a", round: "R0", kind: "eval", step: 1, line: 3 },
    { runId: "ghost", round: null, kind: "step", step: 2, line: 7 },
  ]);
  // Run a: 2 rollout + 4 update records, 2 of them paired.
  assert.deepEqual(
    res.runs.map((r) => [r.runId, r.records, r.matchedRecords, r.compared, r.exact, r.unmatchedRecords, r.wandbRecordsWithoutLocal]),
    [
      ["a", 4, 2, 4, 4, 2, 4],
      ["ghost", 1, 0, 0, 0, 1, 0],
    ],
  );
  assert.deepEqual(res.runsWithoutLocal, ["b"]);
  assert.equal(res.agree, false);
  assert.equal(
    res.verdict,
    "W&B and the local logs DISAGREE: 1 field(s) only in the local logs, 3 local record(s) without a W&B record (4 field(s) of 2 paired record(s))",
  );
});

/** Aligned records built by hand (no alignment code involved). */
function aligned(parts: Partial<CrossCheckAligned>): CrossCheckAligned {
  return {
    runs: [{ runId: "a", round: "R0", state: "finished", historyEvents: 0 }],
    rollouts: [],
    updates: [],
    evals: [],
    ...parts,
  };
}
const rolloutRec = (rollout: number, values: Record<string, number>) => ({ runId: "a", round: "R0", rollout, historySteps: [], values });
const updateRec = (trainStep: number, values: Record<string, number>) => ({
  runId: "a",
  round: "R0",
  trainStep,
  update: trainStep + 1,
  rollout: Math.floor(trainStep / 2),
  updateInRollout: trainStep % 2,
  historyStep: 0,
  values,
});
const evalRec = (rollout: number, values: Record<string, number>) => ({
  runId: "a",
  round: "R0",
  evalStep: values["eval/step"],
  rollout,
  historyStep: 0,
  values,
});

test("--wandb-always-use-train-step (N = 2): local perf/rollout/eval N pair by rollout id, never by the raw rollout/step value", () => {
  // Alignment has converted the ids: rollout 1 was logged with rollout/step 2, rollout 2 with 4, the eval after rollout 1 with eval/step 2.
  const w = aligned({
    rollouts: [
      rolloutRec(1, { "perf/rollout_time": 11, "rollout/response_len/mean": 101, "rollout/step": 2, "rollout/rewards": 0.1, "perf/step_time": 21 }),
      rolloutRec(2, { "perf/rollout_time": 12, "rollout/response_len/mean": 102, "rollout/step": 4, "rollout/rewards": 0.2, "perf/step_time": 22 }),
    ],
    updates: [updateRec(2, { "train/loss": 0.2, "train/step": 2 }), updateRec(4, { "train/loss": 0.4, "train/step": 4 })],
    evals: [evalRec(1, { "eval/aime": 0.3, "eval/step": 2 })],
  });
  const text = [
    "perf 1: {'perf/rollout_time': 11, 'rollout/response_len/mean': 101}",
    "rollout 1: {'rollout/rewards': 0.1}",
    "step 2: {'train/loss': 0.2, 'train/step': 2}",
    "perf 1: {'perf/step_time': 21}",
    "eval 1: {'eval/aime': 0.3}",
    "perf 2: {'perf/rollout_time': 12, 'rollout/response_len/mean': 102}",
    "rollout 2: {'rollout/rewards': 0.2}",
    "step 4: {'train/loss': 0.4, 'train/step': 4}",
    "perf 2: {'perf/step_time': 22}",
  ].join("\n");
  const res = crossCheck(w, localOf({ runId: "a", text }));
  // 2 + 1 + 2 + 1 + 1 + 2 + 1 + 2 + 1; rollout/step and eval/step are never compared.
  assert.deepEqual([res.compared, res.exact, res.mismatches.length, res.unmatched.length, res.onlyInWandb.length], [13, 13, 0, 0, 0]);
  assert.equal(res.agree, true);
  // Must not happen: pairing `perf 2:` with the record whose raw rollout/step is 2 (rollout 1).
  assert.equal(res.mismatches.filter((m) => m.step === 2 && m.kind === "rollout-manager-perf").length, 0);
});

test("critic-step lines pair with the critic keys of the update record of their train/step, in either order", () => {
  const w = aligned({
    updates: [updateRec(4, { "train/loss": 0.4, "train/critic-value_loss": 1.5, "train/critic-value_clipfrac": 0.1, "train/step": 4 })],
  });
  const both = [
    "critic-step 4: {'train/critic-value_loss': 1.5, 'train/critic-value_clipfrac': 0.1, 'train/step': 4}",
    "step 4: {'train/loss': 0.4, 'train/step': 4}",
  ].join("\n");
  const res = crossCheck(w, localOf({ runId: "a", text: both }));
  assert.deepEqual([res.compared, res.exact, res.matchedRecords, res.onlyInWandb.length, res.agree], [5, 5, 2, 0, true]);
  // Without the critic line its keys are only in W&B, listed under critic-step (agreement stands).
  const actorOnly = crossCheck(w, localOf({ runId: "a", text: "step 4: {'train/loss': 0.4, 'train/step': 4}" }));
  assert.deepEqual(
    actorOnly.onlyInWandb.map((f) => [f.kind, f.step, f.key, f.line]),
    [
      ["critic-step", 4, "train/critic-value_loss", 1],
      ["critic-step", 4, "train/critic-value_clipfrac", 1],
    ],
  );
  assert.equal(actorOnly.agree, true);
});

test("two eval records at one rollout id (pre-train eval and the eval after rollout 0): each local eval line takes its own", () => {
  const w = aligned({ evals: [evalRec(0, { "eval/aime": 0.1, "eval/step": 0 }), evalRec(0, { "eval/aime": 0.2, "eval/step": 0 })] });
  const res = crossCheck(w, localOf({ runId: "a", text: "eval 0: {'eval/aime': 0.1}\neval 0: {'eval/aime': 0.2}\n" }));
  assert.deepEqual([res.compared, res.exact, res.runs[0].wandbRecordsWithoutLocal, res.agree], [2, 2, 0, true]);
});

test("multi_turn, passrate and the rollout-buffer plugin's no-filter line pair with the rollout record", () => {
  const w = aligned({
    rollouts: [
      rolloutRec(3, {
        "rollout/rewards": 0.5,
        "multi_turn/multi_turn_metric/round_number_mean": 2.5,
        "passrate/pass@1": 0.25,
        "rollout/no_filter/total_samples": 64,
        "rollout/no_filter/avg_reward": 0.4,
        "rollout/step": 3,
      }),
    ],
  });
  const text = [
    "rollout 3: {'rollout/rewards': 0.5}",
    "multi_turn 3: {'multi_turn/multi_turn_metric/round_number_mean': np.float64(2.5)}",
    "passrate 3: {'passrate/pass@1': np.float64(0.25)}",
    "no filter rollout log 3: {'rollout/no_filter/total_samples': 64, 'rollout/no_filter/avg_reward': 0.4, 'rollout/step': 3}",
  ].join("\n");
  const res = crossCheck(w, localOf({ runId: "a", text }));
  assert.deepEqual([res.compared, res.exact, res.matchedRecords, res.onlyInWandb.length, res.agree], [5, 5, 4, 0, true]);
});

test("an empty comparison does not agree", () => {
  const res = crossCheck(wandbAligned(), { records: new Map(), stats: [] });
  assert.equal(res.agree, false);
  assert.equal(res.verdict, "nothing compared: 0 local record(s), none sharing a field with a W&B record");
  assert.deepEqual(res.runsWithoutLocal, ["run-a"]);
});

test("a log whose only metric line is malformed: the run is listed with its malformed line, and nothing agrees", () => {
  const res = crossCheck(wandbAligned(), localOf({ runId: "run-a", text: "step 2: {'train/loss': 0.0\n", file: "r.log" }));
  assert.deepEqual(
    res.runs.map((r) => [r.runId, r.records, r.malformedLines]),
    [["run-a", 0, 1]],
  );
  assert.equal(res.agree, false);
  assert.match(
    res.verdict,
    /^nothing compared: 0 local record\(s\), none sharing a field with a W&B record; 1 metric line\(s\) were malformed and not compared: r\.log:1 \(step 2: unexpected end of text/,
  );
});

test("superseded records: local lines of rollouts a later round took over are not compared; of a run resumed in place only the last line per id counts", () => {
  const base = aligned({
    rollouts: [rolloutRec(1, { "perf/rollout_time": 11, "rollout/step": 1 })],
    updates: [updateRec(2, { "train/loss": 0.25, "train/step": 2 })],
  });
  const w = {
    ...base,
    superseded: [
      { runId: "a", round: "R0", byRunId: "b", byRound: "R1", rollouts: [2], updates: [3], trainSteps: [4], evals: 0, evalRollouts: [], rows: 2, message: "" },
      { runId: "a", round: "R0", byRunId: "a", byRound: "R0", rollouts: [], updates: [1], trainSteps: [2], evals: 0, evalRollouts: [], rows: 1, message: "" },
    ],
  };
  const text = [
    "perf 1: {'perf/rollout_time': 11}",
    "step 2: {'train/loss': 0.5, 'train/step': 2}", // the logging a restart replaced
    "perf 2: {'perf/rollout_time': 99}", // rollout 2 belongs to round R1 now
    "step 4: {'train/loss': 0.9, 'train/step': 4}",
    "step 2: {'train/loss': 0.25, 'train/step': 2}",
  ].join("\n");
  const res = crossCheck(w, localOf({ runId: "a", text }));
  assert.deepEqual([res.compared, res.exact, res.mismatches.length, res.unmatched.length, res.runs[0].supersededRecords, res.agree], [3, 3, 0, 0, 3, true]);
  // Without the superseded list the same lines disagree: the check is not vacuous.
  assert.equal(crossCheck(base, localOf({ runId: "a", text })).agree, false);
});

test("records of runs without a local log are never read: no pairing target is built for them", () => {
  const aligned = wandbAligned();
  let reads = 0;
  /** A record of run-b whose values count every read. */
  const watched = <T extends { runId: string; values: Record<string, number> }>(r: T): T => {
    const copy = { ...r, runId: "run-b" };
    Object.defineProperty(copy, "values", {
      get: () => {
        reads++;
        return r.values;
      },
    });
    return copy;
  };
  const withB: CrossCheckAligned = {
    ...aligned,
    runs: aligned.runs.concat(aligned.runs.map((r) => ({ ...r, runId: "run-b", round: "R1" }))),
    rollouts: aligned.rollouts.concat(aligned.rollouts.map(watched)),
    updates: aligned.updates.concat(aligned.updates.map(watched)),
    evals: aligned.evals.concat(aligned.evals.map(watched)),
  };
  const local = localOf({ runId: "run-a", text: LOG_TEXT, file: "round0.log" });
  const res = crossCheck(withB, local);
  assert.equal(reads, 0, "run-b has no local log: its records are not touched");
  assert.deepEqual(res.runsWithoutLocal, ["run-b"]);
  const alone = crossCheck(aligned, local);
  assert.deepEqual({ ...res, runsWithoutLocal: [] }, alone, "run-a's findings are those of run-a checked alone");
});
