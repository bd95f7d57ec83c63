/**
 * The hashing thread of a followed archive (lib/follow/file-hasher.ts) and the one streamed hash it
 * shares with the snapshot chain's check (hashFilePrefixes): digests equal node's sha256 of the same
 * bytes computed here, on its thread and on this one, for prefixes at, inside and past the file's
 * chunks, several in one pass; a missing file fails with its code, and the thread keeps serving after.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, test } from "node:test";

import { FileHasher, HashFileError } from "../../lib/follow/file-hasher";
import { hashFilePrefixes } from "../../lib/archive/snapshot-chain";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "file-hasher-"));
const hasher = new FileHasher();
after(async () => {
  await hasher.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex");

test("digests of the whole file and of its first bytes equal sha256 of the same bytes, on the thread and on this one", async () => {
  // 2.5 MB: more than two of the 1 MB chunks, so prefixes fall at, inside and past chunk ends.
  const bytes = Buffer.alloc(2.5 * (1 << 20));
  for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7919) % 251;
  const file = path.join(dir, "h.jsonl");
  fs.writeFileSync(file, bytes);
  for (const prefix of [0, 1, 1 << 20, (1 << 20) + 17, bytes.length, bytes.length + 1]) {
    const want = { bytes: bytes.length, sha256: sha(bytes), prefixes: [prefix <= bytes.length ? sha(bytes.subarray(0, prefix)) : null] };
    assert.deepEqual(await hasher.hash(file, prefix), want, `prefix ${prefix} on the thread`);
    assert.deepEqual(await hashFilePrefixes(file, [prefix]), want, `prefix ${prefix} on this thread`);
  }
  // Several boundaries in one pass, given in any order: each digest in the order asked.
  const asked = [(1 << 20) + 17, 0, bytes.length + 1, 1];
  assert.deepEqual((await hashFilePrefixes(file, asked)).prefixes, [
    sha(bytes.subarray(0, (1 << 20) + 17)),
    sha(bytes.subarray(0, 0)),
    null,
    sha(bytes.subarray(0, 1)),
  ]);
});

test("a missing file fails with ENOENT, and the thread hashes the next file", async () => {
  await assert.rejects(hasher.hash(path.join(dir, "none.jsonl"), 0), (e: unknown) => e instanceof HashFileError && e.code === "ENOENT");
  const file = path.join(dir, "after.jsonl");
  fs.writeFileSync(file, "x\n");
  assert.equal((await hasher.hash(file, 1)).sha256, sha(Buffer.from("x\n")));
});
