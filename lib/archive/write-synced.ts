/** Writing a small file of an archive being staged: created (it must not exist) and fsynced before the folder is swapped in. */
import * as fsp from "node:fs/promises";

/** Writes a file and fsyncs it (it must not exist). */
export async function writeSynced(file: string, text: string): Promise<void> {
  const handle = await fsp.open(file, "wx");
  try {
    await handle.writeFile(text, "utf8");
    await handle.sync();
  } finally {
    await handle.close();
  }
}
