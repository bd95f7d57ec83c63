/**
 * Parity with Python's tbparse on the same files: every event file of the fixtures (the makers' in
 * test/fixtures/tensorboard/ and the real runs' in test/fixtures/real-runs/) read by both, file by
 * file, and every scalar (tag, step, value) equal, with no scalar on one side only. tbparse reads each
 * file on its own and keeps every event, so the comparison is of each file's scalars before the
 * superseding rule. The peer runs in the TensorBoard tools' venv `.venv-tb`
 * (tools/tensorboard/requirements.txt); without it the test is skipped, saying so.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";

import { isEventFileName } from "../../lib/tensorboard/locate-event-files";
import { readEventFile } from "../../lib/tensorboard/read-event-file";

const REPO = path.resolve(__dirname, "../..");
const PYTHON = path.join(REPO, ".venv-tb/bin/python");
const DUMP = path.join(REPO, "tools/tensorboard/tbparse_dump.py");

function eventFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((f) => isEventFileName(path.basename(f)))
    .map((f) => path.join(dir, f))
    .sort();
}

function tbparseAvailable(): string | null {
  try {
    execFileSync(PYTHON, ["-c", "import tbparse"], { stdio: "ignore" });
    return null;
  } catch {
    return `tbparse not importable from ${path.relative(REPO, PYTHON)}: python3 -m venv .venv-tb && .venv-tb/bin/pip install -r tools/tensorboard/requirements.txt`;
  }
}

const key = (t: string, s: number, v: number) => `${t}\u0000${s}\u0000${Number.isNaN(v) ? "NaN" : String(v)}`;

const skip = tbparseAvailable();

test("every scalar of every fixture event file equals tbparse's, file by file", { skip: skip ?? false }, async () => {
  const files = [...eventFiles(path.join(REPO, "test/fixtures/tensorboard")), ...eventFiles(path.join(REPO, "test/fixtures/real-runs"))];
  assert.ok(files.length >= 25, `${files.length} event files`);
  const out = execFileSync(PYTHON, [DUMP, ...files], { encoding: "utf8", maxBuffer: 1 << 28, stdio: ["ignore", "pipe", "ignore"] });
  const peer = JSON.parse(out) as { files: Record<string, [string, number, number | string][]> };
  let compared = 0;
  for (const file of files) {
    const ours: string[] = [];
    await readEventFile(file, (ev) => {
      for (const s of ev.scalars) ours.push(key(s.tag, ev.step, s.value));
    });
    const theirs = peer.files[file].map(([t, s, v]) => key(t, s, typeof v === "number" ? v : Number(v)));
    assert.deepEqual(ours.slice().sort(), theirs.slice().sort(), path.relative(REPO, file));
    compared += ours.length;
  }
  assert.ok(compared > 3000, `${compared} scalars compared`);
});
