/**
 * Draw plotly figure specs to PNG in ONE headless Chromium: start the browser and load plotly.js
 * once (~4 s), then each figure costs tens of milliseconds. plotly.js needs a DOM, so this is the
 * only way to get a static image without a notebook frontend. playwright-core is required lazily so
 * importing lib/display in a notebook does not load it.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import type { BrowserContext, Page } from "playwright-core";
import type { Figure } from "../figures/figure";
import { bundledChromium } from "./bundled-chromium";

/** Flags for Debian's chromium in a container: no sandbox, no GPU, no network chatter, no first run UI. */
export const CHROMIUM_FLAGS: readonly string[] = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

/** A system's browsers (Debian's `chromium` package first); `CHROMIUM_CANDIDATES` (colon-separated, may be empty) replaces this list. */
export const SYSTEM_CHROMIUM: readonly string[] = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"];

/**
 * Where Chromium is looked for when no path is given: the project's own (the npm package the lock
 * file pins, unpacked by the set-up: the same browser, so the same images, on every machine, and it
 * starts faster than a full browser), then the system's.
 */
export function chromiumCandidates(env: NodeJS.ProcessEnv = process.env): string[] {
  const system = env.CHROMIUM_CANDIDATES !== undefined ? env.CHROMIUM_CANDIDATES.split(":").filter((p) => p !== "") : SYSTEM_CHROMIUM;
  const bundled = bundledChromium(env);
  return [...(bundled ? [bundled.executable] : []), ...system];
}

/** Static image size when the figure's layout does not set one. */
export const DEFAULT_IMAGE_SIZE = { width: 900, height: 450 } as const;

/** First candidate that exists as an executable file, or null. */
export function findChromium(candidates: readonly string[] = chromiumCandidates()): string | null {
  for (const candidate of candidates) {
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (fs.statSync(candidate).isFile()) return candidate;
    } catch {
      // not there: try the next one
    }
  }
  return null;
}

/** Path of plotly.js from the plotly.js-dist package. */
export function plotlyJsPath(): string {
  return require.resolve("plotly.js-dist/plotly.js");
}

/** Options of openPlotlyRenderer. */
export interface PlotlyRendererOptions {
  /** Chromium executable, e.g. from findChromium(). */
  executablePath: string;
  /** plotly.js bundle to inject. Default: plotlyJsPath(). */
  plotlyPath?: string;
  /** Pixel ratio of the PNG (2 = retina). Default 1. */
  scale?: number;
  /** Give up on one figure after this long. Default 60 000 ms. */
  timeoutMs?: number;
}

/** One drawn figure. */
export interface RenderedImage {
  /** PNG bytes as base64, without the `data:` prefix (as nbformat stores images). */
  base64: string;
  /** CSS pixel size the figure was drawn at (the PNG is `scale` times that). */
  width: number;
  height: number;
  /** Pixel ratio: the PNG is scale x (width, height) pixels. */
  scale: number;
  /** Wall time of this figure in ms. */
  ms: number;
  /** Console errors/warnings and blocked requests seen while drawing this figure. */
  warnings: string[];
}

/** A started browser with plotly.js loaded. */
export interface PlotlyRenderer {
  /** Chromium version string, e.g. "156.0.8078.114". */
  browserVersion: string;
  /** Start-up cost in ms: browser launch, and loading plotly.js into the page. */
  startup: { launchMs: number; plotlyMs: number };
  /** Draw a figure at its layout size (else DEFAULT_IMAGE_SIZE) and return the PNG. */
  render(fig: Figure): Promise<RenderedImage>;
  /** Close the browser and remove its profile folder. */
  close(): Promise<void>;
}

function positive(name: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0) throw new Error(`invalid ${name}: ${value}`);
  return value;
}

/** Size a figure is drawn at: its layout's width/height when set, else the defaults. */
export function imageSize(fig: Figure): { width: number; height: number } {
  const w = fig.layout.width;
  const h = fig.layout.height;
  return {
    width: typeof w === "number" && w > 0 ? w : DEFAULT_IMAGE_SIZE.width,
    height: typeof h === "number" && h > 0 ? h : DEFAULT_IMAGE_SIZE.height,
  };
}

/**
 * Start Chromium (fresh profile in a temp folder), open a blank local page and load plotly.js.
 * Every request other than that page, plotly.js and data:/about: URLs is blocked (and reported as a
 * warning of the figure), so drawing never reaches the network.
 */
export async function openPlotlyRenderer(options: PlotlyRendererOptions): Promise<PlotlyRenderer> {
  const scale = positive("scale", options.scale ?? 1);
  const timeoutMs = positive("timeoutMs", options.timeoutMs ?? 60_000);
  const plotlyPath = options.plotlyPath ?? plotlyJsPath();
  const t0 = Date.now();
  const { context, profile } = await launchChromium(options.executablePath);
  const close = async () => {
    await context.close().catch(() => undefined);
    fs.rmSync(profile, { recursive: true, force: true });
  };
  try {
    const launchMs = Date.now() - t0;
    const session = new PlotlySession(context, profile, plotlyPath);
    const plotlyMs = await session.load();
    const browserVersion = await session.browserVersion();
    return { browserVersion, startup: { launchMs, plotlyMs }, render: (fig) => session.render(fig, scale, timeoutMs), close };
  } catch (err) {
    await close();
    throw err;
  }
}

/** Headless Chromium on a fresh profile folder (removed again when the launch fails). */
async function launchChromium(executablePath: string | undefined): Promise<{ context: BrowserContext; profile: string }> {
  const { chromium } = await import("playwright-core");
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "plotly-chromium-"));
  try {
    const context = await chromium.launchPersistentContext(profile, { executablePath, headless: true, args: CHROMIUM_FLAGS.slice() });
    return { context, profile };
  } catch (err) {
    fs.rmSync(profile, { recursive: true, force: true });
    throw err;
  }
}

/** The page plotly.js draws in, and the warnings (blocked requests, console errors) of the figure being drawn. */
class PlotlySession {
  private warnings: string[] = [];
  private page: Page | null = null;

  constructor(
    private readonly context: BrowserContext,
    private readonly profile: string,
    private readonly plotlyPath: string,
  ) {}

  /** Opens the local page with plotly.js, network blocked; returns the milliseconds plotly.js took to load. */
  async load(): Promise<number> {
    const { context, plotlyPath } = this;
    // A page file next to the profile loads plotly.js by <script src>: ~3x faster than injecting the
    // 10 MB source through the DevTools protocol (addScriptTag).
    const pageFile = path.join(this.profile, "plotly-page.html");
    const pageUrl = pathToFileURL(pageFile).href;
    const plotlyUrl = pathToFileURL(path.resolve(plotlyPath)).href;
    fs.writeFileSync(pageFile, `<!DOCTYPE html><html><head><meta charset="utf-8"><script src="${plotlyUrl}"></script></head><body></body></html>`);
    await context.route("**/*", (route) => {
      const url = route.request().url();
      if (url === pageUrl || url === plotlyUrl || url.startsWith("data:") || url.startsWith("about:")) return route.continue();
      this.warnings.push(`blocked request: ${url}`);
      return route.abort();
    });
    const page: Page = context.pages()[0] ?? (await context.newPage());
    this.page = page;
    page.on("console", (msg) => {
      if (msg.type() === "error" || msg.type() === "warning") this.warnings.push(`console ${msg.type()}: ${msg.text()}`);
    });
    page.on("pageerror", (err) => this.warnings.push(`page error: ${err.message}`));
    const t1 = Date.now();
    await page.goto(pageUrl);
    if (!(await page.evaluate(() => typeof (globalThis as any).Plotly === "object"))) {
      throw new Error(`plotly.js did not load from ${plotlyPath}: ${this.warnings.join("; ") || "no message"}`);
    }
    return Date.now() - t1;
  }

  /** Chromium's full version: a persistent context has no Browser object, and the user agent hides the minor version, so CDP is asked. */
  async browserVersion(): Promise<string> {
    const cdp = await this.context.newCDPSession(this.openPage());
    const { product } = (await cdp.send("Browser.getVersion")) as { product: string };
    await cdp.detach();
    return /\/([\d.]+)$/.exec(product)?.[1] ?? product;
  }

  /** One figure as a PNG, with the warnings raised while drawing it. */
  async render(fig: Figure, scale: number, timeoutMs: number): Promise<RenderedImage> {
    const start = Date.now();
    this.warnings = [];
    const { width, height } = imageSize(fig);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`figure not drawn within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      const url = await Promise.race([drawInPage(this.openPage(), fig, width, height, scale), timeout]);
      const prefix = "data:image/png;base64,";
      if (!url.startsWith(prefix)) throw new Error(`plotly returned no PNG data URL (got ${url.slice(0, 40)}...)`);
      return { base64: url.slice(prefix.length), width, height, scale, ms: Date.now() - start, warnings: this.warnings.slice() };
    } finally {
      clearTimeout(timer);
    }
  }

  private openPage(): Page {
    if (this.page === null) throw new Error("invalid renderer: plotly.js is not loaded");
    return this.page;
  }
}

/** Draws a figure in the page and returns its PNG data URL (the callback runs in the page, where plotly.js is a global). */
function drawInPage(page: Page, fig: Figure, width: number, height: number, scale: number): Promise<string> {
  return page.evaluate(
    async ({ spec, width, height, scale }) => {
      const Plotly = (globalThis as any).Plotly;
      const div = (globalThis as any).document.createElement("div");
      (globalThis as any).document.body.appendChild(div);
      try {
        await Plotly.newPlot(div, spec.data, { ...spec.layout, width, height }, { staticPlot: true });
        return (await Plotly.toImage(div, { format: "png", width, height, scale })) as string;
      } finally {
        Plotly.purge(div);
        div.remove();
      }
    },
    { spec: fig as any, width, height, scale },
  );
}
