/**
 * The train/inference mismatch panel of a run set: every declared mismatch metric its framework
 * logs (lib/registry/mismatch.ts), with its round means, its drift (slope over round means and
 * inside each round), its jump at each restart, the correction's statistics, the quantities the
 * framework does not log (and why), the keys that only look like mismatch keys, and what logged
 * means cannot show.
 */
import type { AlignedRuns, Reporter } from "../types";
import { MISMATCH_NOT_SHOWN, MISMATCH_QUANTITIES, MISMATCH_QUANTITY_IDS, type MismatchQuantityId } from "../registry/mismatch";
import { profileOfAligned, recordAxisTitle } from "../registry/profiles";
import { anyHasKey } from "../values/key-column";
import { correctionEffect, type CorrectionEffect } from "./mismatch-correction";
import { driftOverRounds, driftWithinRounds, type DriftOverRounds, type DriftWithinRound } from "./mismatch-drift";
import { resumeJumps, resumePoints, type ResumeJump, type ResumePoint } from "./mismatch-resumes";
import { mismatchSeries, type MismatchNotLogged, type MismatchSeries } from "./mismatch-series";

/** Points before a restart its jump is measured against, by default (also the default of mismatch_resume_spike). */
export const MISMATCH_RESUME_WINDOW = 3;

/** One logged metric of the panel. */
export interface MismatchPanelEntry {
  series: MismatchSeries;
  /** The quantity's label and unit (lib/registry/mismatch.ts). */
  label: string;
  unit: string;
  drift: DriftOverRounds;
  within: DriftWithinRound[];
  jumps: ResumeJump[];
}

/** The panel. */
export interface MismatchPanel {
  framework: string;
  /** What a point's x is, e.g. "rollout batch (rollout/step)", "training step (training/global_step)". */
  xTitle: string;
  entries: MismatchPanelEntry[];
  resumes: ResumePoint[];
  /** Quantities the framework logs no key for, with its reason. */
  absent: { quantity: MismatchQuantityId; reason: string }[];
  /** Declared keys this run set does not log, with when the framework logs them. */
  notLogged: MismatchNotLogged[];
  /** Keys the run set logs that look like mismatch keys but are not, with what they are. */
  lookAlikes: { key: string; is: string }[];
  correction: CorrectionEffect;
  /** What logged means cannot show. */
  notShown: string;
  /** Why the panel is empty (no declared mismatch key logged); null when it has entries. */
  empty: string | null;
}

/**
 * The panel of a run set; `window`: points before a restart its jump is measured against.
 * @example mismatchPanel(aligned).entries.map((e) => e.drift.text)
 */
export function mismatchPanel(aligned: AlignedRuns, opts: { window?: number; reporter?: Reporter } = {}): MismatchPanel {
  const profile = profileOfAligned(aligned);
  const { series, notLogged } = mismatchSeries(aligned, { reporter: opts.reporter });
  const resumes = resumePoints(aligned);
  const window = opts.window ?? MISMATCH_RESUME_WINDOW;
  const entries = series.map((s) => ({
    series: s,
    label: MISMATCH_QUANTITIES[s.quantity].label,
    unit: MISMATCH_QUANTITIES[s.quantity].unit,
    drift: driftOverRounds(s),
    within: driftWithinRounds(s),
    jumps: resumeJumps(s, resumes, window),
  }));
  const absent: MismatchPanel["absent"] = [];
  for (const quantity of MISMATCH_QUANTITY_IDS) {
    const m = profile.mismatch.metrics[quantity];
    if ("absent" in m) absent.push({ quantity, reason: m.absent });
  }
  const lookAlikes = profile.mismatch.lookAlikes.filter((l) => anyHasKey(aligned.updates, [l.key]) || anyHasKey(aligned.rollouts, [l.key]));
  return {
    framework: profile.label,
    xTitle: recordAxisTitle(profile),
    entries,
    resumes,
    absent,
    notLogged,
    lookAlikes,
    correction: correctionEffect(series),
    notShown: MISMATCH_NOT_SHOWN,
    empty:
      entries.length === 0
        ? `these ${profile.label} runs log none of its declared mismatch keys (${notLogged.map((n) => `${n.name}: ${n.when}`).join("; ")})`
        : null,
  };
}
