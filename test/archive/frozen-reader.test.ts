/**
 * The WebAssembly frozen reader (lib/archive/frozen-reader.ts) against the JSON.parse reader
 * (readHistoryFile): the same rows, bit for bit, on every fixture archive and on numbers written every
 * way JSON allows; and on every line it is not sure of it must give the file up (null), so that the
 * JSON.parse reader accepts or refuses it with its own message.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, test } from "node:test";

import { readCanonicalHistory } from "../../lib/archive/frozen-reader";
import { loadArchive, readHistoryFile } from "../../lib/archive/load-archive";
import { parseManifest } from "../../lib/archive/manifest";
import type { HistoryRow, ManifestRun } from "../../lib/types";
import { type PackedViews, unpackViews, ValuesArena } from "../../lib/values/compact-values";
import { ValuesBuilder } from "../../lib/values/values-builder";
import { freezeFixtureInto } from "../real-runs/aligned-fixture";
import { makeArchive, rewriteWithHash } from "./make-archive";

const root = fs.mkdtempSync(path.join(os.tmpdir(), "frozen-reader-"));
after(() => fs.rmSync(root, { recursive: true, force: true }));
const REPO = path.resolve(__dirname, "../..");

async function readManifest(dir: string) {
  const file = path.join(dir, "manifest.json");
  return parseManifest(await fs.promises.readFile(file, "utf8"), file);
}

/** Each row as [key, bits of its value] pairs: NaN payloads and -0 compare exactly. */
function bitsOf(rows: readonly HistoryRow[]): [string, string][][] {
  const f = new Float64Array(1);
  const u = new BigUint64Array(f.buffer);
  return rows.map((row) => {
    const pairs: [string, string][] = [];
    for (const key in row) {
      f[0] = row[key];
      pairs.push([key, u[0].toString(16)]);
    }
    return pairs;
  });
}

const rowsOf = (packed: PackedViews): HistoryRow[] => unpackViews(packed, new Map());

/** Both readers on one file: the WebAssembly reader's packed rows (null when it gave up) and the JSON.parse reader's rows or error. */
async function bothReaders(file: string, run: ManifestRun): Promise<{ fast: PackedViews | null; slow: HistoryRow[] | Error }> {
  const fast = await readCanonicalHistory(file, run);
  const slow = await readHistoryFile(file, run, {}, new ValuesBuilder(new ValuesArena())).catch((e: Error) => e);
  return { fast, slow };
}

/** Asserts the WebAssembly reader read every file of the archive in `dir`, with the JSON.parse reader's rows. */
async function assertSameRows(dir: string): Promise<number> {
  const manifest = await readManifest(dir);
  let rows = 0;
  for (const run of manifest.runs) {
    const { fast, slow } = await bothReaders(path.join(dir, run.file), run);
    assert.ok(!(slow instanceof Error), `${dir} ${run.runId}: ${slow}`);
    assert.notEqual(fast, null, `${dir} ${run.runId}: the WebAssembly reader gave the file up`);
    assert.equal(fast!.own, true);
    assert.deepEqual(bitsOf(rowsOf(fast!)), bitsOf(slow as HistoryRow[]), `${dir} ${run.runId}`);
    rows += fast!.at.length;
  }
  return rows;
}

test("every bundled archive reads the same with both readers", async () => {
  const dirs = [path.join(REPO, "data/wandb"), ...fs.readdirSync(path.join(REPO, "data/compare")).map((d) => path.join(REPO, "data/compare", d))];
  let rows = 0;
  for (const dir of dirs) rows += await assertSameRows(dir);
  assert.ok(rows > 900, `only ${rows} rows`);
});

test("every real-run fixture, frozen, reads the same with both readers (resumed runs' step go-backs included)", async () => {
  const fixtures = path.join(REPO, "test/fixtures/real-runs");
  const cases = ["openrlhf", "trl", "verl"].flatMap((fw) => fs.readdirSync(path.join(fixtures, fw)).map((c) => [fw, c]));
  assert.ok(cases.length >= 25, `${cases.length} cases`);
  for (const [fw, c] of cases) {
    const dir = path.join(root, "fixtures", fw, c);
    await freezeFixtureInto(fw, c, dir);
    await assertSameRows(dir);
  }
});

/** Numbers in every form JSON allows, most not as JSON.stringify prints them. */
const NUMBER_TEXTS = [
  "0",
  "-0",
  "1",
  "-1",
  "0.1",
  "1e5",
  "1E5",
  "1e+5",
  "1e-5",
  "-1.5E-7",
  "123456789012345678901234567890",
  "9007199254740993",
  "0.1000000000000000055511151231257827",
  "2.2250738585072011e-308",
  "2.2250738585072012e-308",
  "4.9406564584124654e-324",
  "2.4703282292062327e-324",
  "2.4703282292062328e-324",
  "1.7976931348623157e308",
  "1.7976931348623158e308",
  "1e400",
  "-1e400",
  "1e-400",
  "0.30000000000000004",
  "100000000000000000000000",
  "1.00000000000000011102230246251565404236316680908203125",
  "0.000001",
  "1e21",
  "5e-324",
  "0e10",
  "-0.0e-0",
];

test("numbers written every way JSON allows read as JSON.parse reads them, to the bit", async () => {
  // Random doubles of every magnitude (JSON.stringify's text), and the hand-written forms above.
  const f = new Float64Array(1);
  const u = new Uint32Array(f.buffer);
  let seed = 12345;
  const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
  const texts = [...NUMBER_TEXTS];
  while (texts.length < 20_000) {
    u[0] = next();
    u[1] = next();
    if (Number.isFinite(f[0])) texts.push(JSON.stringify(f[0]));
  }
  const lines = [];
  for (let i = 0; i < texts.length; i += 7)
    lines.push(
      `{"_step":${i},${texts
        .slice(i, i + 7)
        .map((t, j) => `"k${j}":${t}`)
        .join(",")}}`,
    );
  const dir = path.join(root, "numbers");
  makeArchive(dir, [{ runId: "n", round: "R0", rows: lines.map((_, i) => ({ _step: i })) }]);
  rewriteWithHash(dir, "n", lines.join("\n") + "\n");
  assert.equal(await assertSameRows(dir), lines.length);
});

/** A seeded generator of 32-bit integers. */
function seeded(seed: number): () => number {
  return () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
}

/**
 * Key sequences that share prefixes, end where another goes on, hold the same keys in another order,
 * or a key that is another's with one more byte: the reader matches a line against the sequences it
 * met, key by key, and must switch between them or read the line afresh exactly where they part.
 * Twelve, more than the eight the reader keeps at hand.
 */
const SEQUENCES: readonly (readonly string[])[] = [
  ["_step", "a", "b"],
  ["_step", "a", "b", "c"],
  ["_step", "a"],
  ["_step", "b", "a"],
  ["_step", "ab", "b"],
  ["_step", "a", "bb"],
  ["_step"],
  ["_step", "rollout/x", "rollout/y", "rollout/z"],
  ["_step", "rollout/x", "rollout/y"],
  ["_step", "rollout/xy", "rollout/y"],
  ["_step", "train/loss", "train/grad_norm", "train/lr", "train/entropy", "a"],
  ["_step", "train/loss", "train/grad_norm", "train/lr", "train/entropy", "b"],
];

/** `n` canonical lines of SEQUENCES: runs of a repeated cycle (the order the reader predicts) broken by random picks. */
function sequenceLines(n: number, next: () => number): string[] {
  const values = ["0", "-0", "1.5", "-2e-7", "12345678901234567", "0.30000000000000004", '"NaN"', '"Infinity"', '"-Infinity"'];
  const cycle = [1, 7, 10, 10, 8];
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    const keys = next() % 3 === 0 ? SEQUENCES[next() % SEQUENCES.length] : SEQUENCES[cycle[i % cycle.length]];
    lines.push(`{${keys.map((k) => `"${k}":${k === "_step" ? i : values[next() % values.length]}`).join(",")}}`);
  }
  return lines;
}

test("lines of many key sequences that share prefixes read as JSON.parse reads them, in any order", async () => {
  const next = seeded(7);
  const lines = sequenceLines(3000, next);
  const dir = path.join(root, "sequences");
  makeArchive(dir, [{ runId: "s", round: "R0", rows: lines.map((_, i) => ({ _step: i })) }]);
  rewriteWithHash(dir, "s", lines.join("\n") + "\n");
  assert.equal(await assertSameRows(dir), lines.length);
});

test("a line that parts from a known key sequence anywhere is read afresh: accepted as JSON.parse accepts it, or given up", async () => {
  // Each change made to one line after the reader has met every sequence many times.
  const changes: [string, (line: string) => string, "read" | "given up"][] = [
    ["one key more at the end", (l) => l.replace(/}$/, ',"zz":1}'), "read"],
    ["the last key dropped", (l) => l.replace(/,"[^"]*":[^,]*}$/, "}"), "read"],
    ["a key one byte longer", (l) => l.replace('"b":', '"bz":'), "read"],
    ["a key one byte shorter", (l) => l.replace('"rollout/y":', '"rollout/":'), "read"],
    ["only the first key", (l) => l.replace(/,.*}$/, "}"), "read"],
    ["a trailing comma", (l) => l.replace(/}$/, ",}"), "given up"],
    ["a space after a known key", (l) => l.replace('"a":', '"a": '), "given up"],
    ["a known key not closed", (l) => l.replace('"a":', '"a:'), "given up"],
    ["a known key followed by another separator", (l) => l.replace('"a":', '"a";'), "given up"],
    ["a value that is not a number", (l) => l.replace(/"a":[^,}]*/, '"a":true'), "given up"],
    ["a repeated key", (l) => l.replace(/}$/, ',"_step":0}'), "given up"],
    ["text after the brace", (l) => `${l} `, "given up"],
  ];
  const next = seeded(11);
  for (const [i, [what, change, expected]] of changes.entries()) {
    const lines = sequenceLines(400, next);
    // A line of a sequence with "a", "b" and "rollout/y" as the change needs them.
    const at = 300 + lines.slice(300).findIndex((l) => l.includes('"a":') && l.includes('"b":'));
    lines[at] = change(lines[at]);
    const y = 301 + lines.slice(301).findIndex((l) => l.includes('"rollout/y":'));
    if (what === "a key one byte shorter") lines[y] = change(lines[y]);
    const dir = path.join(root, `parted-${i}`);
    makeArchive(dir, [{ runId: "p", round: "R0", rows: lines.map((_, j) => ({ _step: j })) }]);
    rewriteWithHash(dir, "p", lines.join("\n") + "\n");
    const [run] = (await readManifest(dir)).runs;
    const { fast, slow } = await bothReaders(path.join(dir, run.file), run);
    if (expected === "read") {
      assert.ok(!(slow instanceof Error), `${what}: ${slow}`);
      assert.notEqual(fast, null, `${what}: given up`);
      assert.deepEqual(bitsOf(rowsOf(fast!)), bitsOf(slow), what);
    } else assert.equal(fast, null, what);
  }
});

test("two known lines run together on one line are given up, though the manifest counts both rows", async () => {
  const lines = sequenceLines(50, seeded(3));
  const joined = [...lines.slice(0, 40), `${lines[40]}x${lines[41]}`, ...lines.slice(42)];
  const dir = path.join(root, "joined");
  makeArchive(dir, [{ runId: "j", round: "R0", rows: lines.map((_, i) => ({ _step: i })) }]);
  rewriteWithHash(dir, "j", joined.join("\n") + "\n");
  const [run] = (await readManifest(dir)).runs;
  const { fast, slow } = await bothReaders(path.join(dir, run.file), run);
  assert.equal(fast, null);
  assert.match((slow as Error).message, /line 41: not valid JSON/);
});

/** A run of one line read by both readers (the manifest counts one row). */
async function readLine(text: string, name: string, rows = 1): Promise<{ fast: PackedViews | null; slow: HistoryRow[] | Error }> {
  const dir = path.join(root, name);
  makeArchive(dir, [{ runId: "x", round: "R0", rows: Array.from({ length: rows }, (_, i) => ({ _step: i })) }]);
  rewriteWithHash(dir, "x", text);
  const [run] = (await readManifest(dir)).runs;
  return bothReaders(path.join(dir, run.file), run);
}

test("lines JSON.parse reads but the WebAssembly reader is not sure of are left to JSON.parse, which reads them", async () => {
  const cases: [string, string][] = [
    ["whitespace", '{"_step": 0, "a": 1}\n'],
    ["escaped key", '{"_step":0,"a\\u0062":1}\n'],
    ["array-index key (V8 puts it first)", '{"0":2,"_step":0}\n'],
    ["__proto__ key", '{"__proto__":2,"_step":0}\n'],
    ["repeated key (JSON.parse keeps the last)", '{"_step":0,"a":1,"a":2}\n'],
  ];
  for (const [what, text] of cases) {
    const { fast, slow } = await readLine(text, `accepted-${cases.findIndex((c) => c[0] === what)}`);
    assert.equal(fast, null, what);
    assert.ok(!(slow instanceof Error), `${what}: ${slow}`);
    assert.equal(slow.length, 1, what);
  }
});

test("lines no reader accepts are given up, and the JSON.parse reader's message names them", async () => {
  const cases: [string, string, RegExp][] = [
    ["not numeric", '{"_step":0,"a":true}\n', /line 1 key "a": key "a" is not numeric: true/],
    ["an unknown marker", '{"_step":0,"a":"nan"}\n', /line 1 key "a": key "a" is not numeric: "nan"/],
    ["no _step", '{"a":1}\n', /line 1 key "_step": missing or not an integer/],
    ["fractional _step", '{"_step":0.5}\n', /line 1 key "_step": missing or not an integer/],
    ["truncated line", '{"_step":0,"a":1\n', /line 1: not valid JSON/],
    ["no final newline", '{"_step":0}', /line 1: truncated \(the file does not end with a newline\)/],
    ["a leading zero", '{"_step":0,"a":01}\n', /line 1: not valid JSON/],
    ["a bare dot", '{"_step":0,"a":1.}\n', /line 1: not valid JSON/],
    ["a control character in a key", '{"_step":0,"a\tb":1}\n', /line 1: not valid JSON/],
  ];
  for (const [i, [what, text, message]] of cases.entries()) {
    const { fast, slow } = await readLine(text, `refused-${i}`);
    assert.equal(fast, null, what);
    assert.ok(slow instanceof Error, what);
    assert.match(slow.message, message, what);
  }
  const back = await readLine('{"_step":1}\n{"_step":0}\n', "refused-back", 2);
  assert.equal(back.fast, null);
  assert.match((back.slow as Error).message, /line 2: _step 0 does not increase \(previous 1\)/);
});

test("a file whose hash, size or row count is not the manifest's is given up, and loadArchive still refuses it by name", async () => {
  const dir = path.join(root, "changed");
  makeArchive(dir, [
    {
      runId: "c",
      round: "R0",
      rows: [
        { _step: 0, a: 1 },
        { _step: 1, a: 2 },
      ],
    },
  ]);
  const [run] = (await readManifest(dir)).runs;
  const file = path.join(dir, run.file);
  assert.notEqual(await readCanonicalHistory(file, run), null);
  for (const changed of [
    { ...run, sha256: "0".repeat(64) },
    { ...run, bytes: run.bytes + 1 },
    { ...run, historyEvents: 3 },
  ]) {
    assert.equal(await readCanonicalHistory(file, changed), null);
  }
  assert.equal(await readCanonicalHistory(path.join(dir, "history/none.jsonl"), run), null);
  fs.appendFileSync(file, '{"_step":2,"a":3}\n');
  // The WebAssembly reader counts all 3 rows before it finds the file changed; the JSON.parse reader's
  // count from 0 is not shown, so the bar never goes back.
  const shown: number[] = [];
  await assert.rejects(loadArchive(dir, { progress: (_task, done) => shown.push(done) }, { compact: true, worker: false }), /sha256 mismatch/);
  assert.equal(Math.max(...shown), 3);
  assert.deepEqual(
    shown.filter((x, i) => i > 0 && x < shown[i - 1]),
    [],
    `progress went back: ${shown.join(", ")}`,
  );
});

test("loadArchive in compact mode, here and on its workers, gives the plain mode's rows and progress ends at every row", async () => {
  for (const worker of [false, "all"] as const) {
    const progress = new Map<string, number>();
    const compact = await loadArchive(path.join(REPO, "data/wandb"), { progress: (task, done) => progress.set(task, done) }, { compact: true, worker });
    const plain = await loadArchive(path.join(REPO, "data/wandb"));
    for (const [i, run] of compact.runs.entries()) {
      assert.deepEqual(bitsOf(run.rows), bitsOf(plain.runs[i].rows), `${worker} ${run.runId}`);
      assert.equal(progress.get(`load ${run.runId}`), run.rows.length);
    }
  }
});

test("a file the WebAssembly reader gives up is read by the JSON.parse reader on the load workers too: the plain mode's rows; a refused one still names its line", async () => {
  const dir = path.join(root, "mixed");
  makeArchive(dir, [
    {
      runId: "m0",
      round: "R0",
      rows: [
        { _step: 0, a: 1 },
        { _step: 1, a: 2 },
      ],
    },
    { runId: "m1", round: "R1", rows: [{ _step: 0, b: 3 }] },
  ]);
  // m1 with whitespace: JSON, not the canonical form.
  rewriteWithHash(dir, "m1", '{"_step": 0, "b": 3}\n');
  const [, m1] = (await readManifest(dir)).runs;
  assert.equal(await readCanonicalHistory(path.join(dir, m1.file), m1), null);
  const plain = await loadArchive(dir);
  for (const worker of [false, "all"] as const) {
    const compact = await loadArchive(dir, {}, { compact: true, worker });
    assert.deepEqual(
      compact.runs.map((r) => bitsOf(r.rows)),
      plain.runs.map((r) => bitsOf(r.rows)),
      `worker ${worker}`,
    );
  }
  rewriteWithHash(dir, "m1", '{"_step": 0, "b": true}\n');
  for (const worker of [false, "all"] as const) {
    await assert.rejects(loadArchive(dir, {}, { compact: true, worker }), /m1\.jsonl line 1 key "b": key "b" is not numeric: true/, `worker ${worker}`);
  }
});
