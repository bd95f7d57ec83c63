/**
 * The HTML report in a real browser: build executed-notebook fixtures, add static images, write the
 * report (static and --interactive), open every page in headless Chromium and check that every
 * figure renders, nothing logs a console error and no page requests anything off the disk.
 * Screenshots go to screenshots/ (git-ignored). Skipped with a message without Chromium or the venv.
 *
 * (The JupyterLab browser test, which opens the real notebooks in the lab, comes later with the kernel.)
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { chromium, type Page } from "playwright-core";
import { CHROMIUM_FLAGS, findChromium } from "../../lib/display/plotly-renderer";
import { serializeNotebook } from "../../lib/display/notebook-static-images";
import { FIXTURE_TITLES, notebookFixture } from "../display/notebook-fixture";

const ROOT = path.resolve(__dirname, "../..");
const JUPYTER = path.join(ROOT, ".venv/bin/jupyter");
const SCREENSHOTS = path.join(ROOT, "screenshots");
const executable = findChromium();
const skip = !executable ? "no Chromium (apt-get install -y chromium)" : !fs.existsSync(JUPYTER) ? `no ${JUPYTER} (run scripts/setup.sh)` : false;

function tsx(script: string, args: string[]): string {
  const run = spawnSync(process.execPath, ["--import", "tsx", path.join(ROOT, script), ...args], { cwd: ROOT, encoding: "utf8" });
  assert.equal(run.status, 0, `${script} failed:\n${run.stderr}\n${run.stdout}`);
  return run.stdout;
}

/** Console errors, page errors and off-disk requests of a page, collected while it is used. */
function watch(page: Page): string[] {
  const problems: string[] = [];
  page.on("console", (m) => m.type() === "error" && problems.push(`console error: ${m.text()}`));
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  page.on("requestfailed", (r) => problems.push(`request failed: ${r.url()} ${r.failure()?.errorText ?? ""}`));
  return problems;
}

test("HTML report: every figure renders, no console errors, no network", { skip }, async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "report-browser-"));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const nbDir = path.join(dir, "notebooks");
  fs.mkdirSync(nbDir);
  const names = ["01-first.ipynb", "02-second.ipynb"];
  names.forEach((name, i) => {
    const nb = notebookFixture();
    nb.cells[0].source = `# 0${i + 1} Fixture notebook ${i + 1}\nFigures for the report check.`;
    fs.writeFileSync(path.join(nbDir, name), serializeNotebook(nb));
  });
  tsx("scripts/add-static-figures.ts", [nbDir]);
  const reports = { static: path.join(dir, "report"), interactive: path.join(dir, "report-interactive") };
  tsx("scripts/html-report.ts", [nbDir, reports.static]);
  tsx("scripts/html-report.ts", [nbDir, reports.interactive, "--interactive"]);
  fs.mkdirSync(SCREENSHOTS, { recursive: true });

  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "report-chromium-"));
  const t0 = Date.now();
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: executable as string,
    headless: true,
    args: CHROMIUM_FLAGS.slice(),
    viewport: { width: 1200, height: 900 },
  });
  t.diagnostic(`browser start ${Date.now() - t0} ms`);
  t.after(async () => {
    await context.close();
    fs.rmSync(profile, { recursive: true, force: true });
  });
  // Anything not on disk is a failure: the report must work offline.
  const offDisk: string[] = [];
  await context.route("**/*", (route) => {
    const url = route.request().url();
    if (url.startsWith("file:") || url.startsWith("data:") || url.startsWith("about:")) return route.continue();
    offDisk.push(url);
    return route.abort();
  });

  for (const [mode, outDir] of Object.entries(reports)) {
    const page = await context.newPage();
    const problems = watch(page);

    await page.goto(pathToFileURL(path.join(outDir, "index.html")).href);
    const links = await page.$$eval("li a", (as: any[]) => as.map((a) => [a.textContent, a.getAttribute("href")]));
    assert.deepEqual(links, [
      ["01 Fixture notebook 1", "01-first.html"],
      ["02 Fixture notebook 2", "02-second.html"],
    ]);
    await page.screenshot({ path: path.join(SCREENSHOTS, `report-${mode}-index.png`), fullPage: true });

    for (const [, href] of links) {
      const t1 = Date.now();
      await page.goto(new URL(href as string, page.url()).href, { waitUntil: "load" });
      // Browser-side callbacks use `any`: the repo type-checks without the DOM lib on purpose.
      const images = await page.$$eval(".workspace-figure img", (imgs: any[]) =>
        imgs.map((img) => [img.alt, img.complete, img.naturalWidth, img.naturalHeight]),
      );
      assert.deepEqual(
        images,
        [
          [FIXTURE_TITLES[0], true, 900, 420],
          [FIXTURE_TITLES[1], true, 900, 420],
        ],
        `${mode} ${href}: a loaded PNG per figure`,
      );
      if (mode === "interactive") {
        await page.waitForFunction(() => (globalThis as any).document.querySelectorAll(".workspace-figure-interactive .main-svg").length >= 2, null, {
          timeout: 60_000,
        });
        const plots = await page.$$eval(".workspace-figure-interactive", (divs: any[]) =>
          divs.map((d) => {
            const r = d.getBoundingClientRect();
            const img = d.parentElement.querySelector("img");
            return [
              Math.round(r.width) > 300,
              Math.round(r.height),
              d.querySelectorAll(".scatterlayer .trace").length > 0,
              (globalThis as any).getComputedStyle(img).display,
            ];
          }),
        );
        assert.deepEqual(
          plots,
          [
            [true, 420, true, "none"],
            [true, 420, true, "none"],
          ],
          `${href}: live plots replace the PNGs`,
        );
      }
      t.diagnostic(`${mode} ${href}: figures visible ${Date.now() - t1} ms after navigation`);
      await page.screenshot({ path: path.join(SCREENSHOTS, `report-${mode}-${(href as string).replace(/\.html$/, "")}.png`), fullPage: true });
    }
    assert.deepEqual(problems, [], `${mode}: console errors / failed requests`);
    await page.close();
  }
  assert.deepEqual(offDisk, [], "no request left the disk");
});
