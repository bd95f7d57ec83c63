/**
 * Scores of detectors on the labelled corpus: per rule and per fault class, recall (fault runs with a
 * flag raised at or after k, of those whose fault showed in the framework's own record), median delay (logged values from k to the flag), and false alarms per
 * 1,000 healthy logged values (every flag on a healthy twin, and every flag raised before k on a fault
 * run, over the logged values of both).
 */
import { HEALTH_CHECKS } from "../../lib/health/health-checks";
import { runHealthChecks } from "../../lib/health/run-health-checks";
import type { CorpusRun } from "./corpus";
import { PEER, PEER_LADDER, peerFlags, type PeerParams } from "./peer";

/** One raised flag of a detector on one run. */
export interface Raised {
  rule: string;
  raisedAt: number;
}

/** What a side (ours or the peer) raised on each run. */
export interface SideFlags {
  side: "ours" | "peer";
  byRun: Map<string, Raised[]>;
  /** Per run, the rules that could read it (not applicable ones are left out of that rule's scores); absent: every rule. */
  applicable?: Map<string, Set<string>>;
}

/** Our checks' flags per run (one flag per range, raised where its condition was complete). */
export function ourFlags(corpus: readonly CorpusRun[]): SideFlags {
  const byRun = new Map<string, Raised[]>();
  const applicable = new Map<string, Set<string>>();
  for (const r of corpus) {
    const report = runHealthChecks(r.aligned);
    byRun.set(
      r.label.id,
      report.flags.map((f) => ({ rule: f.check, raisedAt: f.raisedAt ?? f.first })),
    );
    applicable.set(r.label.id, new Set(report.results.filter((x) => x.status !== "not applicable").map((x) => x.check)));
  }
  return { side: "ours", byRun, applicable };
}

/** The peer's flags per run, consecutive raises of one rule merged into one flag (as ours are ranges). */
export function theirFlags(corpus: readonly CorpusRun[], params: PeerParams = PEER): SideFlags {
  const byRun = new Map<string, Raised[]>();
  for (const r of corpus) {
    const raw = peerFlags(r.aligned, params);
    const index = new Map(r.positions.map((x, i) => [x, i]));
    const merged: Raised[] = [];
    const last = new Map<string, number>();
    for (const f of raw.sort((a, b) => a.raisedAt - b.raisedAt)) {
      const i = index.get(f.raisedAt) ?? -2;
      if (last.get(f.rule) !== i - 1) merged.push(f);
      last.set(f.rule, i);
    }
    byRun.set(r.label.id, merged);
  }
  return { side: "peer", byRun };
}

/** A score over some runs. */
export interface Score {
  /** Fault runs whose fault showed in the framework's own record (labels.json `visible`): recall's denominator. */
  faultRuns: number;
  /** Fault runs whose fault never showed in the framework's own record: not counted in recall. */
  unseen: string[];
  caught: number;
  /** Delays in logged values from k, one per caught run. */
  delays: number[];
  /** Delays in logged values from the step the fault became visible in the framework's own record (labels.json), one per caught run that has one. */
  visibleDelays: number[];
  falseAlarms: number;
  healthyValues: number;
}

const empty = (): Score => ({ faultRuns: 0, unseen: [], caught: 0, delays: [], visibleDelays: [], falseAlarms: 0, healthyValues: 0 });

/** Logged values of a run before position k (all of them for a healthy twin). */
function healthyPart(r: CorpusRun): number {
  const k = r.label.k;
  return k === null ? r.positions.length : r.positions.filter((x) => x < k).length;
}

/** Logged values from the first at or after `from` up to (not including) the flag's position (0 when raised before `from`). */
function delayOf(r: CorpusRun, from: number, raisedAt: number): number {
  return r.positions.filter((x) => x >= from && x < raisedAt).length;
}

/**
 * Scores `side` on `runs`, counting only flags that `counts` accepts (a rule, or all). Recall counts
 * fault runs of `classes` only (all fault classes when null).
 */
export function scoreOf(
  runs: readonly CorpusRun[],
  side: SideFlags,
  counts: (rule: string) => boolean,
  classes: readonly string[] | null,
  rule?: string,
): Score {
  const s = empty();
  for (const r of runs) {
    // A rule is scored only on the runs it can read (its framework logs what it reads).
    if (rule !== undefined && side.applicable?.get(r.label.id)?.has(rule) === false) continue;
    const flags = (side.byRun.get(r.label.id) ?? []).filter((f) => counts(f.rule));
    const k = r.label.k;
    s.healthyValues += healthyPart(r);
    s.falseAlarms += flags.filter((f) => k === null || f.raisedAt < k).length;
    if (k === null || (classes !== null && !classes.includes(r.label.fault))) continue;
    // A fault that never showed in the framework's own record cannot be seen in its history either.
    if (r.label.visible === null) {
      s.unseen.push(r.label.id);
      continue;
    }
    s.faultRuns++;
    const after = flags.filter((f) => f.raisedAt >= k).map((f) => f.raisedAt);
    if (after.length === 0) continue;
    s.caught++;
    s.delays.push(delayOf(r, k, Math.min(...after)));
    s.visibleDelays.push(delayOf(r, r.label.visible.step, Math.min(...after)));
  }
  return s;
}

/** Median of some numbers; null for none. */
export function median(xs: readonly number[]): number | null {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** False alarms per 1,000 healthy logged values. */
export function perThousand(s: Score): number {
  return s.healthyValues === 0 ? 0 : (1000 * s.falseAlarms) / s.healthyValues;
}

/** The classes each of our checks declares it detects (HealthCheck.detects). */
export function declaredClasses(): Map<string, readonly string[]> {
  return new Map(HEALTH_CHECKS.filter((c) => c.detects !== undefined).map((c) => [c.name, c.detects as readonly string[]]));
}

/** False alarms of the peer's flags whose rule starts with `prefix`, over `runs`. */
function peerFalseAlarms(runs: readonly CorpusRun[], params: PeerParams, prefix: string): number {
  return scoreOf(runs, theirFlags(runs, params), (rule) => rule.startsWith(prefix), null).falseAlarms;
}

/** The peer at the setting `matchedPeer` chose, and whether it met the budget. */
export interface MatchedPeer {
  params: PeerParams;
  /** False on a ladder none of whose rungs meets the budget: `params` is then its strictest rung. */
  fits: boolean;
  calibrateFalseAlarms: number;
}

/**
 * The peer made as strict as it must be to raise no more false alarms than ours on `calibrate`: the
 * least strict sigma of PEER_LADDER within that budget, then the least strict entropy floor within
 * what is left (NaN-anywhere never raises one on a healthy value). When no rung fits, the strictest.
 */
export function matchedPeer(calibrate: readonly CorpusRun[], budget: number): MatchedPeer {
  // Each family's flags are its own (theirFlags merges raises per rule), so their false alarms add up.
  const sigmaFas = PEER_LADDER.sigma.map((x) => peerFalseAlarms(calibrate, { ...PEER, sigma: x }, "peer_3sigma"));
  const i = rungWithin(sigmaFas, budget);
  const nanFas = peerFalseAlarms(calibrate, PEER, "peer_nan");
  const floorFas = PEER_LADDER.entropyFloor.map((x) => peerFalseAlarms(calibrate, { ...PEER, entropyFloor: x }, "peer_entropy"));
  const j = rungWithin(floorFas, budget - sigmaFas[i] - nanFas);
  const calibrateFalseAlarms = sigmaFas[i] + nanFas + floorFas[j];
  return {
    params: { ...PEER, sigma: PEER_LADDER.sigma[i], entropyFloor: PEER_LADDER.entropyFloor[j] },
    fits: calibrateFalseAlarms <= budget,
    calibrateFalseAlarms,
  };
}

/** The first (least strict) rung whose false alarms fit `budget`, else the last (strictest). */
function rungWithin(falseAlarms: readonly number[], budget: number): number {
  const i = falseAlarms.findIndex((f) => f <= budget);
  return i < 0 ? falseAlarms.length - 1 : i;
}
