/**
 * scripts/add-static-figures.ts end to end on a hand-made notebook (needs Debian's chromium; skipped
 * with a message without it), then the "static renderer" check: nbconvert's HTML shows an <img> per
 * figure, i.e. the figures survive in frontends without plotly.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { PLOTLY_MIME } from "../../lib/display/display-target";
import { findChromium } from "../../lib/display/plotly-renderer";
import { parseNotebook, serializeNotebook } from "../../lib/display/notebook-static-images";
import { FIXTURE_TITLES, notebookFixture } from "./notebook-fixture";

const ROOT = path.resolve(__dirname, "../..");
const SCRIPT = path.join(ROOT, "scripts/add-static-figures.ts");
const JUPYTER = path.join(ROOT, ".venv/bin/jupyter");
const chromium = findChromium();

function runScript(args: string[]) {
  return spawnSync(process.execPath, ["--import", "tsx", SCRIPT, ...args], { cwd: ROOT, encoding: "utf8" });
}

/** Width and height from a PNG's IHDR chunk; throws if the bytes are not a PNG. */
function pngSize(bytes: Buffer): { width: number; height: number } {
  assert.deepEqual([...bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], "PNG signature");
  assert.equal(bytes.subarray(12, 16).toString("ascii"), "IHDR");
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

test("every plotly output gains a PNG and its title; nbconvert HTML shows an <img> per figure", {
  skip: chromium ? false : "no Chromium (apt-get install -y chromium)",
}, (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "static-figures-"));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, "fixture.ipynb");
  fs.writeFileSync(file, serializeNotebook(notebookFixture()));

  const run = runScript([file]);
  assert.equal(run.status, 0, run.stderr + run.stdout);
  assert.match(run.stdout, /add-static-figures: 2 figure\(s\) in 1 notebook\(s\)/);

  const nb = parseNotebook(fs.readFileSync(file, "utf8"), file);
  const plotly = nb.cells.flatMap((c) => c.outputs ?? []).filter((o) => o.data?.[PLOTLY_MIME] !== undefined);
  assert.equal(plotly.length, 2);
  plotly.forEach((out, i) => {
    const png = Buffer.from(out.data!["image/png"] as string, "base64");
    assert.deepEqual(pngSize(png), { width: 900, height: 420 }, "default width, the figure's own height");
    assert.ok(png.length > 10_000, `a drawn figure, not a blank image (${png.length} bytes)`);
    assert.deepEqual(out.data!["text/plain"], [FIXTURE_TITLES[i]]);
  });

  if (!fs.existsSync(JUPYTER)) {
    t.diagnostic(`nbconvert check skipped: no ${JUPYTER} (run scripts/setup.sh)`);
    return;
  }
  const conv = spawnSync(JUPYTER, ["nbconvert", "--to", "html", "--output-dir", dir, file], { encoding: "utf8" });
  assert.equal(conv.status, 0, conv.stderr);
  const html = fs.readFileSync(path.join(dir, "fixture.html"), "utf8");
  assert.equal(html.match(/<img [^>]*src="data:image\/png;base64,/g)?.length, 2, "one static image per figure");
});

test("without Chromium: one line, exit 0, notebook unchanged", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "static-figures-"));
  try {
    const file = path.join(dir, "fixture.ipynb");
    const text = serializeNotebook(notebookFixture());
    fs.writeFileSync(file, text);
    const run = runScript(["--chromium", path.join(dir, "no-such-chromium"), file]);
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stderr, "");
    const lines = run.stdout.trim().split("\n");
    assert.equal(lines.length, 1, run.stdout);
    assert.match(lines[0], /^add-static-figures: static images skipped \(no Chromium at .*no-such-chromium\); the 2 plotly figure\(s\) stay interactive-only/);
    assert.equal(fs.readFileSync(file, "utf8"), text);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("option and input errors", () => {
  const bad = runScript(["--scale", "0", "x.ipynb"]);
  assert.equal(bad.status, 1);
  assert.match(bad.stderr, /invalid scale: 0/);
  const missing = runScript(["/nonexistent/nb.ipynb"]);
  assert.equal(missing.status, 1);
  assert.match(missing.stderr, /invalid notebook: \/nonexistent\/nb.ipynb \(no such file or folder\)/);
});

test("--wait: browser first; the notebooks are read only after a go on stdin (or when named on it), untouched without it", {
  skip: chromium ? false : "no Chromium (apt-get install -y chromium)",
}, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "static-figures-"));
  try {
    const text = serializeNotebook(notebookFixture());
    const waitFile = path.join(dir, "wait.ipynb");
    const plainFile = path.join(dir, "plain.ipynb");
    const wait = (input: string) => spawnSync(process.execPath, ["--import", "tsx", SCRIPT, "--wait", waitFile], { cwd: ROOT, encoding: "utf8", input });
    fs.writeFileSync(waitFile, text);
    const noGo = wait("");
    assert.equal(noGo.status, 0, noGo.stderr);
    assert.match(noGo.stdout, /no go on stdin; nothing done/);
    assert.equal(fs.readFileSync(waitFile, "utf8"), text, "stdin closed without go: notebook untouched");

    const go = wait("go\n");
    assert.equal(go.status, 0, go.stderr);
    assert.match(go.stdout, /2 figure\(s\) in 1 notebook\(s\)/);
    fs.writeFileSync(plainFile, text);
    assert.equal(runScript([plainFile]).status, 0);
    assert.equal(fs.readFileSync(waitFile, "utf8"), fs.readFileSync(plainFile, "utf8"), "same images as without --wait");

    // A notebook named on stdin before go is drawn at once, and only once; stdin closing without go
    // then leaves the other untouched.
    const sub = path.join(dir, "sub");
    fs.mkdirSync(sub);
    const early = path.join(sub, "early.ipynb");
    const other = path.join(sub, "other.ipynb");
    fs.writeFileSync(early, text);
    fs.writeFileSync(other, text);
    // --announce-fd 3: each final notebook named there once, then "go" (the report pass's input).
    const run = (input: string) =>
      spawnSync(process.execPath, ["--import", "tsx", SCRIPT, "--wait", "--announce-fd", "3", sub], {
        cwd: ROOT,
        encoding: "utf8",
        input,
        stdio: ["pipe", "pipe", "pipe", "pipe"],
      });
    const announced = (r: ReturnType<typeof run>) => String(r.output[3] ?? "");
    const named = run(`${early}\n`);
    assert.equal(named.status, 0, named.stderr);
    assert.match(named.stdout, /no go on stdin; 1 notebook\(s\) drawn early, no others/);
    assert.equal(announced(named), `${early}\n`, "the drawn one named; no go when stdin closed without one");
    assert.equal(fs.readFileSync(early, "utf8"), fs.readFileSync(plainFile, "utf8"), "the named notebook drawn");
    assert.equal(fs.readFileSync(other, "utf8"), text, "the other untouched");
    fs.writeFileSync(early, text);
    const both = run(`${early}\ngo\n`);
    assert.equal(both.status, 0, both.stderr);
    assert.equal(both.stdout.split("\n").filter((l) => l.includes("early.ipynb: 2 figure(s)")).length, 1, both.stdout);
    assert.match(both.stdout, /4 figure\(s\) in 2 notebook\(s\)/);
    assert.equal(announced(both), `${early}\n${other}\ngo\n`, "each named once, after it was drawn, then go");
    for (const f of [early, other]) assert.equal(fs.readFileSync(f, "utf8"), fs.readFileSync(plainFile, "utf8"), f);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
