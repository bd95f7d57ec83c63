import assert from "node:assert/strict";
import { test } from "node:test";

import { mismatchPanel } from "../../lib/diagnostics/mismatch-panel";
import { mismatchRows, showMismatchPanel } from "../../lib/display/show-mismatch";
import { buildAligned } from "../diagnostics/aligned-builder";
import { fakeDisplay } from "./fake-display";

const ABS = "train/train_rollout_logprob_abs_diff";

test("the panel's table: round means, slope, jumps, comparable; then a figure per metric, the correction, what is not logged, what is not shown", () => {
  const aligned = buildAligned([
    { round: "R0", batches: [{ updates: [{ [ABS]: 0.01, "train/ois": 1 }] }, { updates: [{ [ABS]: 0.02 }] }] },
    { round: "R1", batches: [{ updates: [{ [ABS]: 0.05 }] }] },
  ]);
  const panel = mismatchPanel(aligned);
  assert.deepEqual(mismatchRows(panel, aligned.rounds), [
    {
      quantity: "mean |train - rollout log-prob|",
      key: ABS,
      comparable: "yes",
      R0: 0.015,
      R1: 0.05,
      "slope per round": "+0.035",
      "jumps at restarts": "R1 +0.035 (+233%)",
    },
  ]);
  const d = fakeDisplay();
  showMismatchPanel(panel, aligned.rounds, { display: d });
  const kinds = d.calls.map(([mime]) => mime);
  assert.deepEqual(kinds, ["text/html", "text/markdown", "application/vnd.plotly.v1+json", "text/markdown", "text/markdown", "text/markdown", "text/markdown"]);
  const md = d.calls.filter(([m]) => m === "text/markdown").map(([, s]) => s as string);
  assert.match(md[2], /^Correction: no statistic of a correction is logged/);
  assert.match(md[3], /train\/ois is logged but is not a mismatch key: mean exp\(-ppo\\_kl\) = pi\\_new \/ pi\\_old/);
  assert.match(md[4], /^\*\*Not shown:\*\* logged means \(and a batch's max or min\) cannot show the per-token distribution/);
});

test("a run set without a mismatch key: the panel says so, naming when the framework logs them (never an empty figure)", () => {
  const aligned = buildAligned([{ round: "R0", batches: [{ updates: [{ "train/loss": 1 }] }] }]);
  const d = fakeDisplay();
  showMismatchPanel(mismatchPanel(aligned), aligned.rounds, { display: d });
  assert.ok(d.calls.every(([mime]) => mime === "text/markdown"));
  assert.match(d.calls[0][1] as string, /^\*Train\/inference mismatch: nothing to show\.\* these slime runs log none of its declared mismatch keys/);
});
