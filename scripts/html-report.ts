/**
 * HTML report of executed notebooks: one page per notebook (nbconvert, with the workspace's venv)
 * and an index.html linking them. Figures are visible without a kernel and without network.
 *
 * Usage: tsx scripts/html-report.ts [IN_DIR=exports/notebooks] [OUT_DIR=exports/report] [--interactive] [--manifest PATH]
 *
 * The index names the framework and the runs from the export manifest (default: $WORKSPACE_EXPORTS/manifest.json,
 * else IN_DIR/../manifest.json, where the export notebook writes it), or says it has none.
 *
 * Default (static): each plotly figure shows as its `image/png` (added by add-static-figures.ts);
 * a page is a few hundred KB, needs no JavaScript, and shows exactly what GitHub/nbviewer show.
 * --interactive: additionally inlines plotly.js ONCE per page that has figures (~10 MB per page)
 * and turns each figure into a live plot (hover, zoom) from its embedded plotly JSON; the PNG stays
 * as the fallback if scripts are blocked.
 * nbconvert's own CDN scripts (require.js, MathJax, mermaid) are left out, so a page makes no
 * network request (markdown math is therefore shown as written).
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import { parseNotebook, plotlyJsPath, plotlyOutputs, PLOTLY_MIME, type Notebook } from "../lib/display";
import { reportIndexHtml, reportSourceOf, type ReportPage } from "../lib/display/report-index";
import { healthSummaryFromNotebook } from "../lib/display/show-health";
import { goSignal } from "./stdin-go";

const NAME = "html-report";
/** The repository: scripts/.., also from scripts/prebuilt.cjs's bundle (under node_modules/.cache). */
const ROOT = repositoryOf(__dirname);

function repositoryOf(dir: string): string {
  for (let d = dir; ; d = path.dirname(d)) {
    if (fs.existsSync(path.join(d, "scripts", "report-pages.py"))) return d;
    if (path.dirname(d) === d) return path.resolve(dir, "..");
  }
}
const TEMPLATE_NAME = "workspace_report";

/** Marker the template leaves where the interactive mode inlines plotly.js. */
const PLOTLY_SLOT = "<!-- workspace-report: plotly.js -->";

/** nbconvert template: the lab template without CDN scripts, with figures as <img> (+ JSON when interactive). */
function templateText(interactive: boolean): string {
  return `{%- extends 'lab/index.html.j2' -%}
{#- Offline report page (written by scripts/html-report.ts): no CDN scripts; plotly outputs as their
    static image, titled with their text/plain. -#}
{%- block html_head_js_requirejs -%}{%- endblock html_head_js_requirejs -%}
{%- block html_head_js_mathjax -%}{%- endblock html_head_js_mathjax -%}
{%- block html_head_js_mermaidjs -%}{%- endblock html_head_js_mermaidjs -%}
{%- block data_priority scoped -%}
{%- if '${PLOTLY_MIME}' in output.data -%}
{%- set title = output.data.get('text/plain') or 'plotly figure' -%}
<div class="jp-RenderedImage jp-OutputArea-output workspace-figure" data-title="{{ title | escape_html }}">
{%- if 'image/png' in output.data %}
<img class="workspace-figure-static" alt="{{ title | escape_html }}" src="data:image/png;base64,{{ output.data['image/png'] | escape_html }}">
{%- else %}
<p class="workspace-figure-missing">Figure &ldquo;{{ title | escape_html }}&rdquo; has no static image: run scripts/add-static-figures.ts on the executed notebook.</p>
{%- endif %}
${interactive ? String.raw`<script type="${PLOTLY_MIME}">{{ output.data['${PLOTLY_MIME}'] | json_dumps | replace('<', '\\u003c') }}</script>` : ""}
</div>
{%- else -%}
{{ super() }}
{%- endif -%}
{%- endblock data_priority -%}
{%- block footer -%}
${PLOTLY_SLOT}
{{ super() }}
{%- endblock footer -%}
`;
}

/** Browser code of the interactive mode: draw each embedded figure, then hide its PNG. */
const UPGRADE_SCRIPT = `(function () {
  if (!window.Plotly) return;
  document.querySelectorAll(".workspace-figure").forEach(function (el) {
    var src = el.querySelector('script[type="${PLOTLY_MIME}"]');
    if (!src) return;
    var fig = JSON.parse(src.textContent);
    if (typeof fig === "string") fig = JSON.parse(fig);
    var layout = Object.assign({}, fig.layout);
    delete layout.width; // fill the page width
    var div = document.createElement("div");
    div.className = "workspace-figure-interactive";
    el.appendChild(div);
    Plotly.newPlot(div, fig.data, layout, { responsive: true, displaylogo: false }).then(function () {
      var img = el.querySelector("img.workspace-figure-static");
      if (img) img.style.display = "none";
    });
  });
})();`;

/** Title (first markdown heading) and subtitle (the next line of that cell) of a notebook. */
function notebookHeading(nb: Notebook, fallback: string): { title: string; subtitle: string } {
  for (const cell of nb.cells) {
    if (cell.cell_type !== "markdown") continue;
    const lines = (Array.isArray(cell.source) ? cell.source.join("") : cell.source).split("\n").map((l) => l.trim());
    const h = lines.findIndex((l) => /^#\s+/.test(l));
    if (h < 0) continue;
    const subtitle = lines.slice(h + 1).find((l) => l !== "") ?? "";
    return { title: lines[h].replace(/^#\s+/, ""), subtitle: subtitle.replace(/^[#>*\s]+/, "") };
  }
  return { title: fallback, subtitle: "" };
}

/** A page as the index lists it, with its size for the log. */
interface PageInfo extends ReportPage {
  bytes: number;
}

interface Options {
  inDir: string;
  outDir: string;
  interactive: boolean;
  python: string;
  manifestPath: string;
  wait: boolean;
}

function options(): Options | number {
  const { values, positionals } = parseArgs({
    options: {
      interactive: { type: "boolean", default: false },
      jupyter: { type: "string" },
      manifest: { type: "string" },
      wait: { type: "boolean", default: false },
      help: { type: "boolean", short: "h" },
    },
    allowPositionals: true,
  });
  if (values.help || positionals.length > 2) {
    console.log(`usage: ${NAME}.ts [IN_DIR=exports/notebooks] [OUT_DIR=exports/report] [--interactive] [--jupyter PATH] [--manifest PATH] [--wait]`);
    return values.help ? 0 : 2;
  }
  const inDir = positionals[0] ?? "exports/notebooks";
  const jupyter = values.jupyter ?? path.join(ROOT, ".venv/bin/jupyter");
  // The venv's Python beside its jupyter runs nbconvert (scripts/report-pages.py).
  const python = path.join(path.dirname(jupyter), "python");
  // The export notebook writes the manifest into WORKSPACE_EXPORTS, the folder above the executed notebooks in npm start.
  const exportsDir = process.env.WORKSPACE_EXPORTS || path.join(inDir, "..");
  // With --wait the runner makes IN_DIR while this waits; readNotebooks refuses it missing after "go".
  if (!values.wait && !(fs.existsSync(inDir) && fs.statSync(inDir).isDirectory())) throw new Error(`invalid IN_DIR: ${inDir} (no such folder)`);
  if (!fs.existsSync(python)) throw new Error(`invalid jupyter: ${jupyter} (no python beside it; run scripts/setup.sh)`);
  return {
    inDir,
    outDir: positionals[1] ?? "exports/report",
    interactive: values.interactive === true,
    python,
    manifestPath: values.manifest ?? path.join(exportsDir, "manifest.json"),
    wait: values.wait === true,
  };
}

/** The executed notebooks of IN_DIR, sorted, parsed. */
function readNotebooks(inDir: string): { f: string; file: string; nb: Notebook }[] {
  if (!(fs.existsSync(inDir) && fs.statSync(inDir).isDirectory())) throw new Error(`invalid IN_DIR: ${inDir} (no such folder)`);
  const files = fs
    .readdirSync(inDir)
    .filter((f) => f.endsWith(".ipynb"))
    .sort();
  if (files.length === 0) throw new Error(`no notebooks (*.ipynb) in ${inDir}`);
  return files.map((f) => {
    const file = path.join(inDir, f);
    return { f, file, nb: parseNotebook(fs.readFileSync(file, "utf8"), file) };
  });
}

/**
 * The pages: with --wait each notebook named on stdin is converted at once (the main command names
 * each as its figures are drawn), and the rest at "go"; stdin closing without "go" writes no index
 * (false: the run stopped). Without --wait, every notebook of IN_DIR.
 */
async function convertPages(o: Options): Promise<boolean> {
  fs.mkdirSync(o.outDir, { recursive: true });
  const templates = fs.mkdtempSync(path.join(os.tmpdir(), "html-report-template-"));
  const t0 = Date.now();
  const converter = new PageConverter(o.python, pageConverterArgs(templates, o), o.outDir);
  const converted = new Set<string>();
  const convert = (file: string) => {
    const key = path.resolve(file);
    if (converted.has(key)) return Promise.resolve();
    converted.add(key);
    return converter.convert(key);
  };
  try {
    writeTemplate(templates, o.interactive);
    if (o.wait) {
      const early: Promise<void>[] = [];
      const go = await goSignal((file) => early.push(convert(file)));
      await Promise.all(early);
      if (!go) {
        console.log(`${NAME}: no go on stdin; ${converted.size} page(s) written early, no index`);
        return false;
      }
    }
    await Promise.all(readNotebooks(o.inDir).map((n) => convert(n.file)));
    console.log(`${NAME}: nbconvert wrote ${converted.size} page(s) in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    return true;
  } finally {
    await converter.close();
    fs.rmSync(templates, { recursive: true, force: true });
  }
}

function writeTemplate(templates: string, interactive: boolean): void {
  fs.mkdirSync(path.join(templates, TEMPLATE_NAME));
  fs.writeFileSync(path.join(templates, TEMPLATE_NAME, "conf.json"), JSON.stringify({ base_template: "lab", mimetypes: { "text/html": true } }));
  fs.writeFileSync(path.join(templates, TEMPLATE_NAME, "index.html.j2"), templateText(interactive));
}

/** nbconvert's options, as on its command line. */
function pageConverterArgs(templates: string, o: Options): string[] {
  return [
    "--to",
    "html",
    "--template",
    TEMPLATE_NAME,
    `--TemplateExporter.extra_template_basedirs=${templates}`,
    // One validation after all preprocessors instead of one after each of the twelve (nbconvert's own
    // option): a fifth of the conversion's time; the notebooks were validated when written.
    "--Exporter.optimistic_validation=True",
    "--output-dir",
    o.outDir,
    "--log-level",
    "WARN",
  ];
}

/**
 * scripts/report-pages.py: one nbconvert application, started now (its imports take ~0.7 s), that
 * converts each notebook sent to it and answers for each.
 */
class PageConverter {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly waiting = new Map<string, { resolve: () => void; reject: (e: Error) => void }>();
  private stderr = "";
  private ended: Error | null = null;

  constructor(python: string, args: string[], outDir: string) {
    this.child = spawn(python, [path.join(ROOT, "scripts", "report-pages.py"), ...args], {
      // nbconvert validates the notebook after its preprocessors; with nbformat's default validator
      // (fastjsonschema) every validation recompiles the schema.
      env: { ...process.env, NBFORMAT_VALIDATOR: process.env.NBFORMAT_VALIDATOR ?? "jsonschema" },
    });
    this.child.stderr.setEncoding("utf8").on("data", (t: string) => (this.stderr += t));
    createInterface({ input: this.child.stdout }).on("line", (line) => this.answer(line));
    this.child.on("close", (code) => this.fail(new Error(`nbconvert (${outDir}) ended (exit ${code}) before answering:\n${this.stderr}`)));
    this.child.on("error", (e) => this.fail(new Error(`nbconvert did not start: ${e.message}`)));
  }

  convert(file: string): Promise<void> {
    if (this.ended) return Promise.reject(this.ended);
    return new Promise((resolve, reject) => {
      this.waiting.set(file, { resolve, reject });
      this.child.stdin.write(`${file}\n`);
    });
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      if (this.child.exitCode !== null) return resolve();
      this.child.once("close", () => resolve());
      this.child.stdin.end();
    });
  }

  private answer(line: string): void {
    const m = /^(done|failed) (.*?)(?:: (.*))?$/.exec(line);
    const w = m ? this.waiting.get(m[2]) : undefined;
    if (!m || !w) return;
    this.waiting.delete(m[2]);
    if (m[1] === "done") w.resolve();
    else w.reject(new Error(`nbconvert failed on ${m[2]}: ${m[3]}\n${this.stderr}`));
  }

  private fail(e: Error): void {
    this.ended ??= e;
    for (const w of this.waiting.values()) w.reject(e);
    this.waiting.clear();
  }
}

/** Each page given its plotly.js slot, and the index. */
function finishReport(o: Options): void {
  const plotlyJs = o.interactive ? fs.readFileSync(plotlyJsPath(), "utf8").replace(/<\/script/gi, "<\\/script") : "";
  const pages: PageInfo[] = readNotebooks(o.inDir).map(({ f, file, nb }) => {
    const html = f.replace(/\.ipynb$/, ".html");
    const target = path.join(o.outDir, html);
    const refs = plotlyOutputs(nb, file);
    const withoutImage = refs.filter((r) => !("image/png" in (nb.cells[r.cell].outputs![r.output].data ?? {}))).length;
    let text = fs.readFileSync(target, "utf8");
    if (!text.includes(PLOTLY_SLOT)) throw new Error(`${target}: template marker missing (nbconvert template not applied?)`);
    const inline = o.interactive && refs.length > 0 ? `<script>${plotlyJs}</script>\n<script>${UPGRADE_SCRIPT}</script>` : "";
    text = text.replace(PLOTLY_SLOT, () => inline);
    fs.writeFileSync(target, text);
    if (withoutImage) console.log(`${NAME}: warning: ${file}: ${withoutImage} figure(s) without a static image (run scripts/add-static-figures.ts first)`);
    return {
      notebook: f,
      html,
      ...notebookHeading(nb, f),
      figures: refs.length,
      withoutImage,
      bytes: Buffer.byteLength(text),
      health: healthSummaryFromNotebook(nb),
    };
  });
  const source = fs.existsSync(o.manifestPath) ? reportSourceOf(fs.readFileSync(o.manifestPath, "utf8")) : null;
  fs.writeFileSync(
    path.join(o.outDir, "index.html"),
    reportIndexHtml(pages, { inDir: o.inDir, interactive: o.interactive, source, manifestPath: o.manifestPath }),
  );
  for (const p of pages) console.log(`${NAME}: ${path.join(o.outDir, p.html)}: ${p.figures} figure(s), ${(p.bytes / 1024).toFixed(0)} KB`);
  console.log(`${NAME}: index ${path.join(o.outDir, "index.html")}`);
}

async function main(): Promise<number> {
  const o = options();
  if (typeof o === "number") return o;
  if (!(await convertPages(o))) return 1;
  finishReport(o);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(`${NAME}: ${(err as Error).message}`);
    process.exit(1);
  },
);
