/**
 * The one parser of frozen history lines (lib/archive/history-lines.ts), as the whole-file load and
 * the follow's reader from an offset use it: chunks split anywhere, a resume from a position equal to
 * one pass, the `_step` rule with its go-backs, a torn end, and the 64 MiB line cap.
 */
import assert from "node:assert/strict";
import { test } from "node:test";

import { HistoryLineParser, MAX_LINE_CHARS } from "../../lib/archive/history-lines";
import type { HistoryRow, ManifestRun } from "../../lib/types";

const RUN = { runId: "abc", resumedIn: undefined } as unknown as ManifestRun;
const TEXT = '{"_step":0,"a":1}\n{"_step":1,"a":"NaN"}\n{"_step":2,"a":3.5}\n';

test("chunks split anywhere parse as one pass; a resume from the position continues it", () => {
  const whole: HistoryRow[] = [];
  const one = new HistoryLineParser(RUN, whole, null);
  assert.equal(one.write(Buffer.from(TEXT)), null);
  assert.equal(one.end(), null);
  assert.deepEqual(whole, [
    { _step: 0, a: 1 },
    { _step: 1, a: Number.NaN },
    { _step: 2, a: 3.5 },
  ]);
  const bytes = Buffer.from(TEXT);
  const cut = TEXT.indexOf("\n") + 1;
  const first: HistoryRow[] = [];
  const p = new HistoryLineParser(RUN, first, null);
  assert.equal(p.write(bytes.subarray(0, 5)), null);
  assert.equal(p.write(bytes.subarray(5, cut)), null);
  assert.deepEqual(p.position(), { lineNo: 1, lastStep: 0, goBacks: 0 });
  const rest = first.slice();
  const resumed = new HistoryLineParser(RUN, rest, null, p.position());
  assert.equal(resumed.write(bytes.subarray(cut)), null);
  assert.equal(resumed.end(), null);
  assert.deepEqual(rest, whole);
});

test("_step must increase, except once per later log; problems name the line", () => {
  const again = new HistoryLineParser(RUN, [], null);
  assert.equal(again.write(Buffer.from('{"_step":3}\n{"_step":3}\n')), "line 2: _step 3 does not increase (previous 3)");
  const resumedRun = { runId: "abc", resumedIn: [{}] } as unknown as ManifestRun;
  const rows: HistoryRow[] = [];
  const once = new HistoryLineParser(resumedRun, rows, null);
  assert.equal(once.write(Buffer.from('{"_step":3}\n{"_step":1}\n')), null);
  assert.equal(
    once.write(Buffer.from('{"_step":0}\n')),
    "line 3: _step 0 does not increase (previous 1) (run abc: its 1 later log(s) may each go back once, 1 already did)",
  );
  assert.equal(rows.length, 2);
  assert.equal(new HistoryLineParser(RUN, [], null).write(Buffer.from('{"a":1}\n')), 'line 1 key "_step": missing or not an integer');
  const torn = new HistoryLineParser(RUN, [], null);
  assert.equal(torn.write(Buffer.from('{"_step":0}\n{"_st')), null);
  assert.equal(torn.end(), "line 2: truncated (the file does not end with a newline)");
});

test("a line longer than 64 MiB is refused as soon as the bytes without a newline pass the cap", () => {
  const p = new HistoryLineParser(RUN, [], null);
  assert.equal(p.write(Buffer.from('{"_step":0}\n')), null);
  assert.equal(p.write(Buffer.alloc(MAX_LINE_CHARS + 1, 0x20)), `line 2: longer than ${MAX_LINE_CHARS} characters`);
  assert.equal(p.end(), `line 2: longer than ${MAX_LINE_CHARS} characters`);
});
