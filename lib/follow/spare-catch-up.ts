/**
 * A follow's next snapshot starts from the spare copy of the archive (lib/archive/replace-dir.ts
 * `SpareCopy`: the archive as of the snapshot before the last) instead of a full copy of the archive:
 * the spare is brought up to the last snapshot by writing only what that snapshot changed, so a poll
 * writes the bytes of two polls, not the whole archive (docs/follow.md, "Cost per poll").
 *
 * Nothing here re-reads a frozen byte to check it: as with a full copy, the follower appends with the
 * hash state it kept, and every reader (the follow's own analysis, an export, notebook 01) hashes
 * every byte against the manifest, so a spare changed on disk is refused where it is read.
 */
import { constants as fsc, promises as fsp } from "node:fs";
import * as path from "node:path";

import { HISTORY_DIR, MANIFEST_FILE, parseManifest, SNAPSHOTS_DIR } from "../archive/manifest";
import { sha256Hex } from "../archive/snapshot-chain";
import type { SourceManifest } from "../types";

const CHUNK_BYTES = 4 << 20;

/** Files of snapshots/ that never change once written: the numbered snapshots and the superseded lineages' files. */
const WRITTEN_ONCE = /^(\d{6}\.json|lineage-\d+-.+\.jsonl)$/;

/** Bytes written to bring a spare up to date: appended to files it had, and copied whole. */
export interface CatchUp {
  appended: number;
  copied: number;
}

/**
 * Makes `tmp` (a recycled spare) hold what `outDir` holds but its manifest, `last` being outDir's manifest. A history
 * file the last snapshot only extended (its `frozenBefore` is the spare's entry) gets the appended
 * bytes; a snapshot or superseded lineage file the spare has is kept (they never change once written); anything else is
 * copied whole and what outDir no longer has is removed. Returns null, having left `tmp` empty, when
 * the spare is not the snapshot just before `last` (its manifest's sha256 is not `last.previous`).
 */
export async function catchUpSpare(tmp: string, outDir: string, last: SourceManifest): Promise<CatchUp | null> {
  const text = await fsp.readFile(path.join(tmp, MANIFEST_FILE), "utf8").catch(() => null);
  if (text === null || last.previous !== sha256Hex(text)) {
    for (const name of await fsp.readdir(tmp)) await fsp.rm(path.join(tmp, name), { recursive: true, force: true });
    return null;
  }
  const spare = new Map(parseManifest(text, path.join(tmp, MANIFEST_FILE)).runs.map((r) => [r.file, r]));
  const extended = new Map<string, { from: number; to: number }>();
  for (const r of last.runs) {
    const had = spare.get(r.file);
    const fb = r.frozenBefore;
    if (had !== undefined && fb !== undefined && fb.bytes === had.bytes && fb.sha256 === had.sha256) extended.set(r.file, { from: had.bytes, to: r.bytes });
  }
  const done: CatchUp = { appended: 0, copied: 0 };
  for (const sub of [HISTORY_DIR, SNAPSHOTS_DIR]) await catchUpFolder(tmp, outDir, sub, extended, done);
  // The new snapshot writes its own manifest (and never over an existing file).
  await fsp.rm(path.join(tmp, MANIFEST_FILE));
  for (const r of last.runs) {
    const size = (await fsp.stat(path.join(tmp, r.file))).size;
    if (size !== r.bytes)
      throw new Error(`run ${r.runId}: the spare copy's ${r.file} has ${size} bytes after catching up, the archive ${r.bytes}; not appended to`);
  }
  return done;
}

/**
 * Copies the archive's history files and chain into `tmp` whole (a clone where the file system can):
 * where a follow's snapshot starts when there is no spare to catch up. The folders' walk of
 * catchUpSpare, with nothing to append or keep.
 */
export async function copyArchiveFiles(tmp: string, outDir: string): Promise<void> {
  const done: CatchUp = { appended: 0, copied: 0 };
  for (const sub of [HISTORY_DIR, SNAPSHOTS_DIR]) await catchUpFolder(tmp, outDir, sub, new Map(), done);
}

/** One folder of the archive: files appended to, kept, copied or removed (see catchUpSpare). */
async function catchUpFolder(
  tmp: string,
  outDir: string,
  sub: string,
  extended: ReadonlyMap<string, { from: number; to: number }>,
  done: CatchUp,
): Promise<void> {
  await fsp.mkdir(path.join(tmp, sub), { recursive: true });
  const want = await fsp.readdir(path.join(outDir, sub)).catch(() => [] as string[]);
  const have = new Set(await fsp.readdir(path.join(tmp, sub)));
  for (const name of have) if (!want.includes(name)) await fsp.rm(path.join(tmp, sub, name), { recursive: true, force: true });
  for (const name of want) {
    const rel = `${sub}/${name}`;
    const from = path.join(outDir, rel);
    const to = path.join(tmp, rel);
    const size = have.has(name) ? (await fsp.stat(to)).size : -1;
    const range = extended.get(rel);
    if (range !== undefined && size === range.from) {
      done.appended += await appendRange(from, to, range.from, range.to);
      continue;
    }
    if (range === undefined && sub === SNAPSHOTS_DIR && WRITTEN_ONCE.test(name) && size >= 0 && size === (await fsp.stat(from)).size) continue;
    await fsp.copyFile(from, to, fsc.COPYFILE_FICLONE);
    done.copied += (await fsp.stat(to)).size;
  }
}

/** Appends bytes [start, end) of `from` to `to` (fsynced); returns how many. */
async function appendRange(from: string, to: string, start: number, end: number): Promise<number> {
  if (end <= start) return 0;
  const src = await fsp.open(from, "r");
  const dst = await fsp.open(to, "a");
  try {
    const buf = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, end - start));
    for (let pos = start; pos < end; ) {
      const { bytesRead } = await src.read(buf, 0, Math.min(buf.length, end - pos), pos);
      if (bytesRead === 0) throw new Error(`${from} ends at byte ${pos}, before ${end}`);
      await dst.write(buf, 0, bytesRead);
      pos += bytesRead;
    }
    await dst.sync();
  } finally {
    await src.close();
    await dst.close();
  }
  return end - start;
}
