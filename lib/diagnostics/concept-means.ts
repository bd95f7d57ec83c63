/**
 * Round means of registry concepts, read through the run's framework profile: which key stands for
 * each column's concept and over which records (optimizer updates, or one record per rollout batch /
 * training step / logged step). A column the framework cannot fill carries the reason instead of a
 * mean (never a look-alike key). The engine of the policy and rollout round tables.
 */
import type { AlignedRuns, Reporter } from "../types";
import type { ConceptId } from "../registry/concepts";
import { metricOf, absentReason, type FrameworkProfile } from "../registry/framework-profile";
import { keysFor } from "../schema/slime-metrics";
import { describeRollout, describeUpdate } from "./record-label";
import { AliasUse, MeanAccumulator, nonFiniteMessage, type MeanResult } from "./round-mean";
import { roundIndex, rolloutRoundPosition, updateRoundPosition } from "./round-index";
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
}

/** The columns of a table for one framework: its key, records and reading rule per concept, or why it has none. */
export function resolveColumns<F extends string>(specs: readonly ConceptColumnSpec<F>[], profile: FrameworkProfile): ResolvedColumn<F>[] {
  return specs.map((s) => {
    const metric = metricOf(profile, s.concept);
    const label = `${metric?.label ?? s.concept}${s.suffix ?? ""}`;
    if (metric === null) return { field: s.field, label, metric: null, over: "", subset: s.subset, absent: absentReason(profile, s.concept)! };
    if (metric.grain === "rollout") {
      // Per-record metrics cannot be split by update position.
      if (s.subset !== "all") return { field: s.field, label, metric: null, over: "", subset: s.subset, absent: `${profile.label}: ${profile.updates.note}` };
      return { field: s.field, label, metric, over: profile.recordNoun, subset: s.subset };
    }
    return { field: s.field, label, metric, over: SUBSET_OVER[s.subset], subset: s.subset };
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
  const index = roundIndex(aligned);
  const R = index.rounds.length;
  const make = () => Array.from({ length: R + 1 }, () => new MeanAccumulator());
  const live = columns.filter((c) => c.metric !== null);
  const accs = live.map(make);
  const aliases = live.map((c) => new AliasUse(c.metric!.key, keysFor(c.metric!.key), R + 1));
  const updates = new Array<number>(R + 1).fill(0);
  const rollouts = new Array<number>(R + 1).fill(0);
  const onUpdates = live.map((c, i) => i).filter((i) => live[i].metric!.grain === "update");
  const onRollouts = live.map((c, i) => i).filter((i) => live[i].metric!.grain === "rollout");
  for (const u of aligned.updates) {
    const slot = updateRoundPosition(index, u);
    updates[slot]++;
    for (const i of onUpdates) {
      const sub = live[i].subset;
      if (sub === "first" ? u.updateInRollout !== 0 : sub === "later" ? u.updateInRollout === 0 : false) continue;
      const v = aliases[i].read(u.values, slot);
      accs[i][R].add(v);
      if (!accs[i][slot].add(v) && warn) warn(nonFiniteMessage(describeUpdate(u), live[i].metric!.key, v as number));
    }
  }
  for (const r of aligned.rollouts) {
    const slot = rolloutRoundPosition(index, r);
    rollouts[slot]++;
    for (const i of onRollouts) {
      const v = aliases[i].read(r.values, slot);
      accs[i][R].add(v);
      if (!accs[i][slot].add(v) && warn) warn(nonFiniteMessage(describeRollout(r), live[i].metric!.key, v as number));
    }
  }
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
