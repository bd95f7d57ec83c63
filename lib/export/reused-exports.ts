/**
 * Exports a notebook may reuse instead of building them again: the follow's `--html` rebuild hands
 * notebook 05 the exports its snapshot's analysis just wrote (scripts/follow-html-report.ts), as a
 * file holding their `ExportResult`, named by WORKSPACE_EXPORTS_WRITTEN. Without it notebook 05 writes
 * the exports itself, as `npm run export` does.
 */
import { promises as fsp } from "node:fs";
import { createHash } from "node:crypto";
import * as path from "node:path";

import { EXPORT_MANIFEST_FILE } from "./export-manifest";
import { type ExportResult, type WriteExportsOptions, writeExports } from "./write-exports";

/** Key a non-finite number is written under (JSON has no NaN or Infinity; a health flag's value may be one). */
const NON_FINITE = "$nonFinite";

/**
 * An export result as text, non-finite numbers kept (`{"$nonFinite": "NaN"}`).
 * @example await writeFile(file, serializeExportResult(analysis.exports))
 */
export function serializeExportResult(result: ExportResult): string {
  return JSON.stringify(result, (_key, v: unknown) => (typeof v === "number" && !Number.isFinite(v) ? { [NON_FINITE]: String(v) } : v));
}

/** The export result of `serializeExportResult`'s text. */
function parseExportResult(text: string): ExportResult {
  return JSON.parse(text, (_key, v: unknown) => {
    if (v === null || typeof v !== "object" || !(NON_FINITE in v)) return v;
    return Number((v as Record<string, string>)[NON_FINITE]);
  }) as ExportResult;
}

/**
 * The exports of `opts.outDir`: those already written there when `written` names their result file
 * (refused when that folder's manifest.json is not the one the result lists: the exports changed
 * since), else written now from the archive (`writeExports`).
 * @example const result = await writeOrReuseExports({ dataDir, outDir, written: params.exportsWritten });
 */
export async function writeOrReuseExports(opts: WriteExportsOptions & { written?: string }): Promise<ExportResult> {
  if (opts.written === undefined) return writeExports(opts);
  const result = parseExportResult(await fsp.readFile(opts.written, "utf8"));
  const manifest = await fsp.readFile(path.join(opts.outDir, EXPORT_MANIFEST_FILE));
  const sha256 = createHash("sha256").update(manifest).digest("hex");
  if (path.resolve(result.outDir) !== path.resolve(opts.outDir) || sha256 !== result.manifest.sha256) {
    throw new Error(`refusing to reuse the exports of ${opts.outDir}: ${EXPORT_MANIFEST_FILE} is not the one ${opts.written} lists (sha256 ${sha256})`);
  }
  return result;
}
