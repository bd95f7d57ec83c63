/**
 * The cursor over a run of more than 200,000 rows (bench/analysis-data.ts's generator, the frozen
 * writer's bytes): pages of 10,000 through the SDK's client return every line exactly once, in order,
 * equal to the file's line; the pages' line ranges tile the file.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, before, test } from "node:test";

import { ensureAnalysisArchive } from "../../bench/analysis-data";
import { answer, type ServerClient, startServer } from "./mcp-client";
import { fileSha256, frozenLines } from "./expected";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "mcp-paging-"));
let dir = "";
let server: ServerClient;

before(async () => {
  // One run of 80,000 optimizer updates: 5 rows per rollout batch of 2 updates, an eval row every 10 batches.
  dir = (await ensureAnalysisArchive(80_000, { workDir: tmp, runs: 1 })).dir;
  server = await startServer([`big=${dir}`]);
});
after(async () => {
  await server?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

test("a 200k-row run read through the cursor returns every row once, equal to its frozen line", async () => {
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, "manifest.json"), "utf8"));
  const run = manifest.runs[0];
  const file = path.join(dir, run.file);
  const lines = frozenLines(file);
  assert.ok(lines.length >= 200_000, `${lines.length} rows`);
  const sha = fileSha256(file);
  type Page = {
    rows: { line: number; values: Record<string, unknown> }[];
    nextCursor: string | null;
    lines: { first: number; last: number };
    fileSha256: string;
  };
  let next = 1;
  let pages = 0;
  let page = await answer<Page>(server.client, "history", { run: run.runId, limit: 10_000 });
  for (;;) {
    pages++;
    assert.equal(page.fileSha256, sha);
    assert.deepEqual(page.lines, { first: next, last: next + page.rows.length - 1 });
    for (const r of page.rows) {
      assert.equal(r.line, next);
      assert.deepEqual(r.values, lines[next - 1]);
      next++;
    }
    if (page.nextCursor === null) break;
    page = await answer<Page>(server.client, "history", { cursor: page.nextCursor, limit: 10_000 });
  }
  assert.equal(next - 1, lines.length);
  assert.equal(pages, Math.ceil(lines.length / 10_000));
});
