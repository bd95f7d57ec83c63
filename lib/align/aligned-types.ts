/**
 * Types of alignment's output, beside the aligner (align-runs.ts): the axis mapping, the records
 * (updates, rollout and step records, evals), coverage, issues and notes, and `AlignedRuns`, the
 * only input of summaries, figures, health checks and exports.
 */
import type { RunFlags, RunProfile, RunVersions } from "../archive/manifest-types";

/** What a run's logged keys prove of a version (a profile's VersionKey the run logs), found at alignment. */
export interface VersionBound {
  key: string;
  package: string;
  /** The key is logged from this release on: a run that logs it is at least this version. */
  atLeast?: string;
  /** The key is logged only below this release. */
  below?: string;
}

/** What a history row is, judged from its keys (see lib/align/slime/classify-row.ts). */
export type RowKind = "rollout-manager" | "trainer-rollout" | "optimizer-update" | "critic-update" | "trainer-perf" | "eval" | "other";

/** How one run's step keys map to rollout ids and display update numbers (lib/align). */
export interface RunAxis {
  runId: string;
  round: string;
  /** Optimizer updates per rollout batch in this run (slime's N is constant within a run). */
  n: number;
  /**
   * How rollout/step and eval/step were logged: true = rollout_id * N (slime's
   * `--wandb-always-use-train-step`; divided by N here), false = rollout_id, null = both read the
   * same (N = 1, or only rollout 0), nothing to convert.
   */
  alwaysUseTrainStep: boolean | null;
  /** The evidence that decided N and the flag, one sentence. */
  flagEvidence: string;
  /** First rollout id the run logged (surviving or not); null for a run without rollout or update rows. */
  firstRollout: number | null;
  /** Updates before this run's first rollout in the surviving lineage (display numbering). */
  updateBase: number;
  /** The display-update formula of this run with its numbers. */
  formula: string;
}

/** The axis mapping, inferred from the step keys of the whole set of runs (lib/align). */
export interface AxisMapping {
  /** Optimizer updates per rollout batch: the common N, or the largest when runs differ (see runs). */
  n: number;
  /** First rollout id of the whole set of runs. */
  r0: number;
  formulas: { update: string; rollout: string; updateInRollout: string };
  /** N, the rollout/step reading and the display formula of each run, in run order. */
  runs: RunAxis[];
}

/**
 * One optimizer update (one `train/step`), keys are the W&B `train/*` keys of that row; a critic row of
 * the same train/step (another process) is merged in, its keys staying `train/critic-*`.
 */
export interface UpdateRecord {
  runId: string;
  round: string;
  trainStep: number;
  /** Display number, 1 for the first update: train/step - N*r0 + 1 (per-run N: see RunAxis.formula). */
  update: number;
  /** floor(train/step / N). */
  rollout: number;
  /** train/step mod N, 0-based. */
  updateInRollout: number;
  /** `_step` of the source row (for error messages only; never an axis). */
  historyStep: number;
  values: Record<string, number>;
}

/**
 * One record of the profile's record axis (what its `recordNoun` names): on a batch-and-updates axis
 * one rollout batch, the rows sharing a `rollout/step` merged; on a step axis one logged training step
 * (verl, OpenRLHF, TRL). Keys are the W&B keys. Written to rollouts.csv, whose name stays for the
 * files' readers.
 */
export interface AxisRecord {
  runId: string;
  round: string;
  /** The record's number on its axis: the rollout id, or the framework's logged step. */
  rollout: number;
  /** `_step`s of the merged source rows. */
  historySteps: number[];
  values: Record<string, number>;
}

/**
 * One eval row (`eval/step`). Never merged, never a duplicate: slime evaluates before training at the
 * first rollout id and after training rollout r, so eval/step can repeat (e.g. twice 0).
 */
export interface EvalRecord {
  runId: string;
  round: string;
  /** eval/step as logged (rollout_id * N under --wandb-always-use-train-step). */
  evalStep: number;
  /** Rollout id the eval belongs to (evalStep, divided by N under the flag). */
  rollout: number;
  historyStep: number;
  values: Record<string, number>;
}

/** A coverage or alignment violation. Reported, never silently repaired. */
export interface CoverageIssue {
  runId: string;
  round: string;
  kind:
    | "missing-rollout"
    | "duplicate-rollout"
    | "missing-update"
    | "duplicate-update"
    | "update-without-rollout"
    | "gap-between-rounds"
    | "overlap-between-rounds"
    | "conflicting-values"
    | "unclassified-row"
    | "superseding-dominates";
  /** The step on the relevant axis (rollout id or train/step), or null when not tied to one. */
  step: number | null;
  key: string | null;
  message: string;
}

/** Records a later logging of the same rollouts replaced (a restarted round, or a run resumed in place). */
export interface SupersededRecords {
  runId: string;
  round: string;
  /** The run whose records replace these (the same run when it was resumed in place). */
  byRunId: string;
  byRound: string;
  /** Rollout ids of superseded rollout rows, sorted. */
  rollouts: number[];
  /** Display update numbers of superseded updates, sorted (this run's own formula). */
  updates: number[];
  /** train/step of those updates, parallel to `updates`. */
  trainSteps: number[];
  /** Superseded eval rows. */
  evals: number;
  /** Rollout ids (or steps) of those eval rows, one per row (a step evaluated twice appears twice), sorted. */
  evalRollouts: number[];
  /** History rows superseded. */
  rows: number;
  message: string;
}

/** Frozen rows of a run holding a key the profile maps to a concept (lib/align/key-rows.ts). */
export interface KeyRows {
  runId: string;
  round: string;
  key: string;
  /** Rows of the run's frozen history holding the key. */
  rows: number;
  /** Of those, rows a later logging superseded (excluded from every record). */
  superseded: number;
}

/** Something alignment found and handled, reported but not a coverage problem. */
export interface AlignmentNote {
  runId: string;
  round: string;
  kind: "trailing-rollout" | "critic-only" | "always-use-train-step" | "n-per-run" | "critic-rows" | "superseded" | "run-totals" | "own-rows" | "profile";
  /** Rollout id, when tied to one. */
  step: number | null;
  message: string;
}

/** Per-run coverage summary. */
export interface RunCoverage {
  runId: string;
  round: string;
  historyEvents: number;
  rollouts: number;
  updates: number;
  firstRollout: number | null;
  lastRollout: number | null;
  firstUpdate: number | null;
  lastUpdate: number | null;
  ok: boolean;
  /** History rows of the run by kind (lib/align/slime/classify-row.ts), e.g. critic-update rows kept out of updates. Added by alignRuns. */
  rowKinds?: Record<RowKind, number>;
}

/** Output of alignment: the only input of summaries, figures and exports. */
export interface AlignedRuns {
  mapping: AxisMapping;
  /** Round labels in run order. */
  rounds: string[];
  /** Per run: identity, state, frozen rows, flags and versions as frozen, and the version bounds its keys prove (lib/align/version-bounds.ts). */
  runs: { runId: string; round: string; state: string; historyEvents: number; flags?: RunFlags; versions?: RunVersions; versionBounds?: VersionBound[] }[];
  /** Surviving records only: each rollout id and each update once, under the round that owns it. */
  rollouts: AxisRecord[];
  updates: UpdateRecord[];
  evals: EvalRecord[];
  /** What later loggings replaced, per run and replacing run (excluded from every record list above). */
  superseded: SupersededRecords[];
  /**
   * Critic updates without an actor update (slime's --num-critic-only-steps): the critic's keys and
   * train/step, numbered like updates. Never actor updates: not in `updates`, means or updates.csv.
   */
  criticOnly: UpdateRecord[];
  coverage: RunCoverage[];
  /** Coverage and alignment problems (see lib/align/issues.ts for which ones block numbers). */
  issues: CoverageIssue[];
  /** Handled facts: flags converted, N per run, critic rows, superseded records, a crashed run's last rollout. */
  notes: AlignmentNote[];
  /**
   * Per run, the frozen rows holding each key the profile maps to a concept (and its older aliases),
   * superseded or not; keys no row holds are left out. Set by alignRuns; absent on hand-made alignments.
   */
  keyRows?: KeyRows[];
  /**
   * The framework profile the runs were read with (lib/registry): its name, whether it was detected
   * from the keys or given, and the signature keys that decided. Always named: no framework is the default.
   */
  profile: RunProfile;
}

/** What an axis's aligner returns: the records and their checks, before alignRuns names the profile. */
export type AxisAlignment = Omit<AlignedRuns, "profile">;
