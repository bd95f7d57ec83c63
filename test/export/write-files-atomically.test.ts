import { test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

import { writeFilesAtomically } from "../../lib/export/write-files-atomically";

function tempDir(t: { after: (fn: () => void) => void }): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "atomic-files-"));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test("writes every file, creates the folder, replaces old files, keeps others, leaves no temp folder", async (t) => {
  const out = path.join(tempDir(t), "exports");
  await writeFilesAtomically(out, [{ name: "a.csv", text: "old\n" }]);
  fs.writeFileSync(path.join(out, "other.txt"), "x");
  await writeFilesAtomically(out, [
    { name: "a.csv", text: "a\n1\n" },
    { name: "b.json", text: "{}\n" },
  ]);
  assert.deepEqual(fs.readdirSync(out).sort(), ["a.csv", "b.json", "other.txt"]);
  assert.equal(fs.readFileSync(path.join(out, "a.csv"), "utf8"), "a\n1\n");
  assert.equal(fs.readFileSync(path.join(out, "b.json"), "utf8"), "{}\n");
});

test("a failure part-way restores the files already replaced and removes the ones it added", async (t) => {
  const out = tempDir(t);
  fs.writeFileSync(path.join(out, "a.csv"), "old a\n");
  // c.csv cannot be replaced: a folder stands where the file goes.
  fs.mkdirSync(path.join(out, "c.csv"));
  await assert.rejects(
    writeFilesAtomically(out, [
      { name: "a.csv", text: "new a\n" },
      { name: "b.csv", text: "new b\n" },
      { name: "c.csv", text: "new c\n" },
    ]),
  );
  assert.equal(fs.readFileSync(path.join(out, "a.csv"), "utf8"), "old a\n", "a.csv restored");
  assert.equal(fs.existsSync(path.join(out, "b.csv")), false, "b.csv not left behind");
  assert.deepEqual(fs.readdirSync(out).sort(), ["a.csv", "c.csv"], "no temp folder left");
});

test("file names must be plain and distinct", async (t) => {
  const out = tempDir(t);
  for (const name of ["", "..", "sub/a.csv", "a\\b.csv"]) {
    await assert.rejects(writeFilesAtomically(out, [{ name, text: "" }]), { message: `invalid file name: ${JSON.stringify(name)}` });
  }
  await assert.rejects(writeFilesAtomically(out, [{ name: "a", text: "" }, { name: "a", text: "" }]), { message: 'invalid file name: "a" is given twice' });
  assert.deepEqual(fs.readdirSync(out), []);
});
