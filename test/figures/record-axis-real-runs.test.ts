/**
 * Per-record figures of real TRL and verl runs (test/fixtures/real-runs/) name the framework's own
 * record and step key on the x axis and in the hover text, never slime's rollout batch.
 */
import assert from "node:assert/strict";
import { test } from "node:test";

import { mismatchPanel } from "../../lib/diagnostics/mismatch-panel";
import { conceptSeriesFigure } from "../../lib/figures/concept-series";
import { rolloutSeriesFigure } from "../../lib/figures/rollout-series";
import { alignedFixture } from "../real-runs/aligned-fixture";

for (const [framework, name, xTitle, record] of [
  ["trl", "grpo-log1", "logged step (train/global_step)", "logged step"],
  ["verl", "plain", "training step (training/global_step)", "training step"],
] as const) {
  test(`${framework} ${name}: the response-length figure's x axis and hover name the ${record} and its key`, async () => {
    const aligned = await alignedFixture(framework, name);
    const series = conceptSeriesFigure(aligned, "responseLen", { markZero: true });
    assert.ok("figure" in series, "absent" in series ? series.absent : "");
    const { layout, data } = series.figure;
    assert.equal((layout.xaxis!.title as { text: string }).text, xTitle);
    assert.equal(layout.title!.text, "mean response length per " + record);
    const hovers = (data as { hovertemplate?: string }[]).flatMap((t) => (t.hovertemplate === undefined ? [] : [t.hovertemplate]));
    assert.ok(hovers.length > 0);
    for (const h of hovers) {
      assert.ok(h.startsWith(`${record} %{x}<br>`), h);
      assert.doesNotMatch(h, /rollout/);
    }
    assert.doesNotMatch(JSON.stringify(layout), /rollout batch|rollout\/step/);
  });

  test(`${framework} ${name}: a key no record has is refused naming the ${record}`, async () => {
    const aligned = await alignedFixture(framework, name);
    assert.throws(() => rolloutSeriesFigure(aligned, "no/such_key"), { message: new RegExp(`^no ${record} has key no/such_key`) });
  });

  test(`${framework} ${name}: the mismatch panel's x title is the ${record} and its key`, async () => {
    assert.equal(mismatchPanel(await alignedFixture(framework, name)).xTitle, xTitle);
  });
}
