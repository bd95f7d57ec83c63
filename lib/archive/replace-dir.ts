/**
 * Atomic replacement of an archive folder: the new archive is written into a temp folder beside
 * the target, fsynced, then swapped in by rename, so a failed fetch leaves the previous archive
 * byte-identical. A lock file beside the target (created with O_EXCL) keeps two fetches into the
 * same folder from interleaving.
 */
import { randomBytes } from "node:crypto";
import { promises as fsp } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

import type { Reporter } from "../types";
import { HISTORY_DIR, MANIFEST_FILE, SNAPSHOTS_DIR } from "./manifest";

/** Entries an archive folder may hold (snapshots/: a followed archive's chain); anything else would be lost by the swap, so it is refused. */
const ARCHIVE_ENTRIES = new Set([MANIFEST_FILE, HISTORY_DIR, SNAPSHOTS_DIR]);

/** Sibling paths of an archive folder: lock, temp prefix, old prefix, spare prefix. */
export function archiveSiblings(outDir: string): { parent: string; lock: string; tmpPrefix: string; oldPrefix: string; sparePrefix: string } {
  const abs = path.resolve(outDir);
  const parent = path.dirname(abs);
  const base = path.basename(abs);
  return {
    parent,
    lock: path.join(parent, `.${base}.lock`),
    tmpPrefix: path.join(parent, `.${base}.tmp-`),
    oldPrefix: path.join(parent, `.${base}.old-`),
    sparePrefix: path.join(parent, `.${base}.spare-`),
  };
}

/** Throws `invalid outDir: ...` when the folder exists and holds anything but an archive. */
export async function checkArchiveDir(outDir: string): Promise<void> {
  let entries: string[];
  try {
    const stat = await fsp.stat(outDir);
    if (!stat.isDirectory()) throw new Error(`invalid outDir: ${outDir} is not a folder`);
    entries = await fsp.readdir(outDir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return;
    throw e;
  }
  const foreign = entries.filter((e) => !ARCHIVE_ENTRIES.has(e)).sort();
  if (foreign.length > 0) {
    throw new Error(
      `invalid outDir: ${outDir} holds ${foreign.slice(0, 5).join(", ")}${foreign.length > 5 ? ", ..." : ""}, which are not part of an archive and would be lost when it is replaced; give the archive its own folder (e.g. data/archive)`,
    );
  }
}

/** fsync of a folder, so renames inside it are durable. */
async function syncDir(dir: string): Promise<void> {
  const handle = await fsp.open(dir, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Held lock on an archive folder. */
export interface ArchiveLock {
  path: string;
  release(): Promise<void>;
}

/** True when a process with this pid runs on this machine (signal 0 probes without sending). */
function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** The holder recorded in a lock file, if it is a process of this machine that no longer runs. */
function deadHolder(text: string): number | null {
  try {
    const { pid, host } = JSON.parse(text) as { pid?: unknown; host?: unknown };
    if (typeof pid === "number" && Number.isInteger(pid) && pid > 0 && host === os.hostname() && !pidAlive(pid)) return pid;
  } catch {
    // unreadable or half-written lock: treat as held
  }
  return null;
}

/**
 * Creates the lock file with its content in one step (false when it exists): the content is written
 * to a file of its own, then hard-linked to the lock name, so another fetch never reads a lock that
 * exists but is still empty. Where hard links are not supported, O_EXCL create then write.
 */
async function createLockFile(lock: string, info: string): Promise<boolean> {
  const tmp = `${lock}.${process.pid}-${randomBytes(6).toString("hex")}.tmp`;
  await fsp.writeFile(tmp, info, { flag: "wx" });
  try {
    await fsp.link(tmp, lock);
    return true;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "EEXIST") return false;
    if (code !== "EPERM" && code !== "ENOTSUP" && code !== "EOPNOTSUPP") throw e;
  } finally {
    await fsp.rm(tmp, { force: true });
  }
  try {
    await fsp.writeFile(lock, info, { flag: "wx" });
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw e;
  }
}

/**
 * Takes the lock beside `outDir` or throws naming the lock file and its holder. A lock left by a
 * killed fetch (its pid on this machine no longer runs) is moved aside and taken over, with a
 * warning.
 */
export async function lockArchiveDir(outDir: string, reporter: Reporter = {}): Promise<ArchiveLock> {
  const { parent, lock } = archiveSiblings(outDir);
  await fsp.mkdir(parent, { recursive: true });
  const info = JSON.stringify({ pid: process.pid, host: os.hostname(), startedAt: new Date().toISOString() }) + "\n";
  for (let tries = 0; ; tries++) {
    if (await createLockFile(lock, info)) break;
    const holder = await fsp.readFile(lock, "utf8").catch((e: NodeJS.ErrnoException) => (e.code === "ENOENT" ? null : ""));
    // Gone between our attempt and the read: its fetch just ended, so try again (a few times).
    if (holder === null && tries < 10) continue;
    const dead = tries < 2 && holder !== null ? deadHolder(holder) : null;
    if (dead === null || holder === null) {
      throw new Error(
        `archive ${outDir} is locked by another fetch (lock file ${lock}: ${holder?.trim() || "unreadable"}); if no fetch is running, delete the lock file and try again`,
      );
    }
    // Move the stale lock aside atomically, then make sure what was moved is the stale one: if a
    // live fetch replaced it in between, put that lock back (link fails if the name is taken).
    const aside = `${lock}.stale-${randomBytes(6).toString("hex")}`;
    try {
      await fsp.rename(lock, aside);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") continue;
      throw e;
    }
    const moved = await fsp.readFile(aside, "utf8").catch(() => "");
    if (moved !== holder) await fsp.link(aside, lock).catch(() => undefined);
    else reporter.warn?.(`removed stale lock ${lock} of fetch pid ${dead}, which no longer runs`);
    await fsp.rm(aside, { force: true });
  }
  return {
    path: lock,
    release: async () => {
      await fsp.rm(lock, { force: true });
    },
  };
}

/**
 * Cleans what an interrupted earlier swap left beside `outDir` (caller holds the lock): temp folders
 * and spare copies (but `keep`) are removed; if `outDir` is missing but one old copy exists, the old
 * copy is put back.
 */
async function recoverInterrupted(outDir: string, reporter: Reporter, keep: string | null): Promise<void> {
  const { parent, tmpPrefix, oldPrefix, sparePrefix } = archiveSiblings(outDir);
  const names = await fsp.readdir(parent);
  const full = names.map((n) => path.join(parent, n));
  const stale = (p: string) => p.startsWith(tmpPrefix) || (p.startsWith(sparePrefix) && p !== keep);
  for (const p of full.filter(stale)) await fsp.rm(p, { recursive: true, force: true });
  const olds = full.filter((p) => p.startsWith(oldPrefix));
  const exists = await fsp.stat(outDir).then(
    () => true,
    () => false,
  );
  if (!exists && olds.length === 1) {
    await fsp.rename(olds[0], outDir);
    reporter.warn?.(`restored archive ${outDir} from ${olds[0]}, left by an interrupted fetch`);
  } else {
    for (const p of olds) await fsp.rm(p, { recursive: true, force: true });
  }
}

/**
 * The archive as it was before the last replacement, kept beside it (`.<name>.spare-*`) by a caller
 * that replaces the archive again and again (a follow): the next replacement starts from this copy
 * instead of an empty folder, so only what changed since has to be written, not every byte copied.
 * `dir` is null while there is none; replaceDirAtomically sets it.
 */
export interface SpareCopy {
  dir: string | null;
}

/** The temp folder of a replacement: the spare copy moved to a temp name when there is one, else a new empty folder. */
async function tempFolder(tmpPrefix: string, spare: SpareCopy | undefined): Promise<{ tmp: string; recycled: boolean }> {
  const from = spare?.dir ?? null;
  if (spare) spare.dir = null;
  if (from !== null) {
    const tmp = `${tmpPrefix}${randomBytes(6).toString("hex")}`;
    const moved = await fsp.rename(from, tmp).then(
      () => true,
      () => false,
    );
    if (moved) return { tmp, recycled: true };
  }
  // Not mkdtemp: its 0700 would become the archive's mode once swapped in, unreadable to the
  // colleagues it is shared with. mkdir's mode follows the umask, as every file inside does.
  const tmp = `${tmpPrefix}${randomBytes(6).toString("hex")}`;
  await fsp.mkdir(tmp);
  return { tmp, recycled: false };
}

/** Renames the replaced archive to a spare name; removes it (null) when that fails. */
async function keepAsSpare(old: string, sparePrefix: string): Promise<string | null> {
  const dir = `${sparePrefix}${randomBytes(6).toString("hex")}`;
  try {
    await fsp.rename(old, dir);
    return dir;
  } catch {
    await fsp.rm(old, { recursive: true, force: true });
    return null;
  }
}

/**
 * Replaces `outDir` with the folder `fill` writes: `fill` gets a temp folder beside it (empty, or
 * with `spare` the previous archive's copy, `recycled` true); after it resolves, the temp folder is
 * fsynced and renamed into place. If `fill` throws, `outDir` is untouched and the temp folder
 * removed. With `spare`, the replaced archive is kept as the next spare instead of removed. Holds
 * the lock throughout.
 */
export async function replaceDirAtomically<T>(
  outDir: string,
  fill: (tmpDir: string, recycled: boolean) => Promise<T>,
  reporter: Reporter = {},
  spare?: SpareCopy,
): Promise<T> {
  const target = path.resolve(outDir);
  const { parent, tmpPrefix, oldPrefix, sparePrefix } = archiveSiblings(target);
  const lock = await lockArchiveDir(target, reporter);
  let tmp: string | null = null;
  try {
    await recoverInterrupted(target, reporter, spare?.dir ?? null);
    await checkArchiveDir(target);
    const made = await tempFolder(tmpPrefix, spare);
    tmp = made.tmp;
    const result = await fill(tmp, made.recycled);
    for (const dir of [path.join(tmp, HISTORY_DIR), path.join(tmp, SNAPSHOTS_DIR), tmp]) {
      if (
        await fsp.stat(dir).then(
          () => true,
          () => false,
        )
      )
        await syncDir(dir);
    }
    const exists = await fsp.stat(target).then(
      () => true,
      () => false,
    );
    if (exists) {
      // Two renames: Node has no renameat2(RENAME_EXCHANGE). The old copy is removed only after the
      // new one is in place; an interruption in between is repaired by the next fetch (see above).
      const old = `${oldPrefix}${randomBytes(6).toString("hex")}`;
      await fsp.rename(target, old);
      try {
        await fsp.rename(tmp, target);
      } catch (e) {
        await fsp.rename(old, target);
        throw e;
      }
      tmp = null;
      await syncDir(parent);
      if (spare) spare.dir = await keepAsSpare(old, sparePrefix);
      else await fsp.rm(old, { recursive: true, force: true });
    } else {
      await fsp.rename(tmp, target);
      tmp = null;
      await syncDir(parent);
    }
    return result;
  } finally {
    if (tmp !== null) await fsp.rm(tmp, { recursive: true, force: true });
    await lock.release();
  }
}
