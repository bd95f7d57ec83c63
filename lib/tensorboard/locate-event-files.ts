/**
 * Which event files a path names: one file, or the event files of one log directory (a run), in
 * file-name order. Writers name files `events.out.tfevents.<unix time>.<host>.<pid>.<n>`, so name order
 * is the order they were started in; TensorBoard's own loader reads a directory in the same order.
 */
import * as fs from "node:fs";
import * as path from "node:path";

import { TensorboardError } from "./tensorboard-error";

/** True for a TensorBoard event file name (TensorBoard's own test: "tfevents" in the name). */
export function isEventFileName(name: string): boolean {
  return name.includes("tfevents");
}

/**
 * The event files of `p`: `[p]` for a file; for a folder, its event files sorted by name (subfolders
 * are other runs and are not read). Throws naming the path when there is none.
 * @example locateEventFiles("runs/exp1") // ["runs/exp1/events.out.tfevents.1700000000.host.1.0", ...]
 */
export function locateEventFiles(p: string): string[] {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(p);
  } catch (e) {
    throw new TensorboardError({ file: p, offset: null, detail: `cannot read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, cause: e });
  }
  if (stat.isFile()) return [p];
  const entries = fs.readdirSync(p, { withFileTypes: true });
  const files = entries
    .filter((e) => e.isFile() && isEventFileName(e.name))
    .map((e) => e.name)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .map((name) => path.join(p, name));
  if (files.length > 0) return files;
  const runs = entries.filter((e) => e.isDirectory() && fs.readdirSync(path.join(p, e.name)).some(isEventFileName)).map((e) => e.name);
  const hint = runs.length > 0 ? `; its subfolders ${runs.sort().join(", ")} hold event files: each is a run of its own, give each` : "";
  throw new TensorboardError({ file: p, offset: null, detail: `a folder without TensorBoard event files (names containing "tfevents")${hint}` });
}
