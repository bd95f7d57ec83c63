/**
 * A fresh machine with no browser (issue 42): `npm start` still draws every figure as a static image
 * into the executed notebooks and the report, with the Chromium the set-up unpacks from the npm
 * package. Every system browser is hidden (CHROMIUM_CANDIDATES empty, CHROMIUM_PATH unset), apt is
 * off (WORKSPACE_APT=0), and the packaged one is unpacked into an empty folder of the test's
 * (BUNDLED_CHROMIUM_DIR), so only the set-up can have put it there. Runs the whole main command
 * (about half a minute on 2 cores). Where no browser can be had at all, the set-up says so in one line
 * with the command.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test } from "node:test";

import { bundledChromium } from "../../lib/display/bundled-chromium";
import { parseNotebook, plotlyOutputs } from "../../lib/display/notebook-static-images";

const ROOT = path.resolve(__dirname, "../..");
const noVenv = !fs.existsSync(path.join(ROOT, ".venv/bin/python")) && "no .venv (npm run setup)";

/** The environment of a machine without a browser: no system one, none named, no apt. */
function noBrowserEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, CHROMIUM_CANDIDATES: "", WORKSPACE_APT: "0", WORKSPACE_FETCH: "" };
  delete env.CHROMIUM_PATH;
  return { ...env, ...extra };
}

test("npm start with every system browser hidden: the set-up unpacks the packaged Chromium, and every figure is a static image in the executed notebooks and the report", {
  skip: noVenv || (!bundledChromium() && "no packaged Chromium for this platform (Linux x64 only)"),
  timeout: 600_000,
}, (t) => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "fresh-figures-"));
  t.after(() => fs.rmSync(tmp, { recursive: true, force: true }));
  const browserDir = path.join(tmp, "browser");
  const exportsDir = path.join(tmp, "exports");
  const env = noBrowserEnv({ BUNDLED_CHROMIUM_DIR: browserDir, WORKSPACE_EXPORTS: exportsDir });
  const r = spawnSync("bash", [path.join(ROOT, "scripts/main.sh")], { cwd: ROOT, env, encoding: "utf8" });
  const out = r.stdout + r.stderr;
  assert.equal(r.status, 0, out);
  assert.match(out, /^\[setup\] Chromium [\d.]+ for static figures, unpacked from @sparticuz\/chromium [\d.]+ \(once\)/m);
  assert.ok(fs.statSync(path.join(browserDir, "chromium")).mode & 0o100, "the unpacked browser is executable");
  assert.doesNotMatch(out, /static images skipped|without a static image|no static figure images/);
  assert.match(out, /add-static-figures: Chromium [\d.]+ ready/);

  // Every plotly output of every executed notebook carries its PNG.
  let figures = 0;
  const notebooks = fs.readdirSync(path.join(exportsDir, "notebooks")).filter((f) => f.endsWith(".ipynb"));
  assert.equal(notebooks.length, fs.readdirSync(path.join(ROOT, "notebooks")).filter((f) => /^\d.*\.ipynb$/.test(f)).length);
  for (const name of notebooks) {
    const file = path.join(exportsDir, "notebooks", name);
    const nb = parseNotebook(fs.readFileSync(file, "utf8"), file);
    for (const ref of plotlyOutputs(nb, file)) {
      figures++;
      const png = nb.cells[ref.cell].outputs?.[ref.output].data?.["image/png"];
      assert.equal(typeof png, "string", `${name}: cell ${ref.cell} ("${ref.title}") has no image/png`);
      // A PNG's signature, and an image of real size (a blank page would be a few hundred bytes).
      const bytes = Buffer.from(String(png), "base64");
      assert.equal(bytes.subarray(0, 8).toString("hex"), "89504e470d0a1a0a");
      assert.ok(bytes.length > 5_000, `${name}: cell ${ref.cell}: a PNG of ${bytes.length} bytes`);
    }
  }
  assert.ok(figures >= 20, `${figures} figures in the executed notebooks`);
  assert.match(out, new RegExp(`add-static-figures: ${figures} figure\\(s\\) in \\d+ notebook\\(s\\)`));

  // The report shows each as an <img> and its index says so, never "no static image".
  const pages = fs.readdirSync(path.join(exportsDir, "report")).filter((f) => f.endsWith(".html") && f !== "index.html");
  const images = pages.reduce(
    (n, p) => n + (fs.readFileSync(path.join(exportsDir, "report", p), "utf8").match(/<img [^>]*class="workspace-figure-static"/g) ?? []).length,
    0,
  );
  assert.equal(images, figures);
  const index = fs.readFileSync(path.join(exportsDir, "report", "index.html"), "utf8");
  assert.match(index, new RegExp(`${figures} figures, as static images\\.`));
  assert.doesNotMatch(index, /no static image|none drawn/);
});

test("with no browser to be had, the set-up says so in one line with the command, and does not fail", { skip: noVenv }, () => {
  const r = spawnSync("bash", [path.join(ROOT, "scripts/setup.sh")], {
    cwd: ROOT,
    env: noBrowserEnv({ CHROMIUM_PATH: path.join(os.tmpdir(), "no-such-chromium") }),
    encoding: "utf8",
  });
  assert.equal(r.status, 0, r.stdout + r.stderr);
  const lines = r.stderr.split("\n").filter((l) => /static figure/.test(l));
  assert.equal(lines.length, 1, r.stderr);
  assert.match(
    lines[0],
    /^\[setup\] no static figure images on this machine \(CHROMIUM_PATH=.*no-such-chromium is no executable file\): figures stay interactive-only; to draw them: apt-get install -y chromium \(as root\), or set CHROMIUM_PATH$/,
  );
});
