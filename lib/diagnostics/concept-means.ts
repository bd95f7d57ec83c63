/**
 * Round means of registry concepts, read through the run's framework profile: which key stands for
 * each column's concept and over which records (optimizer updates, or one record per rollout batch /
 * training step / logged step). A column the framework cannot fill carries the reason instead of a
 * mean (never a look-alike key). The engine of the policy and rollout round tables.
 */
import type { AlignedRuns, Reporter } from "../types";
import { CONCEPTS, type ConceptId } from "../registry/concepts";
import { metricOf, absentReason, type FrameworkProfile } from "../registry/framework-profile";
import { keysFor } from "../registry/metric-lookup";
import { profileOfAligned } from "../registry/profiles";
import { describeRollout, describeUpdate } from "./record-label";
import { AliasUse, MeanAccumulator, nonFiniteMessage, type MeanResult } from "./round-mean";
import { roundIndex, RoundSlot, rolloutRoundPosition, updateRoundPosition } from "./round-index";
import type { AxisRecord, UpdateRecord } from "../types";
import { forEachBlock } from "../values/key-column";
import type { TableColumn } from "./table-column";

/** One column of a concept table: its field, concept, and the subset of updates it averages. */
export interface ConceptColumnSpec<F extends string> {
  field: F;
  concept: ConceptId;
  /** Updates by position in their rollout batch: all, the first (position 0) or the later ones. */
  subset: "all" | "first" | "later";
  /** Label suffix for a subset, e.g. " (first update of batch)". */
  suffix?: string;
}

const SUBSET_OVER = {
  all: "optimizer updates",
  first: "first updates of a rollout batch (position 0)",
  later: "later updates of a rollout batch (position >= 1)",
} as const;

/** A column resolved against a profile. */
export interface ResolvedColumn<F extends string> extends TableColumn<F> {
  subset: ConceptColumnSpec<F>["subset"];
  /** The registry concept the column reads (its meaning can depend on the runs' flags: metricOfAligned). */
  concept: ConceptId;
}

/** The columns of a table for one framework: its key, records and reading rule per concept, or why it has none. */
export function resolveColumns<F extends string>(specs: readonly ConceptColumnSpec<F>[], profile: FrameworkProfile): ResolvedColumn<F>[] {
  return specs.map((s) => {
    const metric = metricOf(profile, s.concept);
    // An unlogged concept is still headed by its registry label, never by its internal id.
    const label = `${metric?.label ?? CONCEPTS[s.concept].label}${s.suffix ?? ""}`;
    const concept = s.concept;
    if (metric === null) return { field: s.field, label, metric: null, over: "", subset: s.subset, concept, absent: absentReason(profile, s.concept)! };
    if (metric.grain === "rollout") {
      // Per-record metrics cannot be split by update position.
      if (s.subset !== "all")
        return { field: s.field, label, metric: null, over: "", subset: s.subset, concept, absent: `${profile.label}: ${profile.updates.note}` };
      return { field: s.field, label, metric, over: profile.recordNoun, subset: s.subset, concept };
    }
    return { field: s.field, label, metric, over: SUBSET_OVER[s.subset], subset: s.subset, concept };
  });
}

/** Means of every column per round slot (slot R = all rounds), with record counts. */
export interface ConceptMeans<F extends string> {
  /** cells[slot][field]. */
  cells: Record<F, MeanResult>[];
  updates: number[];
  rollouts: number[];
  /** Notes on older key names read as the metric (schema aliases). */
  aliasNotes: string[];
}

/**
 * One pass over updates and one over rollout records, accumulating each column's key in its round
 * slot and the `all` slot; one warning per excluded non-finite value (round slot only).
 */
export function conceptMeans<F extends string>(
  aligned: AlignedRuns,
  columns: readonly ResolvedColumn<F>[],
  opts: { reporter?: Reporter } = {},
): ConceptMeans<F> {
  const warn = opts.reporter?.warn?.bind(opts.reporter);
  const profile = profileOfAligned(aligned);
  const index = roundIndex(aligned);
  const R = index.rounds.length;
  const make = () => Array.from({ length: R + 1 }, () => new MeanAccumulator());
  const live = columns.filter((c) => c.metric !== null);
  const accs = live.map(make);
  const aliases = live.map((c) => new AliasUse(profile, c.metric!.key, keysFor(profile, c.metric!.key), R + 1));
  const updates = new Array<number>(R + 1).fill(0);
  const rollouts = new Array<number>(R + 1).fill(0);
  const onUpdates = live.map((_c, i) => i).filter((i) => live[i].metric!.grain === "update");
  const onRollouts = live.map((_c, i) => i).filter((i) => live[i].metric!.grain === "rollout");
  const read = (i: number): ColumnRead => ({
    key: live[i].metric!.key,
    keys: keysFor(profile, live[i].metric!.key),
    subset: live[i].subset,
    accs: accs[i],
    alias: aliases[i],
  });
  accumulateColumns(aligned.updates, onUpdates.map(read), updates, {
    slot: new RoundSlot(index.position),
    unknown: (j) => updateRoundPosition(index, aligned.updates[j]),
    warn: warn && ((j, key, v) => warn(nonFiniteMessage(describeUpdate(aligned.updates[j], index.updateKey), key, v))),
  });
  accumulateColumns(aligned.rollouts, onRollouts.map(read), rollouts, {
    slot: new RoundSlot(index.position),
    unknown: (j) => rolloutRoundPosition(index, aligned.rollouts[j]),
    warn: warn && ((j, key, v) => warn(nonFiniteMessage(describeRollout(aligned.rollouts[j]), key, v))),
  });
  updates[R] = updates.reduce((a, b) => a + b, 0);
  rollouts[R] = rollouts.reduce((a, b) => a + b, 0);
  const cells = Array.from({ length: R + 1 }, (_, slot) => {
    const round = slot === R ? null : index.rounds[slot];
    const row = {} as Record<F, MeanResult>;
    for (const c of columns) {
      const i = live.indexOf(c);
      if (i < 0) {
        row[c.field] = { mean: null, n: 0, nonFinite: 0, missing: 0, note: c.absent ?? null };
        continue;
      }
      // A round without updates says so, rather than "has no first updates".
      const over = c.metric!.grain === "update" && updates[slot] === 0 ? SUBSET_OVER.all : c.over;
      row[c.field] = accs[i][slot].result(round, over, c.metric!.key);
    }
    return row;
  });
  const aliasNotes: string[] = [];
  for (let i = 0; i < live.length; i++) aliasNotes.push(...aliases[i].notes(index.rounds, live[i].over.replace(/^optimizer updates$/, "optimizer update(s)")));
  return { cells, updates, rollouts, aliasNotes };
}

/** One column as {@link accumulateColumns} reads it: its key (then older names), subset, accumulators per slot, alias counts. */
interface ColumnRead {
  key: string;
  keys: readonly string[];
  subset: ConceptColumnSpec<string>["subset"];
  /** Per round slot, and the all slot last. */
  accs: MeanAccumulator[];
  alias: AliasUse;
}

/** Where each record's round is, how to fail on a round not indexed, and where excluded values are told. */
interface RecordSlots {
  /** Round slot of a record, -1 = not in the index. */
  slot: RoundSlot;
  /** Throws naming record j (its round is not in the index). */
  unknown: (j: number) => void;
  warn: ((j: number, key: string, v: number) => void) | undefined;
}

/**
 * Counts each record in its round slot and adds each column's value to its slot's and the all slot's
 * accumulator. Values are read a block of records at a time into typed columns (no getter call, no
 * boxed number per record); within a block records go in order and, per record, columns in order, so
 * sums and warnings come in the order of a record-by-record pass.
 */
function accumulateColumns(records: readonly (UpdateRecord | AxisRecord)[], cols: readonly ColumnRead[], counts: number[], at: RecordSlots): void {
  const all = counts.length - 1;
  forEachBlock(
    records,
    cols.map((c) => c.keys),
    (from, to, blocks) => {
      for (let j = from; j < to; j++) {
        const slot = at.slot.of(records[j].round);
        if (slot < 0) at.unknown(j);
        counts[slot]++;
        for (let c = 0; c < cols.length; c++) {
          const col = cols[c];
          if (col.subset !== "all" && (col.subset === "first") !== ((records[j] as UpdateRecord).updateInRollout === 0)) continue;
          const found = blocks[c].found[j - from];
          if (found === 0) {
            col.accs[all].missing++;
            col.accs[slot].missing++;
            continue;
          }
          if (found > 1) col.alias.count(slot, found - 1);
          const v = blocks[c].values[j - from];
          col.accs[all].addNumber(v);
          if (!col.accs[slot].addNumber(v) && at.warn) at.warn(j, col.key, v);
        }
      }
    },
  );
}
