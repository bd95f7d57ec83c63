/**
 * The workspace version (package.json `version`) recorded in the export manifest, so an export says
 * which code made it.
 */
import * as fs from "node:fs";
import * as path from "node:path";

/** Folder of the workspace's package.json (this file lives in lib/export/). */
const WORKSPACE_ROOT = path.resolve(__dirname, "..", "..");

/**
 * `version` of the workspace's package.json; throws naming the file when it is missing or has none.
 * @example workspaceVersion() // "0.1.0"
 */
export function workspaceVersion(root: string = WORKSPACE_ROOT): string {
  const file = path.join(root, "package.json");
  let pkg: unknown;
  try {
    pkg = JSON.parse(fs.readFileSync(file, "utf8"));
  } catch (e) {
    throw new Error(`cannot read the workspace version from ${file}: ${(e as Error).message}`);
  }
  const version = (pkg as { version?: unknown } | null)?.version;
  if (typeof version !== "string" || version === "") throw new Error(`cannot read the workspace version from ${file}: no "version"`);
  return version;
}
