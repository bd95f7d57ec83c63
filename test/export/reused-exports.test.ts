/**
 * Exports reused by notebook 05 in a follow's --html rebuild (lib/export/reused-exports.ts): the
 * result file keeps non-finite flag values, the reused result is the written one, and a folder whose
 * manifest.json changed since is refused.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test } from "node:test";

import { serializeExportResult, writeOrReuseExports } from "../../lib/export/reused-exports";
import { writeExports } from "../../lib/export/write-exports";

const ROOT = path.resolve(__dirname, "../..");

test("the bundled archive's exports, written then reused: the same result, its NaN flag value a number again; a changed manifest.json is refused", async () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "reused-exports-"));
  try {
    const outDir = path.join(tmp, "exports");
    const dataDir = path.join(ROOT, "data", "wandb");
    const result = await writeExports({ dataDir, outDir, allowIssues: true });
    const nan = result.health.flags.filter((f) => Number.isNaN(f.value));
    assert.equal(nan.length, 1, "the sample's one non_finite flag, value NaN");
    const written = path.join(tmp, "written.json");
    fs.writeFileSync(written, serializeExportResult(result));
    const reused = await writeOrReuseExports({ dataDir, outDir, written });
    assert.deepEqual(reused, result);
    fs.appendFileSync(path.join(outDir, "manifest.json"), " ");
    await assert.rejects(
      writeOrReuseExports({ dataDir, outDir, written }),
      /^Error: refusing to reuse the exports of .*: manifest\.json is not the one .*written\.json lists/,
    );
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});
