/**
 * The registry tables exist once, generated, in docs/framework-profiles.md (the README links them):
 * the committed block must equal what the profiles give now (`npm run registry-table -- --write`).
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { test } from "node:test";

import { withRegistryBlock } from "../../lib/registry/registry-table";

test("docs/framework-profiles.md holds the registry tables as the profiles give them now", () => {
  const file = path.resolve(__dirname, "../../docs/framework-profiles.md");
  const text = readFileSync(file, "utf8");
  assert.equal(withRegistryBlock(text, "docs/framework-profiles.md"), text, "run npm run registry-table -- --write");
});
