/**
 * Axis kinds are named by their shape and branched on in one place (lib/registry/profile-axis.ts):
 * a kind left out of a branch, or a new kind nobody handles, fails type-checking (the
 * `@ts-expect-error` lines below are errors the compiler must report: `npm run typecheck` fails if
 * one stops being an error); no module of lib/ compares `axis.kind` itself.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import * as path from "node:path";
import { test } from "node:test";

import type { ProfileAxis } from "../../lib/registry/framework-profile";
import {
  declaredStepKeys,
  onAxis,
  recordStepKey,
  stepAxisOf,
  unhandledAxis,
  updateStepKey,
  type AxisCases,
  type AxisCasesOf,
} from "../../lib/registry/profile-axis";
import { MILES_PROFILE } from "../../lib/registry/profile-miles";
import { SLIME_PROFILE } from "../../lib/registry/profile-slime";
import { TRL_PROFILE } from "../../lib/registry/profile-trl";
import { VERL_PROFILE } from "../../lib/registry/profile-verl";
import { PROFILE_NAMES, PROFILES } from "../../lib/registry/profiles";

const ROOT = path.resolve(__dirname, "../..");

/** An axis union with one kind more than today's, as a profile adding a third shape would make it. */
type WithEpisodes = ProfileAxis | { kind: "episodes"; episodeKey: string };

test("no axis kind is named after a framework", () => {
  for (const p of PROFILES) assert.ok(!(PROFILE_NAMES as readonly string[]).includes(p.axis.kind), `${p.name}: axis kind ${p.axis.kind}`);
  assert.deepEqual(
    PROFILES.map((p) => `${p.name}: ${p.axis.kind}`),
    ["slime: batch-updates", "miles: batch-updates", "verl: step", "openrlhf: step", "trl: step"],
  );
});

test("onAxis needs a case for every kind: one left out is a type error", () => {
  // @ts-expect-error: the step kind has no case
  const partial: AxisCases<number> = { "batch-updates": () => 1 };
  assert.equal(typeof partial["batch-updates"], "function");
  // @ts-expect-error: a third kind would need its case in every onAxis call
  const two: AxisCasesOf<WithEpisodes, number> = { "batch-updates": () => 1, step: () => 2 };
  assert.equal(Object.keys(two).length, 2);
});

test("a new axis kind reaches the never-check of an exhaustive switch until a case handles it", () => {
  function keyOf(axis: WithEpisodes): string {
    switch (axis.kind) {
      case "batch-updates":
        return axis.keys.rollout;
      case "step":
        return axis.stepKey;
      default:
        // @ts-expect-error: "episodes" is not never here
        return unhandledAxis(axis);
    }
  }
  assert.equal(keyOf(SLIME_PROFILE.axis), "rollout/step");
  assert.throws(() => keyOf({ kind: "episodes", episodeKey: "e" }), /^Error: invalid axis: \{"kind":"episodes","episodeKey":"e"\}$/);
});

test("the step keys each profile declares: records, then updates where they are observable", () => {
  assert.deepEqual(declaredStepKeys(SLIME_PROFILE), ["rollout/step", "train/step"]);
  assert.deepEqual(declaredStepKeys(MILES_PROFILE), ["rollout/step", "train/step"]);
  assert.deepEqual(declaredStepKeys(VERL_PROFILE), ["training/global_step"]);
  assert.deepEqual(declaredStepKeys(TRL_PROFILE), ["train/global_step"]);
  assert.equal(recordStepKey(TRL_PROFILE), "train/global_step");
  assert.equal(updateStepKey(TRL_PROFILE), null);
  assert.equal(updateStepKey(SLIME_PROFILE), "train/step");
  assert.equal(stepAxisOf(SLIME_PROFILE), null);
  assert.equal(stepAxisOf(VERL_PROFILE)?.stepKey, "training/global_step");
  assert.equal(onAxis(SLIME_PROFILE.axis, { "batch-updates": (a) => a.keys.eval, step: (a) => a.stepKey }), "eval/step");
});

/** Every .ts file below `dir` (relative to the repository). */
function tsFiles(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir)).flatMap((name) => {
    const rel = path.join(dir, name);
    if (statSync(path.join(ROOT, rel)).isDirectory()) return tsFiles(rel);
    return rel.endsWith(".ts") ? [rel] : [];
  });
}

test("no module of lib/ but profile-axis.ts branches on axis.kind itself", () => {
  const own = path.join("lib", "registry", "profile-axis.ts");
  const found = tsFiles("lib")
    .filter((f) => f !== own)
    .flatMap((f) =>
      readFileSync(path.join(ROOT, f), "utf8")
        .split("\n")
        .flatMap((line, i) => (/axis\.kind\b|kind\s*[!=]==\s*"(step|batch-updates)"/.test(line) ? [`${f}:${i + 1}: ${line.trim()}`] : [])),
    );
  assert.deepEqual(found, []);
});
