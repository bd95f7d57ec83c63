/**
 * slime local logs with garbage lines (binary noise, NUL bytes, invalid UTF-8, a 1 MB line, broken
 * and trailing-junk metric lines): the parse goes on, every metric-looking line that fails is a
 * counted warning naming file, line and run, other noise is skipped, and the cross-check of the
 * bundled sample log against its frozen W&B history still matches every parsed field exactly, while
 * its verdict names the malformed lines instead of saying "agree".
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { before, test } from "node:test";

import { loadArchive } from "../../lib/archive/load-archive";
import { alignRuns } from "../../lib/align/align-runs";
import { crossCheck } from "../../lib/local-logs/cross-check";
import { parseSlimeLogWithStats, type LocalLogRecord } from "../../lib/local-logs/parse-slime-log";
import type { AlignedRuns } from "../../lib/types";

const ROOT = path.resolve(__dirname, "../..");
const RUN = "sim-r1-kf63";
const FILE = `${RUN}.log`;
const CLEAN = fs.readFileSync(path.join(ROOT, "data", "local", FILE), "utf8");
let aligned: AlignedRuns;

before(async () => {
  aligned = alignRuns((await loadArchive(path.join(ROOT, "data", "wandb"))).runs);
});

/** Deterministic noise bytes (xorshift32), so that the test never depends on luck. */
function noiseBytes(length: number, seed: number): Buffer {
  const out = Buffer.alloc(length);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    out[i] = x & 0xff;
  }
  return out;
}

/** Records without their line numbers (garbage shifts the lines). */
const content = (records: LocalLogRecord[]) => records.map((r) => ({ kind: r.kind, id: r.id, values: r.values, skipped: r.skipped }));

function recorder() {
  const warns: string[] = [];
  const infos: string[] = [];
  return { warns, infos, reporter: { warn: (m: string) => void warns.push(m), info: (m: string) => void infos.push(m) } };
}

test("garbage lines between the metric lines: same records, each broken metric line a warning naming file, line and run", () => {
  const clean = parseSlimeLogWithStats(CLEAN, { runId: RUN, file: FILE });
  assert.equal(clean.stats.records, 100);

  const lines = CLEAN.split("\n");
  const noise: [number, string][] = [
    [0, noiseBytes(4096, 7).toString("latin1")], // binary noise (may even hold newlines)
    [5, "\u0000\u0000\u0000 NUL bytes \u0000"],
    [9, Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0x0a]).toString("utf8")], // invalid UTF-8, decoded with U+FFFD
    [20, "x".repeat(1 << 20)], // a 1 MB line
    [30, "(RolloutManager pid=1) [2026-01-12 10:16:36] rollout.py:1193 - perf 22: {'rollout/response_len/mean': 25"], // cut mid-dict
    [40, "step 44: {'train/loss': 0.1} and then some junk"], // text after the dict
    [50, "step: {'train/loss': 1}"], // no id: not a metric line
    [60, "\x1b[31mERROR\x1b[0m something broke: {'a': 1}"],
  ];
  // Insert from the last position backwards so that earlier positions stay valid.
  for (const [at, text] of noise.slice().sort((a, b) => b[0] - a[0])) lines.splice(at, 0, text);
  const dirty = lines.join("\n");
  const rec = recorder();
  const { records, stats, malformed } = parseSlimeLogWithStats(dirty, { runId: RUN, file: FILE, reporter: rec.reporter });

  assert.deepEqual(content(records), content(clean.records), "the same 100 records");
  assert.equal(stats.malformed, 2);
  assert.equal(stats.records, 100);
  assert.equal(rec.warns.length, 2);
  assert.match(rec.warns[0], new RegExp(`^${FILE}:\\d+: run ${RUN}: metric line "perf 22: \\{\\.\\.\\." not parsed: `));
  assert.match(
    rec.warns[1],
    new RegExp(`^${FILE}:\\d+: run ${RUN}: metric line "step 44: \\{\\.\\.\\." not parsed: unexpected text after the dict at column 29$`),
  );
  // The line numbers in the warnings are the lines of the garbage in the file.
  const lineOf = (w: string) => Number(/^[^:]+:(\d+):/.exec(w)![1]);
  const dirtyLines = dirty.split("\n");
  assert.match(dirtyLines[lineOf(rec.warns[0]) - 1], /perf 22: \{'rollout\/response_len\/mean': 25$/);
  assert.match(dirtyLines[lineOf(rec.warns[1]) - 1], /^step 44: /);
  assert.deepEqual(rec.infos, [`${FILE}: run ${RUN}: 100 metric record(s) from ${stats.lines} line(s), 2 malformed metric line(s) skipped`]);

  const check = crossCheck(aligned, { records: new Map([[RUN, records]]), stats: [{ runId: RUN, file: FILE, stats, malformed }] });
  assert.deepEqual([check.compared, check.exact, check.mismatches.length, check.unmatched.length], [1146, 1146, 0, 0]);
  assert.equal(check.agree, false, "never 'agree' while metric lines were malformed");
  assert.deepEqual(
    check.malformed.map((m) => m.message),
    ["perf 22", "step 44"],
  );
  assert.match(
    check.verdict,
    /^W&B and the local logs agree on the 100 parsed record\(s\) \(1146 field\(s\)\), but 2 metric line\(s\) were malformed and not compared: sim-r1-kf63\.log:\d+ \(perf 22: /,
  );
  const cleanCheck = crossCheck(aligned, { records: new Map([[RUN, clean.records]]), stats: [{ runId: RUN, file: FILE, stats: clean.stats }] });
  assert.deepEqual([cleanCheck.compared, cleanCheck.exact, cleanCheck.agree], [1146, 1146, true]);
});

test("a log that is nothing but binary noise: no records, no exception; the cross-check says it does not agree", () => {
  const rec = recorder();
  const text = Buffer.concat([noiseBytes(64 * 1024, 11), Buffer.from("\nstep 1: {'train/loss': \n")]).toString("latin1");
  const { records, stats } = parseSlimeLogWithStats(text, { runId: RUN, file: FILE, reporter: rec.reporter });
  assert.equal(records.length, 0);
  assert.equal(stats.malformed, 1, "only the metric-looking line counts as malformed");
  assert.equal(rec.warns.length, 1);
  assert.match(rec.warns[0], new RegExp(`^${FILE}:\\d+: run ${RUN}: metric line "step 1: \\{\\.\\.\\." not parsed: `));
  const check = crossCheck(aligned, { records: new Map([[RUN, records]]), stats: [{ runId: RUN, file: FILE, stats }] });
  assert.equal(check.agree, false, "nothing compared is not agreement");
  assert.equal(check.compared, 0);
});

test("more than 20 broken metric lines: 20 warnings and one count line, every one counted in the stats", () => {
  const broken = Array.from({ length: 30 }, (_, i) => `rollout ${i}: {'rollout/x': `).join("\n");
  const rec = recorder();
  const { stats } = parseSlimeLogWithStats(`${CLEAN}\n${broken}\n`, { runId: RUN, file: FILE, reporter: rec.reporter });
  assert.equal(stats.malformed, 30);
  assert.equal(stats.records, 100);
  assert.equal(rec.warns.length, 21);
  assert.equal(rec.warns[20], `${FILE}: run ${RUN}: 10 more malformed metric line(s) not shown`);
});
