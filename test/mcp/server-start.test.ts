/**
 * The server answers the handshake before its archives are open (hosts time a server's start); an
 * archive it cannot open makes every call a refusal naming the archive and why, never an empty answer.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, test } from "node:test";

import { refusal, startServer } from "./mcp-client";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "mcp-start-"));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

test("an archive that cannot be opened: the tools are listed, and each call is refused naming it", async () => {
  const server = await startServer([`empty=${tmp}`]);
  try {
    const { tools } = await server.client.listTools();
    assert.equal(tools.length, 6);
    for (const name of ["runs", "summary"]) {
      const r = await refusal(server.client, name, {});
      assert.equal(r.code, "failed");
      assert.match(r.reason, /^archive empty \(.*\): invalid --data: .* holds no manifest\.json, nor wandb\/manifest\.json/);
    }
  } finally {
    await server.close();
  }
});
