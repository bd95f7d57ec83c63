import assert from "node:assert/strict";
import { test } from "node:test";

import { cliReporter, WarningCap } from "../../scripts/cli-reporter";

/** The lines written to stderr while `f` runs. */
function stderrOf(f: () => void): string[] {
  const lines: string[] = [];
  const write = process.stderr.write;
  process.stderr.write = ((chunk: string) => {
    lines.push(
      ...String(chunk)
        .split("\n")
        .filter((l) => l !== ""),
    );
    return true;
  }) as typeof process.stderr.write;
  try {
    f();
  } finally {
    process.stderr.write = write;
  }
  return lines;
}

const nan = (run: string, step: number, key: string) =>
  `run ${run} train/step ${step} (update ${step - 1}, _step ${3 * step}): ${key} is NaN; excluded from means`;

test("WarningCap: the first max are printed, the rest counted by what they say after the place, most frequent first", () => {
  const cap = new WarningCap(2, "see health.csv");
  const printed = [nan("a", 1, "k1"), nan("a", 2, "k1"), nan("b", 3, "k2"), nan("a", 4, "k1"), nan("b", 5, "k2"), nan("c", 6, "k2")].map((m) => cap.take(m));
  assert.deepEqual(printed, [true, true, false, false, false, false]);
  assert.equal(
    cap.summary(),
    '4 more warning(s) not printed (6 in all): 3 x "k2 is NaN; excluded from means", 1 x "k1 is NaN; excluded from means"; see health.csv',
  );
});

test("WarningCap: nothing omitted, no closing line; beyond five kinds the others are counted together; a bad maximum is refused", () => {
  const few = new WarningCap(3);
  for (const m of ["a", "b", "c"]) assert.equal(few.take(m), true);
  assert.equal(few.summary(), null);
  const many = new WarningCap(0);
  for (let k = 0; k < 7; k++) for (let r = 0; r <= k; r++) many.take(`run r: key${k} is Infinity`);
  assert.equal(
    many.summary(),
    '28 more warning(s) not printed (28 in all): 7 x "key6 is Infinity", 6 x "key5 is Infinity", 5 x "key4 is Infinity", 4 x "key3 is Infinity", 3 x "key2 is Infinity", 3 of 2 other kind(s)',
  );
  assert.throws(() => new WarningCap(-1), { message: "invalid maxWarnings: -1 (an integer >= 0)" });
  assert.throws(() => new WarningCap(1.5), { message: "invalid maxWarnings: 1.5 (an integer >= 0)" });
});

test("cliReporter off a terminal: 20 warnings printed, then one closing line at stop (once, however often stop is called); notes always printed", () => {
  const lines = stderrOf(() => {
    const { reporter, stop } = cliReporter({ tty: false, omittedHint: "all in health.csv" });
    for (let s = 1; s <= 989; s++) reporter.warn?.(nan("r0", s, "train/grad_norm"));
    reporter.info?.("a note");
    stop();
    stop();
  });
  assert.equal(lines.length, 22);
  assert.equal(lines[0], `warning: ${nan("r0", 1, "train/grad_norm")}`);
  assert.equal(lines[19], `warning: ${nan("r0", 20, "train/grad_norm")}`);
  assert.equal(lines[20], "a note");
  assert.equal(lines[21], 'warning: 969 more warning(s) not printed (989 in all): 969 x "train/grad_norm is NaN; excluded from means"; all in health.csv');
});

test("cliReporter with few warnings prints each and no closing line", () => {
  const lines = stderrOf(() => {
    const { reporter, stop } = cliReporter({ tty: false, maxWarnings: 3 });
    reporter.warn?.("one");
    reporter.warn?.("two");
    stop();
  });
  assert.deepEqual(lines, ["warning: one", "warning: two"]);
});
