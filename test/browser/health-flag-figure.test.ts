/**
 * One health flag figure in a real browser: the entropy collapse of a real TRL run of the fault corpus
 * (trl-entropy-collapse-s2-k12, lr raised x30 at step 12) drawn by plotly.js in headless Chromium. The
 * reader must see what the flag was judged against: the dashed threshold, the shaded early window and
 * its dotted median, the fired value marked, the x axis named by the framework's records (not slime's).
 * Screenshot in screenshots/ (git-ignored). Skipped with a message without Chromium.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import { chromium } from "playwright-core";

import { loadCorpus } from "../../bench/detectors/corpus";
import { CHROMIUM_FLAGS, findChromium, plotlyJsPath } from "../../lib/display/plotly-renderer";
import { healthFlagFigure } from "../../lib/figures/health-flag-figure";
import { runHealthChecks } from "../../lib/health/run-health-checks";

const ROOT = path.resolve(__dirname, "../..");
const CORPUS = path.join(ROOT, "test/fixtures/real-runs/faults");
const executable = findChromium();
const skip = !executable ? "no Chromium (apt-get install -y chromium)" : !fs.existsSync(CORPUS) ? `no fault corpus (${CORPUS})` : false;

test("a TRL entropy collapse flag in Chromium: threshold, early window and fired value drawn, axes named by TRL's records", { skip }, async (t) => {
  const run = (await loadCorpus(CORPUS)).find((r) => r.label.id === "trl-entropy-collapse-s2-k12")!;
  const result = runHealthChecks(run.aligned).results.find((r) => r.check === "entropy_collapse")!;
  assert.equal(result.status, "flagged");
  const fig = healthFlagFigure(run.aligned, result);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "flag-figure-"));
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "flag-chromium-"));
  const html = path.join(dir, "figure.html");
  fs.writeFileSync(
    html,
    `<!doctype html><html><body><div id="fig" style="width:900px"></div><script src="${pathToFileURL(plotlyJsPath()).href}"></script>` +
      `<script>Plotly.newPlot("fig", ${JSON.stringify(fig.data)}, ${JSON.stringify(fig.layout)}).then(() => { document.body.dataset.drawn = "1"; });</script></body></html>`,
  );
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: executable as string,
    headless: true,
    args: CHROMIUM_FLAGS.slice(),
    viewport: { width: 960, height: 400 },
  });
  t.after(async () => {
    await context.close();
    fs.rmSync(profile, { recursive: true, force: true });
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(pathToFileURL(html).href);
  await page.waitForSelector("body[data-drawn='1']", { timeout: 30_000 });
  const seen = await page.evaluate(() => {
    const doc = (globalThis as any).document;
    const texts = Array.from(doc.querySelectorAll(".annotation-text, .gtitle, .g-xtitle, .g-ytitle") as ArrayLike<any>).map(
      (e: any) => e.textContent as string,
    );
    const dashes = Array.from(doc.querySelectorAll(".shapelayer path") as ArrayLike<any>).map((e: any) => e.style.strokeDasharray as string);
    const crosses = doc.querySelectorAll(".scatterlayer .trace:nth-child(2) .point").length as number;
    return { texts, dashes, crosses };
  });
  fs.mkdirSync(path.join(ROOT, "screenshots"), { recursive: true });
  await page.screenshot({ path: path.join(ROOT, "screenshots", "health-flag-trl-entropy.png") });
  assert.deepEqual(errors, []);
  const w = result.flags[0].window!;
  assert.ok(
    seen.texts.some((s) => s.startsWith("threshold ")),
    seen.texts.join(" | "),
  );
  assert.ok(seen.texts.includes(`early median ${Number(w.baseline!.value.toPrecision(4))}`), seen.texts.join(" | "));
  assert.ok(seen.texts.includes("logged step"), `x axis named by TRL's records: ${seen.texts.join(" | ")}`);
  assert.ok(!seen.texts.some((s) => s.includes("rollout batch")), "no slime axis title");
  // Two dashed lines at least: the threshold (dash) and the early median (dot); the fired value marked.
  assert.ok(seen.dashes.filter((d) => d !== "" && d !== "none").length >= 2, seen.dashes.join(" | "));
  assert.equal(
    seen.crosses,
    result.flags.reduce((n, f) => n + f.at.length, 0),
  );
});
