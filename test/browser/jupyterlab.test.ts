/**
 * The workspace in a real JupyterLab, started with the user's command (`npm run lab -- <options>`,
 * nothing added: as root, scripts/lab.sh itself must pass --allow-root): it serves the lab on
 * 127.0.0.1, lists the project kernel and serves the project's settings defaults (no news prompt, no
 * update check); a copy of notebook 04 opened in headless Chromium runs all its cells
 * on `slime-diagnostics-ts` (menu Run > Run All Cells), no cell writes to stderr (tslab's only error
 * channel) and every plotly output is drawn by JupyterLab's plotly renderer; saved over the source
 * notebook, the run notebook is written clean (the save hook, jupyter/clean_on_save.py).
 * Data: a temp copy of data/ (WORKSPACE_DATA, inherited by the kernel). The notebook copy lives in the
 * git-ignored tmp/ so the real notebook is never saved. Screenshots go to screenshots/ (git-ignored).
 * Skipped with a message without the venv's jupyter; the browser part also without Chromium.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { chromium, type BrowserContext, type ElementHandle, type Page } from "playwright-core";
import { CHROMIUM_FLAGS, findChromium } from "../../lib/display/plotly-renderer";
import { copyDataFolder, startLab, type Lab } from "./lab-server";

/** How long a kernel may take to start and go idle. */
const KERNEL_START_MS = 300_000;
const ROOT = path.resolve(__dirname, "../..");
const JUPYTER = path.join(ROOT, ".venv/bin/jupyter");
const SCREENSHOTS = path.join(ROOT, "screenshots");
const NOTEBOOK = "notebooks/04-response-length-throughput.ipynb";
const KERNEL = "slime-diagnostics-ts";
const PLOTLY_MIME = "application/vnd.plotly.v1+json";
const NOTIFICATION_PLUGIN = "@jupyterlab/apputils-extension:notification";
const executable = findChromium();
const skip = !fs.existsSync(JUPYTER) ? `no ${JUPYTER} (run scripts/setup.sh)` : false;
const skipBrowser = !executable ? "no Chromium (apt-get install -y chromium)" : false;

interface KernelSpecs {
  kernelspecs: Record<string, { spec: { display_name: string; language: string } }>;
}

/** What the lab's notebook model says about one code cell. */
interface CellState {
  index: number;
  count: number | null;
  state: string;
  stderr: string;
  plotly: number[];
  source: string;
}

/**
 * The code cells of the open notebook at `rel`, read from JupyterLab's own model (window.jupyterapp,
 * exposed by --LabApp.expose_app_in_browser as Galata does): with the default windowing only cells
 * near the viewport are in the DOM, so the DOM cannot say whether every cell ran.
 */
function codeCellStates(page: Page, rel: string): Promise<CellState[] | null> {
  return page.evaluate(
    ([rel, mime]) => {
      // Browser-side code uses `any`: the repo type-checks without the DOM lib on purpose.
      const app = (globalThis as any).jupyterapp;
      if (!app) return null;
      const panel = Array.from(app.shell.widgets("main") as Iterable<any>).find((w: any) => w.context?.path === rel);
      if (!panel?.content.model) return null;
      const cells = panel.content.model.cells;
      const out: CellState[] = [];
      for (let i = 0; i < cells.length; i++) {
        const c = cells.get(i);
        if (c.type !== "code") continue;
        const outputs = Array.from({ length: c.outputs.length }, (_, j) => c.outputs.get(j).toJSON());
        out.push({
          index: i,
          count: c.executionCount,
          state: c.executionState,
          stderr: outputs
            .filter((o: any) => o.output_type === "error" || (o.output_type === "stream" && o.name === "stderr"))
            .map((o: any) => (o.output_type === "error" ? `${o.ename}: ${o.evalue}` : [].concat(o.text).join("")))
            .join(""),
          plotly: outputs.map((o: any, j: number) => (o.data?.[mime] ? j : -1)).filter((j: number) => j >= 0),
          source: String(c.sharedModel.getSource()).slice(0, 160),
        });
      }
      return out;
    },
    [rel, PLOTLY_MIME] as const,
  );
}

describe("JupyterLab (npm run lab) with the project kernel and settings, in headless Chromium", { skip }, () => {
  let lab: Lab | null = null;
  let context: BrowserContext | null = null;
  const temps: string[] = [];
  let createdTmpRoot: string | null = null;
  let notebookRel = "";
  const t0 = Date.now();
  const timings: Record<string, number> = {};
  const mark = (name: string, since: number) => (timings[name] = Date.now() - since);

  before(async () => {
    const dataTmp = fs.mkdtempSync(path.join(os.tmpdir(), "lab-browser-data-"));
    temps.push(dataTmp);
    const dataDir = copyDataFolder(ROOT, dataTmp);
    // The lab serves the workspace root; the copy goes to the git-ignored tmp/ so the source
    // notebook is never autosaved or checkpointed.
    const tmpRoot = path.join(ROOT, "tmp");
    if (!fs.existsSync(tmpRoot)) {
      fs.mkdirSync(tmpRoot);
      createdTmpRoot = tmpRoot;
    }
    const served = fs.mkdtempSync(path.join(ROOT, "tmp", "lab-browser-"));
    temps.push(served);
    // Cleared of counts and outputs, so whatever the lab shows after Run All comes from this run.
    const nb = JSON.parse(fs.readFileSync(path.join(ROOT, NOTEBOOK), "utf8"));
    for (const cell of nb.cells) if (cell.cell_type === "code") Object.assign(cell, { execution_count: null, outputs: [] });
    fs.writeFileSync(path.join(served, path.basename(NOTEBOOK)), JSON.stringify(nb, null, 1) + "\n");
    notebookRel = path
      .relative(ROOT, path.join(served, path.basename(NOTEBOOK)))
      .split(path.sep)
      .join("/");
    const s = Date.now();
    lab = await startLab({ root: ROOT, env: { WORKSPACE_DATA: dataDir }, args: ["--LabApp.expose_app_in_browser=True"] });
    mark("labStartMs", s);
  });

  after(async () => {
    // Browser first (it holds the kernel's websocket), then the server and its kernels, then files.
    if (context) await context.close().catch(() => undefined);
    if (lab) await lab.stop();
    for (const dir of temps) fs.rmSync(dir, { recursive: true, force: true });
    if (createdTmpRoot && fs.readdirSync(createdTmpRoot).length === 0) fs.rmdirSync(createdTmpRoot);
    mark("totalMs", t0);
    console.log(`# jupyterlab test timings: ${JSON.stringify(timings)}`);
  });

  it("serves JupyterLab and lists the project kernel", async () => {
    assert.ok(lab);
    const specs = (await lab.api("/api/kernelspecs")) as KernelSpecs;
    assert.ok(specs.kernelspecs[KERNEL], `kernelspec ${KERNEL} missing; got ${Object.keys(specs.kernelspecs).join(", ")}`);
    assert.equal(specs.kernelspecs[KERNEL].spec.language, "typescript");
  });

  it("starts as root only by passing --allow-root itself, and says so; for other users it adds nothing", () => {
    assert.ok(lab);
    const said = /\[lab\] running as root: passing --allow-root to JupyterLab/.test(lab.log());
    assert.equal(said, process.getuid?.() === 0, `uid ${process.getuid?.()}, server log:\n${lab.log()}`);
  });

  it("serves the project's settings defaults: never fetch Jupyter news (no prompt), no update check", async () => {
    assert.ok(lab);
    const settings = (await lab.api(`/lab/api/settings/${NOTIFICATION_PLUGIN}`)) as {
      schema: { properties: Record<string, { default?: unknown }> };
    };
    assert.equal(settings.schema.properties.fetchNews.default, "false");
    assert.equal(settings.schema.properties.checkForUpdates.default, false);
  });

  it("runs all cells of notebook 04 on the project kernel: no stderr, every plotly figure drawn", { skip: skipBrowser, timeout: 150_000 }, async () => {
    assert.ok(lab && executable);
    const profile = fs.mkdtempSync(path.join(os.tmpdir(), "lab-browser-chromium-"));
    temps.push(profile);
    let s = Date.now();
    context = await chromium.launchPersistentContext(profile, {
      executablePath: executable,
      headless: true,
      args: CHROMIUM_FLAGS.slice(),
      viewport: { width: 1400, height: 1000 },
    });
    mark("browserStartMs", s);
    // Only the lab itself may be asked for anything.
    const offHost: string[] = [];
    await context.route("**/*", (route) => {
      const url = new URL(route.request().url());
      if (url.hostname === "127.0.0.1" || url.protocol === "data:" || url.protocol === "blob:") return route.continue();
      offHost.push(url.href);
      return route.abort();
    });
    const page = context.pages()[0] ?? (await context.newPage());
    const pageErrors: string[] = [];
    page.on("pageerror", (e) => pageErrors.push(e.message));

    s = Date.now();
    await page.goto(`${lab.url}/lab/tree/${notebookRel}?token=${lab.token}`);
    const panel = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden)");
    await panel.locator(".jp-Notebook .jp-Cell").first().waitFor({ state: "visible", timeout: 60_000 });
    mark("notebookVisibleMs", s);
    // The notebook's metadata names the kernel: the lab starts it without a dialog.
    const specs = (await lab.api("/api/kernelspecs")) as KernelSpecs;
    const display = specs.kernelspecs[KERNEL].spec.display_name;
    let session: { path: string; kernel: { name: string; execution_state: string } | null } | undefined;
    // A tslab kernel compiles the workspace on start: under a load average above the core count it
    // takes minutes (the notebook tests allow 300 s for the same start).
    const kernelDeadline = Date.now() + KERNEL_START_MS;
    for (;;) {
      const sessions = (await lab.api("/api/sessions")) as (typeof session)[];
      session = sessions.find((x) => x?.path === notebookRel);
      if (session?.kernel?.execution_state === "idle") break;
      if (Date.now() > kernelDeadline)
        assert.fail(`no idle kernel for ${notebookRel} after ${KERNEL_START_MS / 1000} s; sessions: ${JSON.stringify(sessions)}`);
      await page.waitForTimeout(250);
    }
    assert.equal(session.kernel?.name, KERNEL);
    await panel.locator(".jp-Toolbar-kernelName", { hasText: display }).waitFor({ timeout: 30_000 });
    await panel.locator('.jp-Notebook-ExecutionIndicator[data-status="idle"]').waitFor({ timeout: 30_000 });
    mark("pageAndKernelReadyMs", s);
    const initial = await codeCellStates(page, notebookRel);
    assert.ok(initial && initial.length > 0, "the lab's model of notebook 04 has no code cell");
    assert.ok(
      initial.every((c) => c.count === null && c.plotly.length === 0),
      "the notebook copy starts unexecuted",
    );

    // Run > Run All Cells, through the real menu.
    s = Date.now();
    await page.locator(".lm-MenuBar-item", { hasText: /^Run$/ }).click();
    await page.locator('.lm-Menu-item[data-command="runmenu:run-all"]').click();
    // Done: no cell queued or running, and every cell numbered or one failed (after a failure the
    // lab marks the cells it will not run idle, unnumbered).
    let cells: CellState[] = [];
    const deadline = Date.now() + 120_000;
    for (;;) {
      cells = (await codeCellStates(page, notebookRel)) ?? [];
      const settled = cells.length > 0 && cells.every((c) => c.state !== "running");
      if (settled && (cells.every((c) => c.count !== null) || cells.some((c) => c.stderr !== ""))) break;
      if (Date.now() > deadline) assert.fail(`Run All did not finish in 120 s: ${JSON.stringify(cells)}`);
      await page.waitForTimeout(250);
    }
    mark("runAllMs", s);
    fs.mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: path.join(SCREENSHOTS, "jupyterlab-04-after-run-all.png") });

    const failed = cells.filter((c) => c.stderr !== "");
    assert.deepEqual(
      failed.map((c) => `cell ${c.index} [${c.source}]:\n${c.stderr}`),
      [],
      "cells wrote to stderr",
    );
    const unrun = cells.filter((c) => c.count === null);
    assert.deepEqual(
      unrun.map((c) => `cell ${c.index}`),
      [],
      "code cells without an execution count",
    );

    // Every plotly output is drawn: its cell scrolled into view (the lab attaches only cells near
    // the viewport), it holds a plotly graph whose main svg has a real size and draws traces.
    s = Date.now();
    let figures = 0;
    for (const cell of cells.filter((c) => c.plotly.length > 0)) {
      await page.evaluate(
        async ([rel, index]) => {
          const app = (globalThis as any).jupyterapp;
          const p = Array.from(app.shell.widgets("main") as Iterable<any>).find((w: any) => w.context?.path === rel);
          await p.content.scrollToItem(index, "start");
        },
        [notebookRel, cell.index] as const,
      );
      for (const j of cell.plotly) {
        figures++;
        const output = (await page.waitForFunction(
          ([rel, index, j]) => {
            const app = (globalThis as any).jupyterapp;
            const p = Array.from(app.shell.widgets("main") as Iterable<any>).find((w: any) => w.context?.path === rel);
            const node = p.content.widgets[index].node;
            const out = node.isConnected ? node.querySelectorAll(".jp-OutputArea-child")[j] : null;
            return out?.querySelector(".js-plotly-plot .plot-container .main-svg") ? out : null;
          },
          [notebookRel, cell.index, j] as const,
          { timeout: 30_000, polling: 200 },
        )) as ElementHandle;
        await output.scrollIntoViewIfNeeded();
        const drawn = await output.evaluate((o: any) => {
          const r = o.querySelector(".js-plotly-plot .main-svg").getBoundingClientRect();
          return { width: Math.round(r.width), height: Math.round(r.height), traces: o.querySelectorAll(".js-plotly-plot .main-svg .trace").length };
        });
        assert.ok(
          drawn.width > 300 && drawn.height > 200 && drawn.traces > 0,
          `cell ${cell.index} output ${j}: plotly figure not drawn: ${JSON.stringify(drawn)}`,
        );
        await output.screenshot({ path: path.join(SCREENSHOTS, `jupyterlab-04-figure-${figures}.png`) });
      }
    }
    mark("figuresCheckMs", s);
    timings.codeCells = cells.length;
    timings.plotlyFigures = figures;
    assert.ok(figures >= 1, "notebook 04 produced no plotly output");
    // The news question is a notification that stays until answered: after a whole Run All it would be on the page.
    assert.equal(await page.getByText("official Jupyter news").count(), 0, "JupyterLab asked about Jupyter news");
    assert.deepEqual(pageErrors, [], "page errors in JupyterLab");
    assert.deepEqual(offHost, [], "the lab page asked for something off 127.0.0.1 (blocked)");
  });

  it("saving the run notebook over its source (as autosave does) writes it clean: the source stays byte-identical; the copy in tmp/ keeps its outputs", {
    skip: skipBrowser,
    timeout: 60_000,
  }, async (t) => {
    assert.ok(lab && context, "the Run All test ran first");
    const page = context.pages()[0];
    const source = path.join(ROOT, NOTEBOOK);
    const before = fs.readFileSync(source);
    const checkpoints = path.join(ROOT, "notebooks", ".ipynb_checkpoints");
    const hadCheckpoints = fs.existsSync(checkpoints);
    t.after(() => {
      // Whatever the hook did, the source goes back to its bytes.
      fs.writeFileSync(source, before);
      if (!hadCheckpoints) fs.rmSync(checkpoints, { recursive: true, force: true });
    });
    // The lab's own client saves the open notebook's model (every output of the Run All) to both paths.
    const outputs = await page.evaluate(
      async ([rel, target]) => {
        const app = (globalThis as any).jupyterapp;
        const p = Array.from(app.shell.widgets("main") as Iterable<any>).find((w: any) => w.context?.path === rel);
        const content = p.context.model.toJSON();
        for (const to of [target, rel]) await app.serviceManager.contents.save(to, { type: "notebook", format: "json", content });
        return content.cells.reduce((n: number, c: any) => n + (c.outputs?.length ?? 0), 0);
      },
      [notebookRel, NOTEBOOK] as const,
    );
    assert.ok(outputs > 10, `the run notebook holds ${outputs} outputs`);
    const saved = fs.readFileSync(source);
    assert.ok(saved.equals(before), `${NOTEBOOK} changed on save:\n${saved.toString("utf8").slice(0, 400)}`);
    const copy = JSON.parse(fs.readFileSync(path.join(ROOT, notebookRel), "utf8")) as { cells: { outputs?: unknown[] }[] };
    assert.equal(
      copy.cells.reduce((n, c) => n + (c.outputs?.length ?? 0), 0),
      outputs,
      "a notebook outside notebooks/ is saved as it is",
    );
  });
});
