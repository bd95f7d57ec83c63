/** A small hand-made executed notebook: two plotly outputs (from the figure builders), a table, text. */
import { PLOTLY_MIME } from "../../lib/display/display-target";
import type { Notebook } from "../../lib/display/notebook-static-images";
import { figureForDisplay } from "../../lib/display/show-figure";
import { tableHtml } from "../../lib/display/table-html";
import { rolloutSeriesFigure } from "../../lib/figures/rollout-series";
import { updatesByPositionFigure } from "../../lib/figures/updates-by-position";
import { alignedFixture } from "../figures/aligned-fixture";

export const FIXTURE_TITLES = ["ppo_kl by position in its batch", "Response length per rollout batch"];

export function notebookFixture(): Notebook {
  const aligned = alignedFixture();
  const figA = figureForDisplay(updatesByPositionFigure(aligned), FIXTURE_TITLES[0]);
  const figB = figureForDisplay(
    rolloutSeriesFigure(aligned, "rollout/response_len/mean", { band: { min: "rollout/response_len/min", max: "rollout/response_len/max" } }),
    FIXTURE_TITLES[1],
  );
  const code = (id: string, source: string, outputs: unknown[]) => ({ cell_type: "code", execution_count: null, id, metadata: {}, source, outputs });
  return {
    nbformat: 4,
    nbformat_minor: 5,
    metadata: { kernelspec: { name: "slime-diagnostics-ts", display_name: "TypeScript", language: "typescript" }, language_info: { name: "typescript" } },
    cells: [
      { cell_type: "markdown", id: "m1", metadata: {}, source: "# 99 Fixture notebook\nFigures for the static renderer check." },
      code("c1", "showFigure(a, t)", [{ output_type: "display_data", data: { [PLOTLY_MIME]: figA }, metadata: {} }]),
      code("c2", "showTable(rows)", [
        { output_type: "display_data", data: { "text/html": tableHtml([{ round: "R0", value: 1.5 }]) }, metadata: {} },
        { output_type: "stream", name: "stdout", text: "hello\n" },
      ]),
      code("c3", "showFigure(b, t)", [{ output_type: "display_data", data: { [PLOTLY_MIME]: figB }, metadata: {} }]),
    ] as Notebook["cells"],
  };
}
