/**
 * The workspace version (package.json `version`) recorded in the export manifest, so an export says
 * which code made it.
 */
import * as fs from "node:fs";
import * as path from "node:path";

/**
 * Folder of the workspace's package.json: this file lives in lib/export/, or is bundled by
 * scripts/prebuilt.cjs into node_modules/.cache/... (`npm run follow --report`), the folder above
 * node_modules then.
 */
const WORKSPACE_ROOT = workspaceRootOf(__dirname);

/** The workspace folder of a module's folder: the one holding its node_modules, else two levels up (lib/export/). */
export function workspaceRootOf(dir: string): string {
  const at = dir.split(path.sep).indexOf("node_modules");
  return at > 0 ? dir.split(path.sep).slice(0, at).join(path.sep) : path.resolve(dir, "..", "..");
}

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
