import { test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

import { createHash } from "node:crypto";

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
  await assert.rejects(
    writeFilesAtomically(out, [
      { name: "a", text: "" },
      { name: "a", text: "" },
    ]),
    { message: 'invalid file name: "a" is given twice' },
  );
  assert.deepEqual(fs.readdirSync(out), []);
});

test("folders are written whole: old partitions do not survive; a failure restores the old folder and a removed file", async (t) => {
  const out = tempDir(t);
  const part = (round: string) => ({ name: `round=${round}/part-0.parquet`, text: "", bytes: new Uint8Array([1, 2, 3]) });
  await writeFilesAtomically(out, [{ name: "a.csv", text: "a\n" }], { folders: [{ name: "updates", files: [part("R0"), part("R1")] }] });
  assert.deepEqual(fs.readdirSync(path.join(out, "updates")).sort(), ["round=R0", "round=R1"]);
  assert.deepEqual([...fs.readFileSync(path.join(out, "updates", "round=R1", "part-0.parquet"))], [1, 2, 3], "bytes written as given");
  await writeFilesAtomically(out, [{ name: "a.csv", text: "a\n" }], { folders: [{ name: "updates", files: [part("R0")] }] });
  assert.deepEqual(fs.readdirSync(path.join(out, "updates")), ["round=R0"], "round R1 of the previous export is gone");

  fs.writeFileSync(path.join(out, "updates.parquet"), "old flat\n");
  // The last step fails (moving the new rollouts/ folder in): every step before it is rolled back.
  const rename = fs.promises.rename.bind(fs.promises);
  const failing = t.mock.method(fs.promises, "rename", async (from: fs.PathLike, to: fs.PathLike) => {
    if (String(to) === path.join(out, "rollouts")) throw new Error("disk full");
    return rename(from, to);
  });
  await assert.rejects(
    writeFilesAtomically(out, [{ name: "a.csv", text: "new\n" }], {
      folders: [
        { name: "updates", files: [part("R5")] },
        { name: "rollouts", files: [part("R9")] },
      ],
      remove: ["updates.parquet"],
    }),
    { message: "disk full" },
  );
  failing.mock.restore();
  assert.equal(fs.readFileSync(path.join(out, "a.csv"), "utf8"), "a\n", "a.csv restored");
  assert.deepEqual(fs.readdirSync(path.join(out, "updates")), ["round=R0"], "the old updates/ folder is back");
  assert.equal(fs.existsSync(path.join(out, "rollouts")), false, "the new folder is not left behind");
  assert.deepEqual(fs.readdirSync(out).sort(), ["a.csv", "updates", "updates.parquet"], "nothing else, no temp folder");

  await writeFilesAtomically(out, [{ name: "a.csv", text: "a\n" }], { remove: ["updates.parquet", "updates"] });
  assert.deepEqual(fs.readdirSync(out), ["a.csv"], "removed, no temp folder left");
  await assert.rejects(writeFilesAtomically(out, [], { folders: [{ name: "updates", files: [{ name: "../x", text: "" }] }] }), {
    message: 'invalid file name: "updates/../x"',
  });
});

test("chunked files are written in order, each told its sha256 and size; a later file may use an earlier one's", async (t) => {
  const out = tempDir(t);
  const told: Record<string, [string, number]> = {};
  await writeFilesAtomically(out, [
    {
      name: "a.csv",
      chunks: () => ["x,y\n", Buffer.from("1,2\n"), "é\n"],
      onWritten: (sha, bytes) => {
        told["a.csv"] = [sha, bytes];
      },
    },
    {
      name: "m.json",
      chunks: () => [`${JSON.stringify(told["a.csv"])}\n`],
      onWritten: (sha, bytes) => {
        told["m.json"] = [sha, bytes];
      },
    },
  ]);
  const a = fs.readFileSync(path.join(out, "a.csv"));
  assert.equal(a.toString("utf8"), "x,y\n1,2\né\n");
  assert.deepEqual(told["a.csv"], [createHash("sha256").update(a).digest("hex"), 11]);
  assert.equal(fs.readFileSync(path.join(out, "m.json"), "utf8"), `${JSON.stringify(told["a.csv"])}\n`);
  assert.equal(told["m.json"][1], fs.statSync(path.join(out, "m.json")).size);
});

test("a chunk source that throws part-way leaves the previous files as they were and nothing half written", async (t) => {
  const out = tempDir(t);
  fs.writeFileSync(path.join(out, "a.csv"), "old a\n");
  function* failing(): Generator<string> {
    yield "new a, first chunk\n";
    throw new Error("formatting failed at row 8193");
  }
  await assert.rejects(
    writeFilesAtomically(out, [
      { name: "a.csv", chunks: failing },
      { name: "b.csv", text: "b\n" },
    ]),
    {
      message: "formatting failed at row 8193",
    },
  );
  assert.equal(fs.readFileSync(path.join(out, "a.csv"), "utf8"), "old a\n");
  assert.deepEqual(fs.readdirSync(out), ["a.csv"], "no b.csv, no temp folder");
});

test("a concurrent file is written alongside the next ones, which wait for it before a non-concurrent file; a late failure of it still rolls back", async (t) => {
  const out = tempDir(t);
  const order: string[] = [];
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (release = resolve));
  async function* slow(): AsyncGenerator<Uint8Array> {
    yield Buffer.from("w1\n");
    await gate; // opened only by b.csv's chunks: a.csv must be in progress while b.csv is written
    yield Buffer.from("w2\n");
  }
  await writeFilesAtomically(out, [
    { name: "a.csv", concurrent: true, chunks: slow, onWritten: () => void order.push("a.csv") },
    {
      name: "b.csv",
      chunks: function* () {
        release();
        yield "b\n";
      },
      onWritten: () => void order.push("b.csv"),
    },
    { name: "m.json", chunks: () => [`${[...order].sort().join(",")}\n`] },
  ]);
  assert.equal(fs.readFileSync(path.join(out, "a.csv"), "utf8"), "w1\nw2\n");
  assert.equal(fs.readFileSync(path.join(out, "m.json"), "utf8"), "a.csv,b.csv\n", "m.json is written once both are");

  fs.writeFileSync(path.join(out, "a.csv"), "old a\n");
  async function* failing(): AsyncGenerator<Uint8Array> {
    yield Buffer.from("part\n");
    await new Promise((resolve) => setTimeout(resolve, 20));
    throw new Error("worker failed after 1 chunk(s)");
  }
  await assert.rejects(
    writeFilesAtomically(out, [
      { name: "a.csv", concurrent: true, chunks: failing },
      { name: "c.csv", text: "c\n" },
    ]),
    { message: "worker failed after 1 chunk(s)" },
  );
  assert.equal(fs.readFileSync(path.join(out, "a.csv"), "utf8"), "old a\n");
  assert.deepEqual(fs.readdirSync(out).sort(), ["a.csv", "b.csv", "m.json"], "no c.csv, no temp folder");
});
