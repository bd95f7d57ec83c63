/**
 * Writes a set of files into a folder all or nothing: every file is first written (and fsynced) in a
 * temp folder inside the target folder, then renamed over its target (rename replaces atomically, so
 * a target is never half written). If any step fails, the files already moved are put back as they
 * were, so a failure never leaves a mixed old/new set. Other files in the folder are left alone.
 * Folders (a hive layout's partitions) are written whole: the previous folder of that name is
 * replaced, never merged, so no stale partition outlives the export that wrote it.
 */
import { createHash } from "node:crypto";
import { promises as fsp } from "node:fs";
import * as path from "node:path";

/** Prefix of the temp folder inside the target folder (removed when done). */
export const STAGING_PREFIX = ".export-tmp-";

/** fsync of a file or folder. */
async function sync(p: string): Promise<void> {
  const handle = await fsp.open(p, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function exists(p: string): Promise<boolean> {
  return fsp.lstat(p).then(
    () => true,
    (e: NodeJS.ErrnoException) => {
      if (e.code === "ENOENT") return false;
      throw e;
    },
  );
}

/**
 * A file to write: text (UTF-8), bytes, or chunks of either made while it is written, or written by
 * `write` itself (files are written in order, so a later file's chunks may depend on what an earlier
 * one wrote; a `concurrent` file is written while the files after it are, up to the next file that
 * is not concurrent).
 */
export interface FileToWrite {
  name: string;
  text?: string;
  bytes?: Uint8Array;
  chunks?: () => Iterable<string | Uint8Array> | AsyncIterable<Uint8Array>;
  /**
   * Writes the file at this path itself (another thread: it creates, hashes and fsyncs it) and
   * returns its sha256 (hex) and size; used instead of the content fields.
   */
  write?: (file: string) => Promise<{ sha256: string; bytes: number }>;
  /** Write it alongside the following files (its chunks come from another thread); default false. */
  concurrent?: boolean;
  /** Told the sha256 (hex) and size of the bytes written, computed as they were written. */
  onWritten?: (sha256: string, bytes: number) => void;
}

/** Options of {@link writeFilesAtomically}. */
export interface WriteFilesOptions {
  /** Folders written whole (the previous folder is replaced): file names inside are relative paths with `/`. */
  folders?: readonly { name: string; files: readonly FileToWrite[] }[];
  /** Plain names of files or folders in outDir that this set removes when present (outputs it no longer writes). */
  remove?: readonly string[];
}

/** True for a plain file or folder name: no separator, not "", "." or "..". */
function isPlainName(name: string): boolean {
  return name !== "" && name !== "." && name !== ".." && name === path.basename(name) && !name.includes("/") && !name.includes("\\");
}

/** Throws unless every name is plain and given once; nested names of folders are checked segment by segment. */
function checkNames(files: readonly FileToWrite[], opts: WriteFilesOptions): void {
  const names = new Set<string>();
  const top = [...files.map((f) => f.name), ...(opts.folders ?? []).map((d) => d.name), ...(opts.remove ?? [])];
  for (const name of top) {
    if (!isPlainName(name)) throw new Error(`invalid file name: ${JSON.stringify(name)}`);
    if (names.has(name)) throw new Error(`invalid file name: ${JSON.stringify(name)} is given twice`);
    names.add(name);
  }
  for (const d of opts.folders ?? []) {
    const inside = new Set<string>();
    for (const f of d.files) {
      if (!f.name.split("/").every(isPlainName) || inside.has(f.name)) throw new Error(`invalid file name: ${JSON.stringify(`${d.name}/${f.name}`)}`);
      inside.add(f.name);
    }
  }
}

/** The content of a file as chunks of bytes. */
async function* contentOf(f: FileToWrite): AsyncGenerator<Uint8Array> {
  if (f.chunks !== undefined) {
    for await (const c of f.chunks()) yield typeof c === "string" ? Buffer.from(c, "utf8") : c;
  } else if (f.bytes !== undefined) yield f.bytes;
  else yield Buffer.from(f.text ?? "", "utf8");
}

/**
 * Writes `files` into `dir` in order, a `concurrent` file alongside the files after it; every write
 * has finished (and the first failure is thrown) before this returns.
 */
async function writeAll(dir: string, files: readonly FileToWrite[]): Promise<void> {
  let running: Promise<void>[] = [];
  // Settled results only: a concurrent write failing while another runs is not an unhandled rejection.
  const join = async () => {
    const results = await Promise.allSettled(running);
    running = [];
    const failed = results.find((r) => r.status === "rejected");
    if (failed !== undefined) throw (failed as PromiseRejectedResult).reason;
  };
  for (const f of files) {
    const write = writeOne(path.join(dir, f.name), f);
    write.catch(() => undefined); // handled at the join
    running.push(write);
    if (!f.concurrent) await join();
  }
  await join();
}

/** Writes (hashing as it writes, or by its own `write`) and fsyncs one file, creating its folder. */
async function writeOne(p: string, f: FileToWrite): Promise<void> {
  await fsp.mkdir(path.dirname(p), { recursive: true });
  const { sha256, bytes } = f.write !== undefined ? await f.write(p) : await writeHashed(p, f);
  f.onWritten?.(sha256, bytes);
}

/**
 * Writes a file's content (text, bytes or chunks) at `p` on this thread, hashing it as it goes, and
 * fsyncs it; returns its sha256 (hex) and size. The fallback of a file another thread fails to write.
 */
export async function writeHashed(p: string, f: Omit<FileToWrite, "write">): Promise<{ sha256: string; bytes: number }> {
  const hash = createHash("sha256");
  let bytes = 0;
  const handle = await fsp.open(p, "w");
  try {
    for await (const chunk of contentOf(f)) {
      hash.update(chunk);
      bytes += chunk.byteLength;
      await handle.writeFile(chunk);
    }
    await handle.sync();
  } finally {
    await handle.close();
  }
  return { sha256: hash.digest("hex"), bytes };
}

/**
 * Writes `files` (plain names, no folders) and `opts.folders` (each whole) into `outDir` (created if
 * missing), and removes `opts.remove`, all or nothing. Throws `invalid file name: <name>` for a name
 * with a path separator, and rethrows write errors after restoring the previous files and folders.
 * @example await writeFilesAtomically("exports", [{ name: "a.csv", text: "x\n1\n" }]);
 */
export async function writeFilesAtomically(outDir: string, files: readonly FileToWrite[], opts: WriteFilesOptions = {}): Promise<void> {
  checkNames(files, opts);
  await fsp.mkdir(outDir, { recursive: true });
  // Inside outDir, so every rename stays on one file system.
  const stage = await fsp.mkdtemp(path.join(outDir, STAGING_PREFIX));
  const fresh = path.join(stage, "new");
  const previous = path.join(stage, "old");
  const moved: { target: string; backup: string | null; whole?: boolean }[] = [];
  try {
    await fsp.mkdir(fresh);
    await fsp.mkdir(previous);
    await writeAll(fresh, files);
    for (const d of opts.folders ?? []) {
      await fsp.mkdir(path.join(fresh, d.name));
      for (const f of d.files) await writeOne(path.join(fresh, d.name, ...f.name.split("/")), f);
    }
    for (const f of files) {
      const target = path.join(outDir, f.name);
      // A hard link keeps the old bytes for a roll-back while the target itself is never absent.
      let backup: string | null = null;
      if (await exists(target)) {
        backup = path.join(previous, f.name);
        await fsp.link(target, backup);
      }
      moved.push({ target, backup });
      await fsp.rename(path.join(fresh, f.name), target);
    }
    // A folder cannot be hard-linked nor renamed over a non-empty one: the old one is moved aside first.
    const whole = [...(opts.folders ?? []).map((d) => ({ name: d.name, fresh: true })), ...(opts.remove ?? []).map((name) => ({ name, fresh: false }))];
    for (const w of whole) {
      const target = path.join(outDir, w.name);
      let backup: string | null = null;
      if (await exists(target)) {
        backup = path.join(previous, w.name);
        await fsp.rename(target, backup);
      }
      moved.push({ target, backup, whole: true });
      if (w.fresh) await fsp.rename(path.join(fresh, w.name), target);
    }
    await sync(outDir);
  } catch (e) {
    for (const m of moved.reverse()) {
      // A file's backup is renamed back over it; a folder must go before its backup can return.
      if (m.whole || m.backup === null) await fsp.rm(m.target, { recursive: true, force: true }).catch(() => undefined);
      if (m.backup !== null) await fsp.rename(m.backup, m.target).catch(() => undefined);
    }
    throw e;
  } finally {
    await fsp.rm(stage, { recursive: true, force: true });
  }
}
