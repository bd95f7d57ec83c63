/**
 * Post-pass over executed notebooks: add `image/png` + `text/plain` to every plotly output, drawn by
 * plotly.js in ONE headless Chromium for the whole run, so the figures show in nbconvert HTML,
 * nbviewer and GitHub too. Notebooks are rewritten in place (atomically).
 *
 * Usage: tsx scripts/add-static-figures.ts [--chromium PATH] [--scale 1] [--wait [--announce-fd N]] NOTEBOOK.ipynb|DIR ...
 * Without a usable Chromium it keeps the interactive outputs, prints one line and exits 0.
 * --wait: start the browser and load plotly.js first, then wait for a line "go" on stdin before
 * reading the notebooks (the main command starts it while the notebooks run); a line naming a notebook
 * file before that draws that one at once (the runner names each as it is written); stdin closing
 * without "go" ends it without touching any other.
 * --announce-fd N (with --wait): names each notebook on file descriptor N once it is final (drawn, or
 * without figures), then "go" once every one is (scripts/stdin-go.ts): the report starts on a
 * notebook while the others still run. Nothing more is written there when the run stopped.
 * Chromium: the project's own, unpacked by the set-up (lib/display/bundled-chromium.ts), else a system one
 * (`apt-get install -y chromium`); or set CHROMIUM_PATH / --chromium.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { parseArgs } from "node:util";
import {
  chromiumCandidates,
  findChromium,
  openPlotlyRenderer,
  parseNotebook,
  plotlyOutputs,
  serializeNotebook,
  withStaticImages,
  type Notebook,
  type PlotlyRenderer,
} from "../lib/display";
import { goSignal } from "./stdin-go";

const NAME = "add-static-figures";

function notebookFiles(inputs: string[]): string[] {
  const files: string[] = [];
  for (const input of inputs) {
    if (!fs.existsSync(input)) throw new Error(`invalid notebook: ${input} (no such file or folder)`);
    if (fs.statSync(input).isDirectory()) {
      for (const f of fs.readdirSync(input).sort()) if (f.endsWith(".ipynb")) files.push(path.join(input, f));
    } else files.push(input);
  }
  return files;
}

/** Names final notebooks on a file descriptor (--announce-fd), each once, then "go"; a no-op without one. */
function announcer(fd: string | undefined): { file(file: string): void; finish(files: readonly string[]): void } {
  const n = fd === undefined ? null : Number(fd);
  if (n !== null && !(Number.isInteger(n) && n > 2)) throw new Error(`invalid announce-fd: ${fd} (a file descriptor above 2)`);
  const named = new Set<string>();
  const file = (f: string) => {
    if (n === null || named.has(path.resolve(f))) return;
    named.add(path.resolve(f));
    fs.writeSync(n, `${path.resolve(f)}\n`);
  };
  return {
    file,
    finish(files) {
      for (const f of files) file(f);
      if (n !== null) fs.writeSync(n, "go\n");
    },
  };
}

function writeAtomic(file: string, text: string): void {
  const tmp = `${file}.tmp-${process.pid}`;
  fs.writeFileSync(tmp, text);
  fs.renameSync(tmp, file);
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    options: {
      chromium: { type: "string" },
      scale: { type: "string", default: "1" },
      wait: { type: "boolean", default: false },
      "announce-fd": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
    allowPositionals: true,
  });
  if (values.help || positionals.length === 0) {
    console.log(`usage: ${NAME}.ts [--chromium PATH] [--scale N] [--wait [--announce-fd N]] NOTEBOOK.ipynb|DIR ...`);
    return values.help ? 0 : 2;
  }
  const scale = Number(values.scale);
  if (!Number.isFinite(scale) || scale <= 0) throw new Error(`invalid scale: ${values.scale}`);
  const announce = announcer(values.wait ? values["announce-fd"] : undefined);

  const read = () => {
    const files = notebookFiles(positionals);
    const notebooks: { file: string; nb: Notebook; figures: number }[] = files.map((file) => {
      const nb = parseNotebook(fs.readFileSync(file, "utf8"), file);
      return { file, nb, figures: plotlyOutputs(nb, file).length };
    });
    return { files, notebooks, total: notebooks.reduce((n, x) => n + x.figures, 0) };
  };
  const nothingToDo = (count: number) => {
    console.log(`${NAME}: no plotly outputs in ${count} notebook(s); nothing to do`);
    return 0;
  };
  let input = values.wait ? null : read();
  if (input && input.total === 0) return nothingToDo(input.files.length);

  // The one browser of this run. Missing or failing to start: a warning, not a failure.
  const explicit = values.chromium ?? process.env.CHROMIUM_PATH;
  const executable = explicit ? findChromium([explicit]) : findChromium();
  const skip = async (why: string) => {
    if (values.wait && !(await goSignal())) return 0;
    input ??= read();
    announce.finish(input.files);
    if (input.total === 0) return nothingToDo(input.files.length);
    console.log(
      `${NAME}: static images skipped (${why}); the ${input.total} plotly figure(s) stay interactive-only (npm run setup unpacks the project's Chromium; or apt-get install -y chromium)`,
    );
    return 0;
  };
  if (!executable) return skip(`no Chromium at ${explicit ?? (chromiumCandidates().join(", ") || "nowhere: CHROMIUM_CANDIDATES is empty")}`);
  let renderer: PlotlyRenderer;
  try {
    renderer = await openPlotlyRenderer({ executablePath: executable, scale });
  } catch (err) {
    return skip(`${executable} did not start: ${String((err as Error).message).split("\n")[0]}`);
  }
  const { launchMs, plotlyMs } = renderer.startup;
  console.log(
    `${NAME}: Chromium ${renderer.browserVersion} ready in ${seconds(launchMs + plotlyMs)} (launch ${seconds(launchMs)}, plotly.js ${seconds(plotlyMs)})`,
  );
  const times: number[] = [];
  let warnings = 0;
  let drawn = 0;
  const done = new Set<string>();
  /** Adds the images to one notebook and rewrites it; each notebook once. */
  const draw = async (file: string, nb: Notebook, figures: number) => {
    const key = path.resolve(file);
    if (done.has(key)) return;
    done.add(key);
    if (figures === 0) return announce.file(file);
    const t0 = Date.now();
    const { notebook } = await withStaticImages(
      nb,
      async (fig, ref) => {
        const image = await renderer.render(fig);
        times.push(image.ms);
        for (const w of image.warnings) {
          warnings++;
          console.log(`${NAME}: warning: ${file}: cell ${ref.cell}, output ${ref.output} ("${ref.title}"): ${w}`);
        }
        return image;
      },
      file,
    );
    writeAtomic(file, serializeNotebook(notebook));
    drawn++;
    announce.file(file);
    console.log(`${NAME}: ${file}: ${figures} figure(s) in ${seconds(Date.now() - t0)}`);
  };
  try {
    if (values.wait) {
      // Notebooks named on stdin before "go" are drawn as they come, while the others still run.
      let early: Promise<void> = Promise.resolve();
      const go = await goSignal((file) => {
        early = early.then(() => {
          const nb = parseNotebook(fs.readFileSync(file, "utf8"), file);
          return draw(file, nb, plotlyOutputs(nb, file).length);
        });
      });
      await early;
      if (!go) {
        console.log(`${NAME}: no go on stdin; ${done.size ? `${done.size} notebook(s) drawn early, no others` : "nothing done"}`);
        return 0;
      }
    }
    input ??= read();
    for (const { file, nb, figures } of input.notebooks) await draw(file, nb, figures);
    announce.finish(input.files);
  } finally {
    await renderer.close();
  }
  if (times.length === 0) return nothingToDo(done.size);
  const mean = times.reduce((a, b) => a + b, 0) / times.length;
  console.log(
    `${NAME}: ${times.length} figure(s) in ${drawn} notebook(s), ` +
      `${Math.round(mean)} ms per figure (max ${Math.max(...times)} ms)${warnings ? `, ${warnings} warning(s)` : ""}`,
  );
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(`${NAME}: ${(err as Error).message}`);
    process.exit(1);
  },
);
