import { test } from "node:test";
import assert from "node:assert/strict";
import { workspaceParams } from "../../lib/workspace/workspace-params";

test("defaults resolve under the root, archive in data/wandb", () => {
  const p = workspaceParams({}, "/ws");
  assert.equal(p.dataDir, "/ws/data");
  assert.equal(p.archiveDir, "/ws/data/wandb");
  assert.equal(p.localLogDir, "/ws/data/local");
  assert.equal(p.runsConfig, "/ws/data/runs.json");
  assert.equal(p.exportsDir, "/ws/exports");
  assert.equal(p.fetchLive, false);
});

test("environment overrides; absolute paths kept", () => {
  const p = workspaceParams({ WORKSPACE_DATA: "/tmp/d", WORKSPACE_EXPORTS: "out", WORKSPACE_FETCH: "1" }, "/ws");
  assert.equal(p.archiveDir, "/tmp/d/wandb");
  assert.equal(p.exportsDir, "/ws/out");
  assert.equal(p.fetchLive, true);
});

test("a bad WORKSPACE_FETCH is refused by name", () => {
  assert.throws(() => workspaceParams({ WORKSPACE_FETCH: "yes" }, "/ws"), /invalid WORKSPACE_FETCH: yes/);
});

test("shownPath: relative inside the workspace, as given outside it", async () => {
  const { shownPath } = await import("../../lib/workspace/workspace-params");
  assert.equal(shownPath("/ws", "/ws/data/wandb"), "data/wandb");
  assert.equal(shownPath("/ws", "/ws"), ".");
  assert.equal(shownPath("/ws", "/tmp/d/wandb"), "/tmp/d/wandb");
});
