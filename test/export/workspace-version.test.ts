import assert from "node:assert/strict";
import * as path from "node:path";
import { test } from "node:test";

import { workspaceRootOf, workspaceVersion } from "../../lib/export/workspace-version";

test("the workspace folder of lib/export/, and of a bundle under node_modules/.cache (npm run follow's prebuilt code), is the one holding package.json", () => {
  const root = path.resolve(__dirname, "..", "..");
  assert.equal(workspaceRootOf(path.join(root, "lib", "export")), root);
  assert.equal(workspaceRootOf(path.join(root, "node_modules", ".cache", "rl-run-diagnostics")), root);
  assert.equal(workspaceRootOf(path.join(path.sep, "w", "node_modules", "a", "node_modules", "b")), path.join(path.sep, "w"), "the outermost node_modules");
  assert.match(workspaceVersion(workspaceRootOf(path.join(root, "node_modules", ".cache", "x"))), /^\d+\.\d+\.\d+/);
  assert.throws(() => workspaceVersion(path.join(root, "node_modules")), /cannot read the workspace version from .*node_modules.package\.json/);
});
