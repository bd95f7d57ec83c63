/**
 * Policy diagnostics per round: entropy, clip fraction, gradient norm, |train - rollout log-prob|
 * and ppo_kl (split by the update's position in its rollout batch) as means over optimizer updates;
 * actor training throughput as a mean over rollout batches. One pass over updates, one over rollouts.
 */
import type { AlignedRuns, Reporter } from "../types";
import { assertMappingHolds } from "../axes/coverage";
import { keysFor, METRICS } from "../schema/slime-metrics";
import { describeRollout, describeUpdate } from "./record-label";
import { AliasUse, collectNotes, MeanAccumulator, nonFiniteMessage, type MeanResult } from "./round-mean";
import { roundIndex, rolloutRoundPosition, updateRoundPosition } from "./round-index";
import type { TableColumn } from "./table-column";

/** The mean columns of the policy table. */
export type PolicyMeanField =
  | "entropy"
  | "clipfrac"
  | "gradNorm"
  | "actorTokPerS"
  | "logprobAbsDiff"
  | "ppoKlFirst"
  | "ppoKlLater";

/** One round (or the `all` row) of the policy table. */
export interface PolicyRoundRow extends Record<PolicyMeanField, MeanResult> {
  /** Round label, or "all". */
  round: string;
  /** Run id of the round; null for the `all` row. */
  runId: string | null;
  /** Optimizer updates of the round. */
  updates: number;
  /** Rollout batches of the round (what actorTokPerS is averaged over). */
  rollouts: number;
}

/** Policy diagnostics per round plus an `all` row over every record. */
export interface PolicyRoundTable {
  columns: TableColumn<PolicyMeanField>[];
  /** One row per round, in `aligned.rounds` order. */
  rows: PolicyRoundRow[];
  /** All records of all rounds together (not a mean of the round means). */
  all: PolicyRoundRow;
  /** Unique notes of all cells (empty rounds, missing keys, excluded values). */
  notes: string[];
}

/** Options of {@link policyRoundTable}. */
export interface PolicyRoundTableOptions {
  /** Build the table although the axis mapping does not hold for some run (lib/axes/coverage.ts). Default false: refuse. */
  allowIssues?: boolean;
  /** Receives one warning per excluded NaN / ±Infinity value, naming run, step and key. */
  reporter?: Reporter;
}

const UPDATES = "optimizer updates";
const FIRST = "first updates of a rollout batch (position 0)";
const LATER = "later updates of a rollout batch (position >= 1)";
const ROLLOUTS = "rollout batches";

/** Column order and meaning of the policy table. */
export const POLICY_COLUMNS: readonly TableColumn<PolicyMeanField>[] = [
  { field: "entropy", label: METRICS.entropy.label, metric: METRICS.entropy, over: UPDATES },
  { field: "clipfrac", label: METRICS.clipfrac.label, metric: METRICS.clipfrac, over: UPDATES },
  { field: "gradNorm", label: METRICS.gradNorm.label, metric: METRICS.gradNorm, over: UPDATES },
  { field: "actorTokPerS", label: METRICS.actorTokPerS.label, metric: METRICS.actorTokPerS, over: ROLLOUTS },
  { field: "logprobAbsDiff", label: METRICS.logprobAbsDiff.label, metric: METRICS.logprobAbsDiff, over: UPDATES },
  { field: "ppoKlFirst", label: `${METRICS.ppoKl.label} (first update of batch)`, metric: METRICS.ppoKl, over: FIRST },
  { field: "ppoKlLater", label: `${METRICS.ppoKl.label} (later updates of batch)`, metric: METRICS.ppoKl, over: LATER },
];

/** Update-grain columns read straight from one key. */
const UPDATE_FIELDS = ["entropy", "clipfrac", "gradNorm", "logprobAbsDiff"] as const;

/**
 * Per-round means of the policy diagnostics, plus an `all` row.
 * @example const t = policyRoundTable(aligned, { reporter }); t.rows.map((r) => r.entropy.mean)
 */
export function policyRoundTable(aligned: AlignedRuns, opts: PolicyRoundTableOptions = {}): PolicyRoundTable {
  assertMappingHolds(aligned, { allowIssues: opts.allowIssues, what: "the policy round table" });
  const warn = opts.reporter?.warn?.bind(opts.reporter);
  const index = roundIndex(aligned);
  const R = index.rounds.length;
  // Slot R holds the `all` accumulators, so every record feeds its round's slot and slot R.
  const make = () => Array.from({ length: R + 1 }, () => new MeanAccumulator());
  const fieldKeys = UPDATE_FIELDS.map((f) => METRICS[f].key);
  // Older slime versions logged some of these under another key (schema aliases): read them, with a note.
  const fieldAliases = fieldKeys.map((k) => new AliasUse(k, keysFor(k), R + 1));
  const fieldAccs = UPDATE_FIELDS.map(make);
  const klFirst = make();
  const klLater = make();
  const tok = make();
  const updates = new Array<number>(R + 1).fill(0);
  const rollouts = new Array<number>(R + 1).fill(0);
  const klKey = METRICS.ppoKl.key;
  const tokKey = METRICS.actorTokPerS.key;

  for (const u of aligned.updates) {
    const i = updateRoundPosition(index, u);
    updates[i]++;
    const values = u.values;
    for (let f = 0; f < fieldKeys.length; f++) {
      const v = fieldAliases[f].read(values, i);
      const accs = fieldAccs[f];
      accs[R].add(v);
      if (!accs[i].add(v) && warn) warn(nonFiniteMessage(describeUpdate(u), fieldKeys[f], v as number));
    }
    const kl = u.updateInRollout === 0 ? klFirst : klLater;
    const v: number | undefined = values[klKey];
    kl[R].add(v);
    if (!kl[i].add(v) && warn) warn(nonFiniteMessage(describeUpdate(u), klKey, v as number));
  }
  for (const r of aligned.rollouts) {
    const i = rolloutRoundPosition(index, r);
    rollouts[i]++;
    const v: number | undefined = r.values[tokKey];
    tok[R].add(v);
    if (!tok[i].add(v) && warn) warn(nonFiniteMessage(describeRollout(r), tokKey, v as number));
  }
  updates[R] = updates.reduce((a, b) => a + b, 0);
  rollouts[R] = rollouts.reduce((a, b) => a + b, 0);

  const row = (i: number): PolicyRoundRow => {
    const round = i === R ? null : index.rounds[i];
    const [entropy, clipfrac, gradNorm, logprobAbsDiff] = fieldAccs.map((accs, f) =>
      accs[i].result(round, UPDATES, fieldKeys[f]),
    );
    return {
      round: round ?? "all",
      runId: round === null ? null : index.runIds[i],
      updates: updates[i],
      rollouts: rollouts[i],
      entropy,
      clipfrac,
      gradNorm,
      actorTokPerS: tok[i].result(round, ROLLOUTS, tokKey),
      logprobAbsDiff,
      // A round without updates says so, rather than "has no first updates".
      ppoKlFirst: klFirst[i].result(round, updates[i] === 0 ? UPDATES : FIRST, klKey),
      ppoKlLater: klLater[i].result(round, updates[i] === 0 ? UPDATES : LATER, klKey),
    };
  };
  const rows = index.rounds.map((_, i) => row(i));
  const all = row(R);
  const notes = collectNotes([...rows, all].flatMap((r) => POLICY_COLUMNS.map((c) => r[c.field])));
  for (const a of fieldAliases) notes.push(...a.notes(index.rounds, "optimizer update(s)"));
  return { columns: [...POLICY_COLUMNS], rows, all, notes };
}
