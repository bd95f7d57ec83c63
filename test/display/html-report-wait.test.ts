// html-report --wait (the main command's report pass): a notebook named on stdin becomes its page at
// once, before "go"; at "go" the rest and the index follow, byte for byte the report written without
// --wait; stdin closing without "go" writes no index and fails; a page nbconvert cannot write fails it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

import { serializeNotebook } from "../../lib/display/notebook-static-images";

const ROOT = path.resolve(__dirname, "../..");
const JUPYTER = path.join(ROOT, ".venv/bin/jupyter");
const SCRIPT = path.join(ROOT, "scripts/html-report.ts");

const notebook = (title: string) =>
  serializeNotebook({
    nbformat: 4,
    nbformat_minor: 4,
    metadata: { kernelspec: { name: "slime-diagnostics-ts", display_name: "TypeScript", language: "typescript" } },
    cells: [
      { cell_type: "markdown", metadata: {}, source: `# ${title}\nsubtitle` },
      { cell_type: "code", execution_count: 1, metadata: {}, source: "x", outputs: [{ output_type: "stream", name: "stdout", text: `${title}\n` }] },
    ],
  });

/** Every file of a folder, by name. */
const filesOf = (dir: string) => Object.fromEntries(fs.readdirSync(dir).map((f) => [f, fs.readFileSync(path.join(dir, f), "utf8")]));

test("html-report --wait: a named notebook's page at once, the rest and the index at go, as without --wait; no go, no index", {
  skip: fs.existsSync(JUPYTER) ? false : `no ${JUPYTER} (run scripts/setup.sh)`,
}, async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "report-wait-"));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const nbDir = path.join(dir, "nb");
  fs.mkdirSync(nbDir);
  const first = path.join(nbDir, "01-a.ipynb");
  fs.writeFileSync(first, notebook("01 A"));
  fs.writeFileSync(path.join(nbDir, "02-b.ipynb"), notebook("02 B"));

  const plain = spawnSync(process.execPath, ["--import", "tsx", SCRIPT, nbDir, path.join(dir, "plain")], { cwd: ROOT, encoding: "utf8" });
  assert.equal(plain.status, 0, plain.stderr + plain.stdout);

  // The first page exists before "go" is sent.
  const out = path.join(dir, "wait");
  const child = spawn(process.execPath, ["--import", "tsx", SCRIPT, "--wait", nbDir, out], { cwd: ROOT });
  let stdout = "";
  child.stdout.on("data", (b: Buffer) => (stdout += b));
  child.stderr.on("data", (b: Buffer) => (stdout += b));
  const closed = new Promise<number | null>((resolve) => child.on("close", resolve));
  child.stdin.write(`${first}\n`);
  const page = path.join(out, "01-a.html");
  for (let i = 0; i < 600 && !fs.existsSync(page); i++) await new Promise((r) => setTimeout(r, 50));
  assert.ok(fs.existsSync(page), `01-a.html written before go: ${stdout}`);
  assert.ok(!fs.existsSync(path.join(out, "02-b.html")) && !fs.existsSync(path.join(out, "index.html")), "nothing else before go");
  child.stdin.end("go\n");
  assert.equal(await closed, 0, stdout);
  assert.deepEqual(filesOf(out), filesOf(path.join(dir, "plain")), "the same pages and index as without --wait");

  const stopped = spawnSync(process.execPath, ["--import", "tsx", SCRIPT, "--wait", nbDir, path.join(dir, "stopped")], {
    cwd: ROOT,
    encoding: "utf8",
    input: `${first}\n`,
  });
  assert.equal(stopped.status, 1, "stdin closed without go: a failure");
  assert.match(stopped.stdout, /no go on stdin; 1 page\(s\) written early, no index/);
  assert.deepEqual(Object.keys(filesOf(path.join(dir, "stopped"))), ["01-a.html"]);

  const broken = path.join(nbDir, "03-broken.ipynb");
  fs.writeFileSync(broken, "{ not json");
  const bad = spawnSync(process.execPath, ["--import", "tsx", SCRIPT, "--wait", nbDir, path.join(dir, "bad")], {
    cwd: ROOT,
    encoding: "utf8",
    input: `${broken}\ngo\n`,
  });
  assert.equal(bad.status, 1);
  assert.match(bad.stderr, /nbconvert failed on .*03-broken\.ipynb/);
  assert.ok(!fs.existsSync(path.join(dir, "bad", "index.html")), "no index when a page failed");
});
