/**
 * The HTML report of real TRL, verl and OpenRLHF runs (test/fixtures/real-runs/, written by the
 * frameworks' own code) in headless Chromium, as a reader of that framework sees it: notebooks 03 and
 * 04 (the round tables and the per-record figures) executed on each run's frozen archive, the
 * interactive report drawn by plotly.js, then read from the DOM. No `NaN` cell (these runs log no
 * non-finite value, so a NaN could only be an unlogged concept), no internal concept id in any output,
 * x axes titled by the framework's own record and step key (never slime's rollout/step), and every
 * figure's title, axis titles and legend inside the figure and clear of each other (bounding boxes).
 * Screenshots in screenshots/ (git-ignored). Skipped with a message without Chromium or the venv.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import { chromium } from "playwright-core";

import { fetchAndFreeze } from "../../lib/archive/fetch-and-freeze";
import { CHROMIUM_FLAGS, findChromium, plotlyJsPath } from "../../lib/display/plotly-renderer";
import { CONCEPTS } from "../../lib/registry/concepts";
import { profileByName, recordAxisTitle } from "../../lib/registry/profiles";
import { fixtureCases } from "../real-runs/own-record";

const ROOT = path.resolve(__dirname, "../..");
const PY = path.join(ROOT, ".venv/bin/python");
const FIXTURES = path.join(ROOT, "test/fixtures/real-runs");
const SCREENSHOTS = path.join(ROOT, "screenshots");
const NOTEBOOKS = ["03-policy-diagnostics", "04-response-length-throughput"];
/** One short real run per framework: [framework, case]. */
const RUNS: [string, string][] = [
  ["trl", "grpo-log1"],
  ["verl", "plain"],
  ["openrlhf", "plain"],
];
const executable = findChromium();
const skip = !executable
  ? "no Chromium (apt-get install -y chromium)"
  : !fs.existsSync(PY)
    ? `no ${PY} (run scripts/setup.sh)`
    : !fs.existsSync(FIXTURES)
      ? "real-run fixtures absent (test/fixtures/real-runs)"
      : false;

/** Concept ids written as code (camelCase): what a page must never show a reader. */
const INTERNAL_IDS = Object.keys(CONCEPTS).filter((id) => /[A-Z]/.test(id));

/** Freeze the case's first round into `dir` (its .wandb log, as a fetch of that run would). */
async function freeze(framework: string, name: string, dir: string): Promise<void> {
  const c = fixtureCases(FIXTURES).find((x) => x.framework === framework && x.case === name)!;
  const r = c.rounds[0];
  await fetchAndFreeze({
    entity: "",
    project: "",
    runs: [{ runId: r.wandbRunId, round: "R0", file: path.join(c.dir, r.wandbFile) }],
    outDir: dir,
    env: {},
    now: () => new Date("2026-12-01T00:00:00.000Z"),
  });
}

/** Execute notebooks 03 and 04 on one archive into `out`, each executed copy renamed `<framework>-<notebook>`. */
function executeNotebooks(framework: string, archive: string, tmp: string, out: string): void {
  const executed = path.join(tmp, `${framework}-executed`);
  const env = { ...process.env, WORKSPACE_DATA: archive, WORKSPACE_EXPORTS: path.join(tmp, `${framework}-exports`), TZ: "UTC" };
  const nbs = NOTEBOOKS.map((n) => path.join(ROOT, "notebooks", `${n}.ipynb`));
  const run = spawnSync(PY, [path.join(ROOT, "scripts/run-notebooks.py"), "--jobs", "2", "--out", executed, ...nbs], { cwd: ROOT, env, encoding: "utf8" });
  assert.equal(run.status, 0, `${framework}: ${run.stdout}\n${run.stderr}`);
  for (const n of NOTEBOOKS) fs.copyFileSync(path.join(executed, `${n}.ipynb`), path.join(out, `${framework}-${n}.ipynb`));
}

/** What a page shows, read in the browser: table cells, output text, axis titles and layout problems. */
interface PageSeen {
  nanCells: number;
  outputText: string;
  xTitles: string[];
  figures: number;
  layoutProblems: string[];
}

/** Runs in the page (DOM types are not part of this repo's type-check: `any`). */
function readPage(): PageSeen {
  const doc = (globalThis as any).document;
  const outputs = Array.from(doc.querySelectorAll(".jp-OutputArea-output") as ArrayLike<any>);
  const nanCells = outputs
    .flatMap((o: any) => Array.from(o.querySelectorAll("td") as ArrayLike<any>))
    .filter((td: any) => td.textContent.trim() === "NaN").length;
  const figures = Array.from(doc.querySelectorAll(".workspace-figure-interactive") as ArrayLike<any>);
  const layoutProblems: string[] = [];
  const xTitles: string[] = [];
  for (const div of figures) {
    const name = (div.querySelector(".gtitle")?.textContent as string | undefined) ?? div.closest(".workspace-figure").dataset.title;
    const box = div.querySelector(".main-svg").getBoundingClientRect();
    const parts = [".gtitle", ".g-xtitle", ".g-ytitle", ".legend"]
      .flatMap((sel) =>
        Array.from(div.querySelectorAll(sel) as ArrayLike<any>).map((e: any) => ({ sel, r: e.getBoundingClientRect(), text: e.textContent as string })),
      )
      .filter((p) => p.r.width > 0 && p.r.height > 0);
    for (const p of parts) if (p.sel === ".g-xtitle") xTitles.push(p.text);
    for (const p of parts) {
      if (p.r.left < box.left - 1 || p.r.right > box.right + 1 || p.r.top < box.top - 1 || p.r.bottom > box.bottom + 1)
        layoutProblems.push(
          `${name}: ${p.sel} "${p.text}" clipped (${Math.round(p.r.left)}..${Math.round(p.r.right)} in ${Math.round(box.left)}..${Math.round(box.right)})`,
        );
    }
    parts.forEach((a, i) =>
      parts.slice(i + 1).forEach((b) => {
        const apart = a.r.right <= b.r.left || b.r.right <= a.r.left || a.r.bottom <= b.r.top || b.r.bottom <= a.r.top;
        if (!apart) layoutProblems.push(`${name}: ${a.sel} "${a.text}" overlaps ${b.sel} "${b.text}"`);
      }),
    );
  }
  // Text a reader sees: every text node of the outputs on its own (adjacent cells must not run together
  // into one word), without the figures' embedded JSON (a script), with what plotly drew.
  const text: string[] = [];
  for (const o of outputs) {
    const walk = doc.createTreeWalker(o, 4 /* NodeFilter.SHOW_TEXT */);
    for (let n = walk.nextNode(); n !== null; n = walk.nextNode()) if (n.parentElement.tagName !== "SCRIPT") text.push(n.data as string);
  }
  return { nanCells, outputText: text.join("\n"), xTitles, figures: figures.length, layoutProblems };
}

test("the report of a real TRL, verl and OpenRLHF run: no NaN for an unlogged concept, no internal id, axes named by the framework, no clipped or overlapping title", {
  skip,
  timeout: 600_000,
}, async (t) => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "report-frameworks-"));
  t.after(() => fs.rmSync(tmp, { recursive: true, force: true }));
  const notebooks = path.join(tmp, "notebooks");
  fs.mkdirSync(notebooks);
  for (const [framework, name] of RUNS) {
    const archive = path.join(tmp, `${framework}-archive`);
    await freeze(framework, name, archive);
    executeNotebooks(framework, archive, tmp, notebooks);
  }
  const report = path.join(tmp, "report");
  const html = spawnSync(process.execPath, ["--import", "tsx", path.join(ROOT, "scripts/html-report.ts"), notebooks, report, "--interactive"], {
    cwd: ROOT,
    encoding: "utf8",
  });
  assert.equal(html.status, 0, html.stderr);

  const profileDir = fs.mkdtempSync(path.join(os.tmpdir(), "report-frameworks-chromium-"));
  const context = await chromium.launchPersistentContext(profileDir, {
    executablePath: executable as string,
    headless: true,
    args: CHROMIUM_FLAGS.slice(),
    viewport: { width: 1200, height: 900 },
  });
  t.after(async () => {
    await context.close();
    fs.rmSync(profileDir, { recursive: true, force: true });
  });
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  for (const [framework] of RUNS) {
    const profile = profileByName(framework);
    for (const n of NOTEBOOKS) {
      const file = `${framework}-${n}`;
      await page.goto(pathToFileURL(path.join(report, `${file}.html`)).href, { waitUntil: "load" });
      const expected = await page.$$eval(".workspace-figure", (els: any[]) => els.length);
      await page.waitForFunction(
        (count) => (globalThis as any).document.querySelectorAll(".workspace-figure-interactive .main-svg").length >= count,
        expected,
        {
          timeout: 60_000,
        },
      );
      const seen = await page.evaluate(readPage);
      t.diagnostic(`${file}: ${seen.figures} figures, x axes ${[...new Set(seen.xTitles)].join(" | ")}`);
      await page.screenshot({ path: path.join(SCREENSHOTS, `report-${file}.png`), fullPage: true });
      assert.ok(seen.figures > 0, `${file}: figures drawn`);
      assert.equal(seen.nanCells, 0, `${file}: a NaN cell (these runs log no non-finite value)`);
      const ids = INTERNAL_IDS.filter((id) => new RegExp(`\\b${id}\\b`).test(seen.outputText));
      assert.deepEqual(ids, [], `${file}: internal concept ids on the page`);
      assert.ok(
        seen.xTitles.every((x) => !x.includes("rollout/step") && !x.includes("rollout batch")),
        `${file}: slime's axis on a ${profile.label} page: ${seen.xTitles.join(" | ")}`,
      );
      if (n.startsWith("03"))
        assert.ok(seen.xTitles.includes(recordAxisTitle(profile)), `${file}: x axis "${recordAxisTitle(profile)}" in ${seen.xTitles.join(" | ")}`);
      assert.deepEqual(seen.layoutProblems, [], `${file}: clipped or overlapping titles`);
    }
  }
  assert.deepEqual(errors, [], "no page error");
});

test("the page reader finds what it looks for: a NaN cell, an internal id, a title clipped by its figure", {
  skip: executable ? false : "no Chromium",
}, async (t) => {
  // A page shaped as the report's: an output with a table, and a figure plotly draws, both broken on purpose.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "report-reader-"));
  const fig = {
    data: [{ type: "scatter", x: [1, 2], y: [3, 4], name: "a series" }],
    layout: {
      title: { text: `${"a title far too long for its figure ".repeat(6)}end` },
      height: 300,
      margin: { l: 20, r: 20, t: 80, b: 30 },
      xaxis: { title: { text: "logged step" } },
      yaxis: { title: { text: "value" } },
    },
  };
  fs.writeFileSync(
    path.join(dir, "page.html"),
    `<!doctype html><html><body><div class="jp-OutputArea-output"><table><tr><td>NaN</td><td>actorTokPerS</td></tr></table></div>` +
      `<div class="workspace-figure" data-title="broken"><div class="workspace-figure-interactive" style="width:500px"></div></div>` +
      `<script src="${pathToFileURL(plotlyJsPath()).href}"></script>` +
      `<script>Plotly.newPlot(document.querySelector(".workspace-figure-interactive"), ${JSON.stringify(fig.data)}, ${JSON.stringify(fig.layout)}).then(() => { document.body.dataset.drawn = "1"; });</script></body></html>`,
  );
  const profileDir = fs.mkdtempSync(path.join(os.tmpdir(), "report-reader-chromium-"));
  const context = await chromium.launchPersistentContext(profileDir, { executablePath: executable as string, headless: true, args: CHROMIUM_FLAGS.slice() });
  t.after(async () => {
    await context.close();
    fs.rmSync(profileDir, { recursive: true, force: true });
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const page = await context.newPage();
  await page.goto(pathToFileURL(path.join(dir, "page.html")).href);
  await page.waitForSelector("body[data-drawn='1']", { timeout: 30_000 });
  const seen = await page.evaluate(readPage);
  assert.equal(seen.nanCells, 1);
  assert.deepEqual(
    INTERNAL_IDS.filter((id) => new RegExp(`\\b${id}\\b`).test(seen.outputText)),
    ["actorTokPerS"],
  );
  assert.deepEqual(seen.xTitles, ["logged step"]);
  assert.ok(
    seen.layoutProblems.some((p) => p.includes('.gtitle "a title far too long') && p.includes("clipped")),
    seen.layoutProblems.join("\n"),
  );
});
