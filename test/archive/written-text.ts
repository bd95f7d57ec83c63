/** Every byte an archive folder and its exports hold, as one text: what "reaches no file" checks search. */
import * as fs from "node:fs";
import * as path from "node:path";

import { loadArchive } from "../../lib/archive/load-archive";
import { alignRuns } from "../../lib/align/align-runs";
import { buildExports } from "../../lib/export/build-exports";

/** The archive's files, then the exports built from it (issues allowed), joined by newlines. */
export async function archiveAndExportsText(outDir: string): Promise<string> {
  const archive = await loadArchive(outDir);
  const build = buildExports(archive, alignRuns(archive.runs), { workspaceVersion: "test", allowIssues: true });
  return [...filesText(outDir), ...build.files.map((f) => f.text)].join("\n");
}

/** The text of every file below `dir`. */
export function filesText(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => fs.readFileSync(path.join(d.parentPath, d.name), "utf8"));
}
