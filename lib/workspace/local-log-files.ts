/**
 * Reads slime's local training logs of the frozen runs (`<localLogDir>/<runId>.log`) into records
 * keyed like W&B's, for the cross-check. A run without a log is listed, not an error: the
 * cross-check then says which runs it could not check.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseSlimeLogWithStats, type LocalLogRecord, type MalformedLine, type SlimeLogStats } from "../local-logs/parse-slime-log";
import type { Reporter } from "../types";
import { shownPath } from "./workspace-params";

/** Local log records of the runs that have a log file. */
export interface LocalLogFiles {
  records: Map<string, LocalLogRecord[]>;
  /** Per log file: counts, and the metric lines that did not parse (file:line and reason). */
  stats: { runId: string; file: string; stats: SlimeLogStats; malformed: MalformedLine[] }[];
  /** Runs without a `<runId>.log` in the folder. */
  missing: string[];
}

/** Parse `<dir>/<runId>.log` for each run id that has one. */
export function readLocalLogFiles(dir: string, runIds: readonly string[], reporter: Reporter = {}): LocalLogFiles {
  const records = new Map<string, LocalLogRecord[]>();
  const stats: LocalLogFiles["stats"] = [];
  const missing: string[] = [];
  for (const runId of runIds) {
    const file = join(dir, `${runId}.log`);
    if (!existsSync(file)) {
      missing.push(runId);
      continue;
    }
    // Messages name the file relative to the workspace (the kernel's folder): no home paths in shared notebooks.
    const parsed = parseSlimeLogWithStats(readFileSync(file, "utf8"), { runId, file: shownPath(process.cwd(), file), reporter });
    records.set(runId, parsed.records);
    stats.push({ runId, file, stats: parsed.stats, malformed: parsed.malformed });
  }
  return { records, stats, missing };
}
