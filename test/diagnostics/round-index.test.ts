import { test } from "node:test";
import assert from "node:assert/strict";
import { roundIndex, rolloutRoundPosition, updateRoundPosition } from "../../lib/diagnostics/round-index";
import { buildAligned } from "./aligned-builder";

test("roundIndex: positions in run order, run ids per round (several joined with +)", () => {
  const aligned = buildAligned([
    { round: "R0", batches: [{ rollout: { x: 1 }, updates: [{}] }] },
    { round: "R1", batches: [] },
  ]);
  aligned.runs.push({ runId: "syn-r1b", round: "R1", state: "finished", historyEvents: 0 });
  const ri = roundIndex(aligned);
  assert.deepEqual(
    [...ri.position],
    [
      ["R0", 0],
      ["R1", 1],
    ],
  );
  assert.deepEqual(ri.runIds, ["syn-r0", "syn-r1+syn-r1b"]);
  assert.equal(updateRoundPosition(ri, aligned.updates[0]), 0);
  assert.equal(rolloutRoundPosition(ri, aligned.rollouts[0]), 0);
});

test("roundIndex: a repeated round label and a record of an unknown round are errors", () => {
  const aligned = buildAligned([{ round: "R0", batches: [{ rollout: { x: 1 } }] }]);
  assert.throws(() => roundIndex({ ...aligned, rounds: ["R0", "R0"] }), { message: "invalid aligned.rounds: round R0 is listed twice" });
  aligned.rollouts[0].round = "R5";
  assert.throws(() => rolloutRoundPosition(roundIndex(aligned), aligned.rollouts[0]), {
    message: 'run syn-r0 rollout 1 (_step 0, 1): round "R5" is not in aligned.rounds (R0)',
  });
});
