/**
 * The HTML report's index page: which runs, rounds and framework the report is about (from the export
 * manifest), what each page holds, and how its figures are shown, claiming static images only when
 * they were drawn. Titles and subtitles come from notebook markdown: `code` spans become <code>.
 */
import { escapeHtml } from "./table-html";
import type { HealthIndexEntry } from "./show-health";

/** One page of the report as the index lists it. */
export interface ReportPage {
  /** Notebook file name, e.g. "03-policy-diagnostics.ipynb". */
  notebook: string;
  /** Page file, relative to the index. */
  html: string;
  title: string;
  subtitle: string;
  /** Plotly figures of the page, and how many of them have no static image. */
  figures: number;
  withoutImage: number;
  /** Flags per health check, when the notebook shows the health report. */
  health: HealthIndexEntry[] | null;
}

/** What the index reads of the export manifest (exports/manifest.json); null when there is none. */
export interface ReportSource {
  /** The framework profile the analysis used: its label and how it was chosen ("detected", ...). */
  profile: { label: string; how: string };
  /** The runs in round order. */
  runs: readonly { runId: string; round: string; state?: string }[];
}

/** Options of {@link reportIndexHtml}. */
export interface ReportIndexOptions {
  /** Folder of the executed notebooks, as shown. */
  inDir: string;
  /** True when the pages inline plotly.js (live figures, static images as fallback). */
  interactive: boolean;
  source: ReportSource | null;
  /** Where the manifest was looked for, named when it was not found. */
  manifestPath: string;
}

/** Markdown text as HTML: escaped, `code` spans as <code>, emphasis markers dropped. */
export function inlineMarkdownHtml(text: string): string {
  return escapeHtml(text)
    .replace(/`([^`]+)`/g, "<code>$1</code>")
    .replace(/\*\*([^*]+)\*\*/g, "$1")
    .replace(/(^|\s)\*([^*\s][^*]*)\*(?=\s|[.,;:]|$)/g, "$1$2");
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** The sentence on the runs: framework, rounds and each round's run; or why they are not known. */
export function sourceHtml(source: ReportSource | null, manifestPath: string): string {
  if (source === null) return `Runs and framework: not known here (no export manifest at <code>${escapeHtml(manifestPath)}</code>; the pages name them).`;
  const rounds = [...new Set(source.runs.map((r) => r.round))];
  const runs = source.runs.map((r) => `${escapeHtml(r.round)}: <code>${escapeHtml(r.runId)}</code>${r.state ? ` (${escapeHtml(r.state)})` : ""}`);
  return `${escapeHtml(source.profile.label)} runs (framework ${escapeHtml(source.profile.how)}), ${plural(source.runs.length, "run")} in ${plural(rounds.length, "round")}: ${runs.join(", ")}.`;
}

/** The sentence on figures: how they are shown, and never "static images" when none was drawn. */
export function figuresHtml(pages: readonly ReportPage[], interactive: boolean): string {
  const total = pages.reduce((n, p) => n + p.figures, 0);
  const drawn = total - pages.reduce((n, p) => n + p.withoutImage, 0);
  if (total === 0) return "No page has a figure.";
  const live = interactive ? "interactive (plotly.js inlined in each page with figures)" : "";
  if (drawn === total)
    return interactive ? `${plural(total, "figure")}, ${live}, with static images as fallback.` : `${plural(total, "figure")}, as static images.`;
  const missing = `${total - drawn} of ${plural(total, "figure")} have no static image (run scripts/add-static-figures.ts, which needs chromium)`;
  return interactive ? `Figures are ${live}; ${missing}.` : `${missing}: they show only where a kernel or plotly.js renders them.`;
}

/** Index line of a health report: the count of flags per check (or "not applicable"). */
function healthIndexHtml(health: HealthIndexEntry[] | null): string {
  if (!health) return "";
  const total = health.reduce((n, e) => n + e.flags, 0);
  const items = health.map((e) => {
    const text = e.status === "not applicable" ? "not applicable" : `${e.flags} flag${e.flags === 1 ? "" : "s"}`;
    return `<span${e.flags > 0 ? ' class="warn"' : ""}><code>${escapeHtml(e.check)}</code> ${text}</span>`;
  });
  return `<div class="health">health: ${total} flag${total === 1 ? "" : "s"} &middot; ${items.join(" &middot; ")}</div>`;
}

/** One list item: the page's title (linked), subtitle, figure count and health line. */
function pageItemHtml(p: ReportPage): string {
  const figures =
    p.figures === 0
      ? "no figures"
      : p.withoutImage === p.figures
        ? `${plural(p.figures, "figure")}, none drawn as a static image`
        : plural(p.figures, "figure");
  const note = p.withoutImage > 0 && p.withoutImage < p.figures ? ` <span class="warn">${p.withoutImage} without a static image</span>` : "";
  const warn = p.withoutImage > 0 && p.withoutImage === p.figures ? ` class="warn"` : "";
  return [
    `<li><a href="${escapeHtml(encodeURI(p.html))}">${inlineMarkdownHtml(p.title)}</a>`,
    p.subtitle ? `<div class="sub">${inlineMarkdownHtml(p.subtitle)}</div>` : "",
    `<div class="meta">${escapeHtml(p.notebook)} &middot; <span${warn}>${figures}</span>${note}</div>`,
    `${healthIndexHtml(p.health)}</li>`,
  ].join("");
}

const STYLE = `body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Liberation Sans", sans-serif; max-width: 52rem; margin: 2rem auto; padding: 0 1rem; color: #222; line-height: 1.45; }
h1 { font-size: 1.5rem; margin-bottom: 0.25rem; }
p.lead { color: #555; margin-top: 0; }
ol { padding-left: 1.25rem; }
li { margin: 0.9rem 0; }
li a { font-weight: 600; font-size: 1.05rem; }
.sub { color: #333; }
.meta { color: #777; font-size: 0.85rem; }
.warn { color: #b00020; }
.health { font-size: 0.85rem; }`;

/**
 * The index page.
 * @example reportIndexHtml(pages, { inDir: "exports/notebooks", interactive: false, source, manifestPath })
 */
export function reportIndexHtml(pages: readonly ReportPage[], opts: ReportIndexOptions): string {
  const title = opts.source === null ? "Run diagnostics report" : `Run diagnostics report: ${escapeHtml(opts.source.profile.label)}`;
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<style>
${STYLE}
</style>
</head>
<body>
<h1>${title}</h1>
<p class="lead">${sourceHtml(opts.source, opts.manifestPath)}</p>
<p class="lead">${plural(pages.length, "page")}, executed notebooks from <code>${escapeHtml(opts.inDir)}</code>. ${figuresHtml(pages, opts.interactive)} Written by <code>scripts/html-report.ts</code>.</p>
<ol>
${pages.map(pageItemHtml).join("\n")}
</ol>
</body>
</html>
`;
}

/** The export manifest's profile and runs, or null when the text is not such a manifest. */
export function reportSourceOf(manifestText: string): ReportSource | null {
  let m: unknown;
  try {
    m = JSON.parse(manifestText);
  } catch {
    return null;
  }
  const x = m as { profile?: { label?: unknown; how?: unknown }; source?: { runs?: unknown } };
  const listed = x.source?.runs;
  if (typeof x.profile?.label !== "string" || !Array.isArray(listed)) return null;
  const runs = (listed as { runId?: unknown; round?: unknown; state?: unknown }[])
    .filter((r) => typeof r.runId === "string" && typeof r.round === "string")
    .map((r) => ({ runId: r.runId as string, round: r.round as string, ...(typeof r.state === "string" ? { state: r.state } : {}) }));
  return { profile: { label: x.profile.label, how: typeof x.profile.how === "string" ? x.profile.how : "chosen" }, runs };
}
