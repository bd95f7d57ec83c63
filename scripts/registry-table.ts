/**
 * Print the registry tables (concept x framework, and the profiles), or with --write put them into
 * docs/framework-profiles.md between its markers (the one place they are written; the README links it).
 *
 *   npm run registry-table [-- --write]
 */
import { readFileSync, writeFileSync } from "node:fs";
import * as path from "node:path";

import { registryBlock, withRegistryBlock } from "../lib/registry/registry-table";

const FILES = ["docs/framework-profiles.md"];

const root = path.resolve(__dirname, "..");
if (process.argv.includes("--write")) {
  for (const f of FILES) {
    const p = path.join(root, f);
    writeFileSync(p, withRegistryBlock(readFileSync(p, "utf8"), f));
    process.stdout.write(`wrote the registry tables into ${f}\n`);
  }
} else {
  process.stdout.write(`${registryBlock()}\n`);
}
