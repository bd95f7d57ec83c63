/**
 * Round boundaries on an x axis of display update numbers or rollout ids: a dotted vertical line
 * between consecutive rounds and the round label centred over its span, so a reader sees which run a
 * point comes from without a legend entry per round.
 */
import type { FigureAnnotation, FigureShape } from "./figure";
import { BOUNDARY_COLOR } from "./palette";

/** The x range a round occupies in a figure. */
export interface RoundSpan {
  round: string;
  first: number;
  last: number;
}

/**
 * Span of each round over the given points, in `rounds` order; rounds without points are left out.
 * @example roundSpans(["R0", "R1"], [{ round: "R0", x: 1 }, { round: "R0", x: 2 }, { round: "R1", x: 3 }])
 *   // [{ round: "R0", first: 1, last: 2 }, { round: "R1", first: 3, last: 3 }]
 */
export function roundSpans(rounds: readonly string[], points: readonly { round: string; x: number }[]): RoundSpan[] {
  return spansInOrder(
    rounds,
    points.length,
    (i) => points[i].round,
    (i) => points[i].x,
  );
}

/**
 * As roundSpans, over records and their x column (`x[i]` is the x of `records[i]`), so a 10^6-point
 * figure builds no point object per record.
 * @example roundSpansOf(["R0"], [{ round: "R0" }, { round: "R0" }], [3, 4]) // [{ round: "R0", first: 3, last: 4 }]
 */
export function roundSpansOf(rounds: readonly string[], records: readonly { round: string }[], x: ArrayLike<number>): RoundSpan[] {
  return spansInOrder(
    rounds,
    records.length,
    (i) => records[i].round,
    (i) => x[i],
  );
}

/** Spans of `count` points read through `roundAt` / `xAt`, in `rounds` order, unlisted rounds after. */
function spansInOrder(rounds: readonly string[], count: number, roundAt: (i: number) => string, xAt: (i: number) => number): RoundSpan[] {
  const byRound = new Map<string, RoundSpan>();
  for (let i = 0; i < count; i++) {
    const round = roundAt(i);
    const x = xAt(i);
    const span = byRound.get(round);
    if (!span) byRound.set(round, { round, first: x, last: x });
    else {
      if (x < span.first) span.first = x;
      if (x > span.last) span.last = x;
    }
  }
  const ordered: RoundSpan[] = [];
  for (const round of rounds) {
    const span = byRound.get(round);
    if (span) ordered.push(span);
  }
  // Rounds present in the points but missing from `rounds` still get marked, after the listed ones.
  for (const span of byRound.values()) if (!rounds.includes(span.round)) ordered.push(span);
  return ordered;
}

/**
 * Boundary lines (at the midpoint between one round's last x and the next round's first x, in x
 * order) and round labels (centred over each span, just above the plot area).
 */
export function roundMarks(spans: readonly RoundSpan[]): { shapes: FigureShape[]; annotations: FigureAnnotation[] } {
  const inXOrder = spans.slice().sort((a, b) => a.first - b.first);
  const shapes: FigureShape[] = [];
  for (let i = 1; i < inXOrder.length; i++) {
    const x = (inXOrder[i - 1].last + inXOrder[i].first) / 2;
    shapes.push({
      type: "line",
      xref: "x",
      yref: "paper",
      x0: x,
      x1: x,
      y0: 0,
      y1: 1,
      layer: "below",
      line: { color: BOUNDARY_COLOR, width: 1, dash: "dot" },
    });
  }
  const annotations: FigureAnnotation[] = inXOrder.map((span) => ({
    text: span.round,
    xref: "x",
    yref: "paper",
    x: (span.first + span.last) / 2,
    y: 1,
    xanchor: "center",
    yanchor: "bottom",
    showarrow: false,
    font: { color: BOUNDARY_COLOR, size: 12 },
  }));
  return { shapes, annotations };
}
