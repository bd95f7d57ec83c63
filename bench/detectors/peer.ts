/**
 * The peer baseline: fixed rules as the small "RL health" packages use them, over the same aligned
 * records. Their parameters are those packages' kind of defaults, stated here and in bench/RESULTS.md:
 * entropy below a floor for N logged values, any metric above mean + 3 sigma of its trailing window,
 * and NaN anywhere.
 */
import { CONCEPT_IDS } from "../../lib/registry/concepts";
import { metricOf } from "../../lib/registry/framework-profile";
import { profileOfAligned } from "../../lib/registry/profiles";
import type { AlignedRuns } from "../../lib/types";
import { readValues } from "../../lib/values/compact-values";

/** A peer flag: the rule and where it was raised. */
export interface PeerFlag {
  rule: string;
  raisedAt: number;
}

/** The peer's parameters. */
export interface PeerParams {
  entropyFloor: number;
  entropyN: number;
  sigma: number;
  window: number;
  minHistory: number;
}

/** The packages' kind of defaults. */
export const PEER: PeerParams = { entropyFloor: 0.5, entropyN: 3, sigma: 3, window: 10, minHistory: 5 };

/**
 * Stricter settings for a peer matched to our false alarms (chosen on the calibrate split, see
 * `matchedPeer`): sigma multiples and entropy floors, least strict first.
 */
export const PEER_LADDER = { sigma: [3, 4, 5, 7, 10, 15, 20, 30, 50, 100, 200, 500], entropyFloor: [0.5, 0.3, 0.2, 0.1, 0.05, 0.02, 0.01] };

/** Each record's position and values, rollout-grain records (per logged step) then updates. */
function series(aligned: AlignedRuns, key: string): { x: number; v: number }[] {
  const out: { x: number; v: number }[] = [];
  for (const r of aligned.rollouts) if (key in r.values) out.push({ x: r.rollout, v: r.values[key] });
  for (const u of aligned.updates) if (key in u.values) out.push({ x: u.update, v: u.values[key] });
  return out;
}

/** Every peer flag on one run's aligned records. */
export function peerFlags(aligned: AlignedRuns, params: PeerParams = PEER): PeerFlag[] {
  const profile = profileOfAligned(aligned);
  const flags: PeerFlag[] = [];
  const entropy = metricOf(profile, "entropy");
  if (entropy !== null) flags.push(...entropyFloor(series(aligned, entropy.key), params));
  for (const c of CONCEPT_IDS) {
    const m = metricOf(profile, c);
    if (m !== null) flags.push(...threeSigma(series(aligned, m.key), m.key, params));
  }
  flags.push(...nanAnywhere(aligned));
  return flags;
}

function entropyFloor(s: { x: number; v: number }[], params: PeerParams): PeerFlag[] {
  const out: PeerFlag[] = [];
  let run = 0;
  for (const p of s) {
    run = p.v < params.entropyFloor ? run + 1 : 0;
    if (run === params.entropyN) out.push({ rule: "peer_entropy_floor", raisedAt: p.x });
  }
  return out;
}

function threeSigma(s: { x: number; v: number }[], key: string, params: PeerParams): PeerFlag[] {
  const out: PeerFlag[] = [];
  for (let i = params.minHistory; i < s.length; i++) {
    const w = s
      .slice(Math.max(0, i - params.window), i)
      .map((p) => p.v)
      .filter(Number.isFinite);
    if (w.length < params.minHistory) continue;
    const mean = w.reduce((a, b) => a + b, 0) / w.length;
    const sd = Math.sqrt(w.reduce((a, b) => a + (b - mean) ** 2, 0) / (w.length - 1));
    if (s[i].v > mean + params.sigma * sd) out.push({ rule: `peer_3sigma:${key}`, raisedAt: s[i].x });
  }
  return out;
}

function nanAnywhere(aligned: AlignedRuns): PeerFlag[] {
  const out: PeerFlag[] = [];
  const vals: number[] = [];
  const check = (x: number, values: AlignedRuns["rollouts"][number]["values"]) => {
    const keys = readValues(values, vals);
    for (let j = 0; j < keys.length; j++) {
      if (!Number.isNaN(vals[j])) continue;
      out.push({ rule: "peer_nan", raisedAt: x });
      return;
    }
  };
  for (const r of aligned.rollouts) check(r.rollout, r.values);
  for (const u of aligned.updates) check(u.update, u.values);
  return out;
}
