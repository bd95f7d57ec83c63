// The HTML report's index: names the framework and the runs from the export manifest, shows notebook
// markdown without literal backticks, and never claims static images that were not drawn.
import { test } from "node:test";
import assert from "node:assert/strict";

import { figuresHtml, inlineMarkdownHtml, reportIndexHtml, reportSourceOf, type ReportPage } from "../../lib/display/report-index";

const manifest = JSON.stringify({
  profile: { name: "trl", label: "TRL GRPOTrainer", how: "detected" },
  source: {
    runs: [
      { runId: "trlgrpolog1", round: "R0", state: "finished" },
      { runId: "trlresume", round: "R1", state: "crashed" },
    ],
  },
});

const page = (over: Partial<ReportPage> = {}): ReportPage => ({
  notebook: "04-response-length-throughput.ipynb",
  html: "04-response-length-throughput.html",
  title: "04 Response length and throughput",
  subtitle: "> Means per round over records (one per `train/global_step`), **never** `_step`.",
  figures: 7,
  withoutImage: 0,
  health: null,
  ...over,
});

const opts = { inDir: "exports/notebooks", interactive: false, source: reportSourceOf(manifest), manifestPath: "exports/manifest.json" };

test("the index names the framework, the rounds and each round's run", () => {
  const html = reportIndexHtml([page()], opts);
  assert.match(html, /<h1>Run diagnostics report: TRL GRPOTrainer<\/h1>/);
  assert.match(
    html,
    /TRL GRPOTrainer runs \(framework detected\), 2 runs in 2 rounds: R0: <code>trlgrpolog1<\/code> \(finished\), R1: <code>trlresume<\/code> \(crashed\)\./,
  );
});

test("without an export manifest the index says where it looked, and names no framework", () => {
  const html = reportIndexHtml([page()], { ...opts, source: null });
  assert.match(html, /<h1>Run diagnostics report<\/h1>/);
  assert.match(html, /not known here \(no export manifest at <code>exports\/manifest\.json<\/code>/);
  assert.equal(reportSourceOf("not json"), null);
  assert.equal(reportSourceOf("{}"), null);
});

test("titles and subtitles show code spans as <code>, never a literal backtick", () => {
  const html = reportIndexHtml([page()], opts);
  assert.ok(!html.includes("`"), "no backtick in the index");
  assert.match(html, /one per <code>train\/global_step<\/code>\), never <code>_step<\/code>\./);
  assert.equal(inlineMarkdownHtml("a `<b>` c"), "a <code>&lt;b&gt;</code> c");
});

test("figures drawn as static images are said so; none drawn is never called static images", () => {
  assert.equal(figuresHtml([page(), page({ figures: 3 })], false), "10 figures, as static images.");
  const none = [page({ withoutImage: 7 }), page({ figures: 0 })];
  const text = figuresHtml(none, false);
  assert.equal(
    text,
    "7 of 7 figures have no static image (run scripts/add-static-figures.ts, which needs chromium): they show only where a kernel or plotly.js renders them.",
  );
  const html = reportIndexHtml(none, opts);
  assert.doesNotMatch(html, /static images|as static/);
  assert.match(html, /<span class="warn">7 figures, none drawn as a static image<\/span>/);
  assert.match(html, /&middot; <span>no figures<\/span>/);
  assert.equal(figuresHtml([page({ figures: 0 })], false), "No page has a figure.");
  assert.equal(
    figuresHtml([page({ figures: 2 })], true),
    "2 figures, interactive (plotly.js inlined in each page with figures), with static images as fallback.",
  );
});
