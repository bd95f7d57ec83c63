/**
 * Every health rule rendered for every framework profile (with the default parameters) reads as a
 * sentence: no empty placeholder such as `|train/step_time - ()|`, no undefined or null.
 */
import assert from "node:assert/strict";
import { test } from "node:test";

import { HEALTH_CHECKS } from "../../lib/health/health-checks";
import { defaultHealthParams } from "../../lib/health/health-params";
import { PROFILES } from "../../lib/registry/profiles";

/** What a placeholder filled with nothing leaves behind. */
const EMPTY = [/\(\s*\)/, /\(\s*\+/, /\+\s*\)/, /\[\s*\]/, /undefined/, /\bnull\b/, /,\s*\)/, /\(\s*,/, /\s{2,}/, /""/];

for (const profile of PROFILES) {
  test(`${profile.name}: every health rule is rendered without an empty placeholder`, () => {
    const params = defaultHealthParams();
    for (const check of HEALTH_CHECKS) {
      const rule = check.rule(params[check.name] ?? {}, profile);
      assert.ok(rule.trim().length > 0, `${check.name}: empty rule`);
      for (const bad of EMPTY) assert.doesNotMatch(rule, bad, `${profile.name} ${check.name}: ${rule}`);
    }
  });
}

test("step_time_mismatch names the parts it adds where the profile declares them (slime)", () => {
  const slime = PROFILES.find((p) => p.name === "slime")!;
  const check = HEALTH_CHECKS.find((c) => c.name === "step_time_mismatch")!;
  const rule = check.rule(defaultHealthParams().step_time_mismatch, slime);
  assert.match(rule, /^\|perf\/step_time - \(perf\/train_wait_time \+ perf\/train_time\)\| > max\(0\.01 x perf\/step_time, 0\.05 s\)/);
});
