/**
 * The logging interval from frozen settings (lib/registry/logging-interval.ts), hand-computed: TRL's
 * rule is transformers' `global_step % logging_steps == 0` (and step 1 with logging_first_step); what
 * the settings do not pin down is never guessed.
 */
import assert from "node:assert/strict";
import { test } from "node:test";

import { expectedBetween, knownInterval } from "../../lib/registry/logging-interval";
import { TRL_PROFILE } from "../../lib/registry/profile-trl";
import type { RunFlags } from "../../lib/registry/semantic-flags";

const interval = TRL_PROFILE.axis.kind === "step" ? TRL_PROFILE.axis.interval : undefined;
const flags = (f: Record<string, number | string | boolean>): RunFlags =>
  Object.fromEntries(Object.entries(f).map(([k, value]) => [k, { value, source: "config" as const }]));

test("TRL's interval is logging_steps under the steps strategy; a fraction, another strategy or unknown flags give none", () => {
  assert.deepEqual(knownInterval(interval, flags({ logging_steps: 3, logging_strategy: "steps" })), {
    every: 3,
    firstStep: false,
    setting: "logging_steps = 3",
  });
  assert.deepEqual(knownInterval(interval, flags({ logging_steps: 10, logging_first_step: true })), {
    every: 10,
    firstStep: true,
    setting: "logging_steps = 10, logging_first_step = true",
  });
  // A float below 1 is a fraction of max_steps (not frozen); epoch logging has no step interval.
  assert.equal(knownInterval(interval, flags({ logging_steps: 0.1 })), null);
  assert.equal(knownInterval(interval, flags({ logging_steps: 3, logging_strategy: "epoch" })), null);
  assert.equal(knownInterval(interval, undefined), null, "flags unknown");
  assert.equal(knownInterval(interval, flags({ beta: 0 })), null, "no logging_steps in the config");
  assert.equal(knownInterval(undefined, flags({ logging_steps: 3 })), null, "a profile that declares no interval");
});

test("expected steps between two logged steps: the multiples strictly inside, step 1 with logging_first_step; a partial interval expects nothing", () => {
  const every3 = knownInterval(interval, flags({ logging_steps: 3 }))!;
  assert.equal(expectedBetween(every3, 3, 6), null);
  assert.equal(expectedBetween(every3, 15, 16), null, "the partial last interval");
  assert.deepEqual(expectedBetween(every3, 6, 12), { first: 9, last: 9, count: 1 });
  assert.deepEqual(expectedBetween(every3, 4, 16), { first: 6, last: 15, count: 4 });
  assert.deepEqual(expectedBetween(every3, 0, 7), { first: 3, last: 6, count: 2 });
  const first = knownInterval(interval, flags({ logging_steps: 10, logging_first_step: true }))!;
  assert.deepEqual(expectedBetween(first, 0, 20), { first: 1, last: 10, count: 2 });
  assert.equal(expectedBetween(first, 1, 10), null);
  const every1 = knownInterval(interval, flags({ logging_steps: 1, logging_first_step: true }))!;
  assert.deepEqual(expectedBetween(every1, 0, 3), { first: 1, last: 2, count: 2 }, "step 1 counted once");
});
