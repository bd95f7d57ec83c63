import { test } from "node:test";
import assert from "node:assert/strict";
import { escapeMarkdown, metricNoteMarkdown, showNote } from "../../lib/display/metric-note";
import { SLIME_SPECS as METRICS } from "../fixtures/metric-keys";
import { SLIME_PROFILE } from "../../lib/registry/profile-slime";
import { fakeDisplay } from "./fake-display";

test("note from the schema: what it is / what it is not", () => {
  assert.equal(
    metricNoteMarkdown(METRICS.clipfrac),
    [
      "**clip fraction** (`train/pg_clipfrac`, fraction of tokens; per-round means are taken over optimizer updates)",
      "",
      "- **What it is:** fraction of tokens where the clipped PPO surrogate is active.",
      "- **What it is not:** not a measure of how far the policy moved from the initial model.",
    ].join("\n"),
  );
});

test("markdown-active characters are escaped (| in a label, * and _ in texts)", () => {
  const md = metricNoteMarkdown(METRICS.logprobGap);
  assert.ok(md.startsWith("**\\|train - rollout log-prob\\|** (`train/train_rollout_logprob_abs_diff`"), md);
  assert.match(metricNoteMarkdown(METRICS.loss), /pg\\_loss - entropy\\_coef \\\* entropy\\_loss/);
  assert.match(metricNoteMarkdown(METRICS.actorTokPerS), /per-round means are taken over rollout batches/);
  assert.equal(escapeMarkdown("$5 <b> #1"), "\\$5 \\<b\\> \\#1");
});

test("showNote takes a spec or a key; an unknown key, or a key two frameworks mean differently without a profile, is an error", () => {
  const d = fakeDisplay();
  showNote("train/grad_norm", { display: d, profile: SLIME_PROFILE });
  showNote(METRICS.gradNorm, { display: d });
  assert.equal(d.calls.length, 2);
  assert.equal(d.calls[0][0], "text/markdown");
  assert.equal(d.calls[0][1], d.calls[1][1]);
  assert.throws(() => showNote("train/nope", { display: d }), {
    message: "unknown metric key: train/nope (no framework profile describes it; lib/registry/profile-*.ts)",
  });
  assert.throws(() => showNote("train/nope", { display: d, profile: SLIME_PROFILE }), {
    message: "unknown metric key: train/nope (the slime profile does not describe it; lib/registry/profile-*.ts)",
  });
  assert.throws(() => showNote("train/grad_norm", { display: d }), {
    message: "ambiguous metric key: train/grad_norm means different things in slime and TRL GRPOTrainer; pass the profile",
  });
  // A key only one profile describes needs none.
  showNote("actor/entropy", { display: d });
  assert.match(d.calls[2][1] as string, /^\*\*entropy\*\* \(`actor\/entropy`, nats\/token;/);
});
