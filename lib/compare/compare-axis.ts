/**
 * The axis a comparison lines experiments up on. `round` (the default) compares round labels, as
 * summary.csv's rows. The other axes put every experiment's records on one grid of bins of a declared
 * width, [k x width, (k + 1) x width) for k = 0, 1, ...: a record counts in the bin its coordinate
 * falls in, an experiment's value in a bin is the mean over its records there (the summary's mean
 * rule), and a bin an experiment has no record in stays empty: nothing is interpolated or carried over.
 */

/** The axes of a comparison. */
export const AXIS_NAMES = ["round", "rollout", "update", "tokens", "wall"] as const;

/** One axis. */
export type AxisName = (typeof AXIS_NAMES)[number];

/** The axis of a comparison: its name and, for every axis but `round`, the bin width in its unit. */
export interface CompareAxis {
  name: AxisName;
  /** Bin width (> 0) in the axis' unit; null for `round`. */
  width: number | null;
}

/** The default axis: round labels, no bins. */
export const ROUND_AXIS: CompareAxis = { name: "round", width: null };

/** What each axis' coordinate is, for the manifest and the docs. */
export const AXIS_MEANING: Readonly<Record<AxisName, { unit: string; is: string }>> = {
  round: { unit: "round label", is: "the round labels of data/runs.json (summary.csv's rows)" },
  rollout: {
    unit: "rollout id",
    is: "the rollout id a record belongs to, as aligned (slime: rollout/step; frameworks with one record per logged step: that step); an optimizer update counts at its batch's rollout id",
  },
  update: {
    unit: "optimizer update",
    is: "the update index: display update number - 1 (0 for the lineage's first update: train/step - N*r0), so bin [0, W) holds the first W updates; a rollout batch counts at its first update's index; refused where single updates are not observable",
  },
  tokens: {
    unit: "tokens",
    is: "tokens seen as the framework logs them (the registry's tokensSeen concept: TRL's train/num_tokens, prompt and completion tokens so far); an update counts at its batch's value; frameworks that log no such count are refused (never estimated, e.g. from response lengths)",
  },
  wall: {
    unit: "s",
    is: "seconds of wall clock since the experiment's first run started (its first row with both: _timestamp - _runtime) to the record's latest source row's _timestamp; the gaps between runs (restarts, queueing) are included",
  },
};

/**
 * The axis of `--axis NAME` and `--bin-width W`; throws `invalid axis: ...` for an unknown name, a
 * width on `round`, or a missing or non-positive width on any other axis.
 * @example compareAxis("update", 100) // { name: "update", width: 100 }
 */
export function compareAxis(name: string, width: number | null): CompareAxis {
  if (!(AXIS_NAMES as readonly string[]).includes(name)) throw new Error(`invalid axis: ${JSON.stringify(name)} (one of ${AXIS_NAMES.join(", ")})`);
  if (name === "round") {
    if (width !== null) throw new Error(`invalid axis: round takes no bin width (got ${width}); round labels are compared as they are`);
    return ROUND_AXIS;
  }
  if (width === null || !Number.isFinite(width) || width <= 0)
    throw new Error(`invalid axis: ${name} needs a bin width > 0 in ${AXIS_MEANING[name as AxisName].unit} (got ${width}), e.g. --bin-width 100`);
  return { name: name as AxisName, width };
}

/** An edge of the grid as text: k x width to 12 significant digits (0.1 x 3 is "0.3", not "0.30000000000000004"). */
function edgeText(k: number, width: number): string {
  return String(Number((k * width).toPrecision(12)));
}

/**
 * The scope label of bin k: "<low>-<high>", the bin [low, high).
 * @example binLabel(2, 100) // "200-300"
 */
export function binLabel(k: number, width: number): string {
  return `${edgeText(k, width)}-${edgeText(k + 1, width)}`;
}

/**
 * The bin of a coordinate: floor(x / width); null for a coordinate that is not a finite number >= 0.
 * @example binOf(199.5, 100) // 1
 */
export function binOf(x: number, width: number): number | null {
  if (!(x >= 0) || !Number.isFinite(x)) return null;
  return Math.floor(x / width);
}

/** The low edge of a bin label (for ordering scopes). */
export function binLow(label: string): number {
  return Number.parseFloat(label);
}
