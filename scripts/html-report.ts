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
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { parseArgs } from "node:util";
import { parseNotebook, plotlyJsPath, plotlyOutputs, PLOTLY_MIME, type Notebook } from "../lib/display";
import { reportIndexHtml, reportSourceOf, type ReportPage } from "../lib/display/report-index";
import { healthSummaryFromNotebook } from "../lib/display/show-health";

const NAME = "html-report";
const ROOT = path.resolve(__dirname, "..");
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

function main(): number {
  const { values, positionals } = parseArgs({
    options: {
      interactive: { type: "boolean", default: false },
      jupyter: { type: "string" },
      manifest: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
    allowPositionals: true,
  });
  if (values.help || positionals.length > 2) {
    console.log(`usage: ${NAME}.ts [IN_DIR=exports/notebooks] [OUT_DIR=exports/report] [--interactive] [--jupyter PATH] [--manifest PATH]`);
    return values.help ? 0 : 2;
  }
  const inDir = positionals[0] ?? "exports/notebooks";
  const outDir = positionals[1] ?? "exports/report";
  const interactive = values.interactive === true;
  const jupyter = values.jupyter ?? path.join(ROOT, ".venv/bin/jupyter");
  // The export notebook writes the manifest into WORKSPACE_EXPORTS, the folder above the executed notebooks in npm start.
  const exportsDir = process.env.WORKSPACE_EXPORTS || path.join(inDir, "..");
  const manifestPath = values.manifest ?? path.join(exportsDir, "manifest.json");
  if (!fs.existsSync(inDir) || !fs.statSync(inDir).isDirectory()) throw new Error(`invalid IN_DIR: ${inDir} (no such folder)`);
  if (!fs.existsSync(jupyter)) throw new Error(`invalid jupyter: ${jupyter} (not found; run scripts/setup.sh)`);
  const files = fs
    .readdirSync(inDir)
    .filter((f) => f.endsWith(".ipynb"))
    .sort();
  if (files.length === 0) throw new Error(`no notebooks (*.ipynb) in ${inDir}`);

  const notebooks = files.map((f) => {
    const file = path.join(inDir, f);
    return { f, file, nb: parseNotebook(fs.readFileSync(file, "utf8"), file) };
  });
  fs.mkdirSync(outDir, { recursive: true });

  const templates = fs.mkdtempSync(path.join(os.tmpdir(), "html-report-template-"));
  try {
    fs.mkdirSync(path.join(templates, TEMPLATE_NAME));
    fs.writeFileSync(path.join(templates, TEMPLATE_NAME, "conf.json"), JSON.stringify({ base_template: "lab", mimetypes: { "text/html": true } }));
    fs.writeFileSync(path.join(templates, TEMPLATE_NAME, "index.html.j2"), templateText(interactive));
    const t0 = Date.now();
    // `jupyter nbconvert`, run as the venv's Python so that the import of jsonschema's optional
    // rfc3987_syntax (~40 grammars compiled at import, ~0.9 s, only for the "iri" string format, which
    // notebook schemas do not use) can be skipped.
    const python = path.join(path.dirname(jupyter), "python");
    const [command, prefix] = fs.existsSync(python)
      ? [python, ["-c", "import sys; sys.modules['rfc3987_syntax'] = None; from nbconvert.nbconvertapp import main; sys.exit(main())"]]
      : [jupyter, ["nbconvert"]];
    const run = spawnSync(
      command,
      [
        ...prefix,
        "--to",
        "html",
        "--template",
        TEMPLATE_NAME,
        `--TemplateExporter.extra_template_basedirs=${templates}`,
        "--output-dir",
        outDir,
        "--log-level",
        "WARN",
        ...notebooks.map((n) => n.file),
      ],
      // nbconvert validates the notebook after each of its preprocessors; with nbformat's default
      // validator (fastjsonschema) every validation recompiles the schema: ~1 s of the ~3.5 s here.
      { encoding: "utf8", env: { ...process.env, NBFORMAT_VALIDATOR: process.env.NBFORMAT_VALIDATOR ?? "jsonschema" } },
    );
    if (run.status !== 0) throw new Error(`nbconvert failed (exit ${run.status}):\n${run.stderr}`);
    console.log(`${NAME}: nbconvert wrote ${files.length} page(s) in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  } finally {
    fs.rmSync(templates, { recursive: true, force: true });
  }

  const plotlyJs = interactive ? fs.readFileSync(plotlyJsPath(), "utf8").replace(/<\/script/gi, "<\\/script") : "";
  const pages: PageInfo[] = notebooks.map(({ f, file, nb }) => {
    const html = f.replace(/\.ipynb$/, ".html");
    const target = path.join(outDir, html);
    const refs = plotlyOutputs(nb, file);
    const withoutImage = refs.filter((r) => !("image/png" in (nb.cells[r.cell].outputs![r.output].data ?? {}))).length;
    let text = fs.readFileSync(target, "utf8");
    if (!text.includes(PLOTLY_SLOT)) throw new Error(`${target}: template marker missing (nbconvert template not applied?)`);
    const inline = interactive && refs.length > 0 ? `<script>${plotlyJs}</script>\n<script>${UPGRADE_SCRIPT}</script>` : "";
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
  const source = fs.existsSync(manifestPath) ? reportSourceOf(fs.readFileSync(manifestPath, "utf8")) : null;
  fs.writeFileSync(path.join(outDir, "index.html"), reportIndexHtml(pages, { inDir, interactive, source, manifestPath }));
  for (const p of pages) console.log(`${NAME}: ${path.join(outDir, p.html)}: ${p.figures} figure(s), ${(p.bytes / 1024).toFixed(0)} KB`);
  console.log(`${NAME}: index ${path.join(outDir, "index.html")}`);
  return 0;
}

try {
  process.exit(main());
} catch (err) {
  console.error(`${NAME}: ${(err as Error).message}`);
  process.exit(1);
}
