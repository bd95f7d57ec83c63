/**
 * Writes a set of files into a folder all or nothing: every file is first written (and fsynced) in a
 * temp folder inside the target folder, then renamed over its target (rename replaces atomically, so
 * a target is never half written). If any step fails, the files already moved are put back as they
 * were, so a failure never leaves a mixed old/new set. Other files in the folder are left alone.
 */
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
 * Writes `files` (plain names, no folders) into `outDir` (created if missing), all or nothing.
 * Throws `invalid file name: <name>` for a name with a path separator, and rethrows write errors
 * after restoring the previous files.
 * @example await writeFilesAtomically("exports", [{ name: "a.csv", text: "x\n1\n" }]);
 */
export async function writeFilesAtomically(outDir: string, files: readonly { name: string; text: string }[]): Promise<void> {
  const names = new Set<string>();
  for (const f of files) {
    if (f.name === "" || f.name === "." || f.name === ".." || f.name !== path.basename(f.name) || f.name.includes("/") || f.name.includes("\\")) {
      throw new Error(`invalid file name: ${JSON.stringify(f.name)}`);
    }
    if (names.has(f.name)) throw new Error(`invalid file name: ${JSON.stringify(f.name)} is given twice`);
    names.add(f.name);
  }
  await fsp.mkdir(outDir, { recursive: true });
  // Inside outDir, so every rename stays on one file system.
  const stage = await fsp.mkdtemp(path.join(outDir, STAGING_PREFIX));
  const fresh = path.join(stage, "new");
  const previous = path.join(stage, "old");
  const moved: { target: string; backup: string | null }[] = [];
  try {
    await fsp.mkdir(fresh);
    await fsp.mkdir(previous);
    for (const f of files) {
      const p = path.join(fresh, f.name);
      await fsp.writeFile(p, f.text, "utf8");
      await sync(p);
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
    await sync(outDir);
  } catch (e) {
    for (const m of moved.reverse()) {
      if (m.backup !== null) await fsp.rename(m.backup, m.target).catch(() => undefined);
      else await fsp.rm(m.target, { force: true }).catch(() => undefined);
    }
    throw e;
  } finally {
    await fsp.rm(stage, { recursive: true, force: true });
  }
}
