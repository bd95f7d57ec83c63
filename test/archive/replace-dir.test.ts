import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, test } from "node:test";

import { archiveSiblings, checkArchiveDir, lockArchiveDir, replaceDirAtomically, type SpareCopy } from "../../lib/archive/replace-dir";

const root = fs.mkdtempSync(path.join(os.tmpdir(), "replace-dir-"));
after(() => fs.rmSync(root, { recursive: true, force: true }));
let n = 0;
const fresh = () => path.join(root, `c${n++}`, "archive");

async function fillWith(dir: string, text: string): Promise<void> {
  fs.mkdirSync(path.join(dir, "history"));
  fs.writeFileSync(path.join(dir, "manifest.json"), text);
}

test("sibling names sit beside the target", () => {
  assert.deepEqual(archiveSiblings("/data/archive"), {
    parent: "/data",
    lock: "/data/.archive.lock",
    tmpPrefix: "/data/.archive.tmp-",
    oldPrefix: "/data/.archive.old-",
    sparePrefix: "/data/.archive.spare-",
  });
});

test("creates, then replaces; the fill sees an empty temp folder beside the target", async () => {
  const dir = fresh();
  await replaceDirAtomically(dir, async (tmp) => {
    assert.equal(path.dirname(tmp), path.dirname(dir));
    assert.deepEqual(fs.readdirSync(tmp), []);
    await fillWith(tmp, "one");
  });
  await replaceDirAtomically(dir, (tmp) => fillWith(tmp, "two"));
  assert.equal(fs.readFileSync(path.join(dir, "manifest.json"), "utf8"), "two");
  assert.deepEqual(fs.readdirSync(path.dirname(dir)), ["archive"]);
});

test("a failing fill leaves the target untouched and cleans up", async () => {
  const dir = fresh();
  await replaceDirAtomically(dir, (tmp) => fillWith(tmp, "keep"));
  await assert.rejects(
    replaceDirAtomically(dir, async (tmp) => {
      await fillWith(tmp, "lost");
      throw new Error("fetch failed");
    }),
    /^Error: fetch failed$/,
  );
  assert.equal(fs.readFileSync(path.join(dir, "manifest.json"), "utf8"), "keep");
  assert.deepEqual(fs.readdirSync(path.dirname(dir)), ["archive"]);
});

test("with a spare: the replaced archive is kept as the spare and the next fill starts from it; a writer without it removes it; a failed fill loses it, never the archive", async () => {
  const dir = fresh();
  const spare: SpareCopy = { dir: null };
  await replaceDirAtomically(dir, (tmp) => fillWith(tmp, "one"), {}, spare);
  assert.equal(spare.dir, null, "nothing was replaced, so nothing is kept");
  await replaceDirAtomically(dir, (tmp) => fillWith(tmp, "two"), {}, spare);
  assert.ok((spare.dir as string | null)?.startsWith(archiveSiblings(dir).sparePrefix));
  assert.equal(fs.readFileSync(path.join(spare.dir!, "manifest.json"), "utf8"), "one", "the spare is the archive before the swap");
  const seen: [string, boolean][] = [];
  await replaceDirAtomically(
    dir,
    async (tmp, recycled) => {
      seen.push([fs.readFileSync(path.join(tmp, "manifest.json"), "utf8"), recycled]);
      fs.writeFileSync(path.join(tmp, "manifest.json"), "three");
    },
    {},
    spare,
  );
  assert.deepEqual(seen, [["one", true]]);
  assert.equal(fs.readFileSync(path.join(spare.dir!, "manifest.json"), "utf8"), "two");
  await assert.rejects(
    replaceDirAtomically(
      dir,
      async () => {
        throw new Error("poll failed");
      },
      {},
      spare,
    ),
    /poll failed/,
  );
  assert.equal(spare.dir, null);
  assert.equal(fs.readFileSync(path.join(dir, "manifest.json"), "utf8"), "three");
  assert.deepEqual(fs.readdirSync(path.dirname(dir)), ["archive"], "the spare went with the failed fill");
  await replaceDirAtomically(dir, (tmp) => fillWith(tmp, "four"), {}, spare);
  assert.equal(fs.readdirSync(path.dirname(dir)).length, 2);
  await replaceDirAtomically(dir, async (tmp, recycled) => {
    assert.equal(recycled, false);
    assert.deepEqual(fs.readdirSync(tmp), []);
    await fillWith(tmp, "five");
  });
  assert.deepEqual(fs.readdirSync(path.dirname(dir)), ["archive"], "a writer that keeps no spare removes a spare left beside");
});

test("a held lock refuses a second writer and names the lock file", async () => {
  const dir = fresh();
  const lock = await lockArchiveDir(dir);
  await assert.rejects(
    replaceDirAtomically(dir, (tmp) => fillWith(tmp, "x")),
    (e: unknown) => (e as Error).message.startsWith(`archive ${path.resolve(dir)} is locked by another fetch (lock file ${lock.path}: {"pid":${process.pid},`),
  );
  await lock.release();
  await replaceDirAtomically(dir, (tmp) => fillWith(tmp, "after"));
  assert.equal(fs.readFileSync(path.join(dir, "manifest.json"), "utf8"), "after");
});

test("an interrupted swap (target gone, old copy left) is repaired before the next write", async () => {
  const dir = fresh();
  await replaceDirAtomically(dir, (tmp) => fillWith(tmp, "old"));
  const { oldPrefix, tmpPrefix } = archiveSiblings(dir);
  fs.renameSync(dir, `${oldPrefix}abc`);
  fs.mkdirSync(`${tmpPrefix}zzz`);
  const warnings: string[] = [];
  await assert.rejects(
    replaceDirAtomically(
      dir,
      async () => {
        assert.equal(fs.readFileSync(path.join(dir, "manifest.json"), "utf8"), "old", "restored before the fill runs");
        throw new Error("stop");
      },
      { warn: (m) => warnings.push(m) },
    ),
    /stop/,
  );
  assert.deepEqual(warnings, [`restored archive ${path.resolve(dir)} from ${oldPrefix}abc, left by an interrupted fetch`]);
  assert.deepEqual(fs.readdirSync(path.dirname(dir)), ["archive"]);
});

test("checkArchiveDir accepts missing, empty and archive folders only", async () => {
  const dir = fresh();
  await checkArchiveDir(dir);
  fs.mkdirSync(dir, { recursive: true });
  await checkArchiveDir(dir);
  await fillWith(dir, "m");
  await checkArchiveDir(dir);
  fs.writeFileSync(path.join(dir, "notes.txt"), "");
  await assert.rejects(checkArchiveDir(dir), (e: unknown) => (e as Error).message.startsWith(`invalid outDir: ${dir} holds notes.txt,`));
  const file = path.join(root, "plain-file");
  fs.writeFileSync(file, "");
  await assert.rejects(checkArchiveDir(file), { message: `invalid outDir: ${file} is not a folder` });
});

test("a lock left by a killed fetch on this machine is taken over with a warning; others are respected", async () => {
  const dir = fresh();
  const { lock } = archiveSiblings(dir);
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  const child = spawnSync(process.execPath, ["-e", ""]);
  const deadPid = child.pid!;
  fs.writeFileSync(lock, JSON.stringify({ pid: deadPid, host: os.hostname(), startedAt: "2024-01-01T00:00:00.000Z" }) + "\n");
  const warnings: string[] = [];
  await replaceDirAtomically(dir, (tmp) => fillWith(tmp, "taken"), { warn: (m) => warnings.push(m) });
  assert.deepEqual(warnings, [`removed stale lock ${lock} of fetch pid ${deadPid}, which no longer runs`]);
  assert.equal(fs.existsSync(lock), false);
  fs.writeFileSync(lock, JSON.stringify({ pid: deadPid, host: "another-machine", startedAt: "x" }) + "\n");
  await assert.rejects(
    replaceDirAtomically(dir, (tmp) => fillWith(tmp, "no")),
    /is locked by another fetch/,
  );
  fs.writeFileSync(lock, JSON.stringify({ pid: process.pid, host: os.hostname(), startedAt: "x" }) + "\n");
  await assert.rejects(
    replaceDirAtomically(dir, (tmp) => fillWith(tmp, "no")),
    /is locked by another fetch/,
  );
  fs.rmSync(lock);
  assert.equal(fs.readFileSync(path.join(dir, "manifest.json"), "utf8"), "taken");
});

test("racing lock attempts: one wins, every other is refused naming the holder (the lock appears with its content: hard-linked)", async () => {
  for (let round = 0; round < 40; round++) {
    const target = path.join(root, `race${round}`, "archive");
    const attempts = await Promise.allSettled(Array.from({ length: 8 }, () => lockArchiveDir(target)));
    const won = attempts.filter((a) => a.status === "fulfilled");
    assert.equal(won.length, 1, `round ${round}: exactly one lock`);
    for (const a of attempts) {
      if (a.status === "rejected")
        assert.match(String((a.reason as Error).message), /is locked by another fetch \(lock file .*: \{"pid":\d+,/, `round ${round}`);
    }
    await (won[0] as PromiseFulfilledResult<Awaited<ReturnType<typeof lockArchiveDir>>>).value.release();
    assert.deepEqual(fs.readdirSync(path.dirname(target)), [], `round ${round}: no lock or temp file left`);
  }
});
