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

test("WORKSPACE_DATA takes the archive folder too (as npm run export -- --data): runs.json then beside it; a data folder as before", async () => {
  const fs = await import("node:fs");
  const os = await import("node:os");
  const path = await import("node:path");
  const { dataAndArchive } = await import("../../lib/workspace/workspace-params");
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ws-params-"));
  try {
    // An archive in a folder of the user's own name (my-trl/wandb), fetched: its manifest is there.
    const archive = path.join(tmp, "my-trl", "wandb");
    fs.mkdirSync(archive, { recursive: true });
    fs.writeFileSync(path.join(archive, "manifest.json"), "{}");
    for (const given of [archive, path.join(tmp, "my-trl")]) {
      const p = workspaceParams({ WORKSPACE_DATA: given }, "/ws");
      assert.deepEqual([p.dataDir, p.archiveDir, p.runsConfig], [path.join(tmp, "my-trl"), archive, path.join(tmp, "my-trl", "runs.json")], given);
    }
    // An archive of another name is found by its manifest; nothing fetched yet: a data folder, unless named wandb.
    const other = path.join(tmp, "runs-2026");
    fs.mkdirSync(other);
    fs.writeFileSync(path.join(other, "manifest.json"), "{}");
    assert.deepEqual(dataAndArchive(other), { dataDir: tmp, archiveDir: other });
    assert.deepEqual(dataAndArchive(path.join(tmp, "new")), { dataDir: path.join(tmp, "new"), archiveDir: path.join(tmp, "new", "wandb") });
    assert.deepEqual(dataAndArchive(path.join(tmp, "new", "wandb")), { dataDir: path.join(tmp, "new"), archiveDir: path.join(tmp, "new", "wandb") });
    assert.deepEqual(dataAndArchive(path.join(tmp, "new"), "archive"), { dataDir: tmp, archiveDir: path.join(tmp, "new") }, "export's --data");
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});
