/**
 * The one mean every diagnostic uses: the mean of a key over the records that HAVE it.
 *
 * Rules (the same in every table):
 * - A record without the key is counted in `missing`, never read as 0.
 * - A NaN or ±Infinity value is excluded from the mean and counted in `nonFinite`; the caller warns
 *   through its Reporter naming run, step and key (one warning per excluded value).
 * - No record, or no finite value, gives `mean: null` and a `note` saying why; never 0, never a throw.
 * - An overall ("all") mean is accumulated from the records themselves, not as a mean of round means.
 * - Sums are compensated (Neumaier), so a mean over 10^6 values does not drift with record order.
 */
import type { AlignedRuns, Reporter, AxisRecord, UpdateRecord } from "../types";
import { forEachBlock } from "../values/key-column";
import { aliasOf, grainOf, keysFor, metricByKey } from "../registry/metric-lookup";
import type { FrameworkProfile } from "../registry/framework-profile";
import { profileOfAligned } from "../registry/profiles";
import type { MetricGrain, MetricSpec } from "../registry/metric-spec";
import { describeRollout, describeUpdate } from "./record-label";
import { roundIndex, RoundSlot, rolloutRoundPosition, updateRoundPosition } from "./round-index";

/** A mean over the records of one group (a round, or all rounds) that carry a key. */
export interface MeanResult {
  /** Mean of the finite values; null when there is none (see `note`). */
  mean: number | null;
  /** Finite values used. */
  n: number;
  /** NaN / ±Infinity values excluded. */
  nonFinite: number;
  /** Records of the group without the key. */
  missing: number;
  /** Why the mean is null, or what was left out; null when every record gave a finite value. */
  note: string | null;
}

/** Accumulates one key over one group of records in a single pass (compensated sum). */
export class MeanAccumulator {
  private sum = 0;
  private comp = 0;
  /** Finite values added. */
  n = 0;
  /** NaN / ±Infinity values seen (excluded). */
  nonFinite = 0;
  /** Records without the key (a caller that discovers keys late may set this before `result`). */
  missing = 0;

  /** Adds one record's value (`undefined` = key absent). Returns false when the value is NaN or ±Infinity. */
  add(v: number | undefined): boolean {
    if (v === undefined) {
      this.missing++;
      return true;
    }
    return this.addNumber(v);
  }

  /**
   * Adds a value the record has (its absence is counted in `missing`). Returns false when it is NaN or
   * ±Infinity. Callers reading typed columns call this: a `number | undefined` would box each double.
   */
  addNumber(v: number): boolean {
    if (v - v !== 0) {
      // v - v is NaN exactly for NaN and ±Infinity: one comparison instead of Number.isFinite's call.
      this.nonFinite++;
      return false;
    }
    const t = this.sum + v;
    if (Math.abs(this.sum) >= Math.abs(v)) this.comp += this.sum - t + v;
    else this.comp += v - t + this.sum;
    this.sum = t;
    this.n++;
    return true;
  }

  /**
   * The mean and its note. `round` is the round label, or null for all rounds together; `noun`
   * names the records in plural ("optimizer updates").
   */
  result(round: string | null, noun: string, key: string): MeanResult {
    const records = this.n + this.nonFinite + this.missing;
    const where = round === null ? "all rounds" : `round ${round}`;
    let note: string | null = null;
    if (records === 0) {
      note = round === null ? `no round has ${noun}` : `round ${round} has no ${noun}`;
    } else if (this.missing === records) {
      note = `${where}: none of the ${records} ${noun} has ${key}`;
    } else if (this.n === 0) {
      note = `${where}: all ${this.nonFinite} values of ${key} are non-finite (NaN or ±Infinity); no mean`;
      if (this.missing > 0) note += `; ${this.missing} of ${records} ${noun} lack it`;
    } else if (this.nonFinite > 0 || this.missing > 0) {
      const parts: string[] = [];
      if (this.nonFinite > 0) parts.push(`${this.nonFinite} non-finite value${this.nonFinite === 1 ? "" : "s"} of ${key} excluded`);
      if (this.missing > 0) parts.push(`${this.missing} of ${records} ${noun} lack ${key}`);
      note = `${where}: ${parts.join("; ")}`;
    }
    return {
      mean: this.n === 0 ? null : (this.sum + this.comp) / this.n,
      n: this.n,
      nonFinite: this.nonFinite,
      missing: this.missing,
      note,
    };
  }
}

/** The warning for one excluded value, e.g. `run abc train/step 12 (update 11, _step 30): train/grad_norm is NaN; excluded from means`. */
export function nonFiniteMessage(where: string, key: string, value: number): string {
  return `${where}: ${key} is ${value}; excluded from means`;
}

/** Unique notes of a list of results, in order (for a table's `notes`). */
export function collectNotes(results: Iterable<MeanResult>): string[] {
  const seen = new Set<string>();
  for (const r of results) if (r.note !== null) seen.add(r.note);
  return [...seen];
}

/** One round's mean of one key. */
export interface RoundMeanRow {
  round: string;
  runId: string | null;
  /** Records of the round (updates or rollout batches), with or without the key. */
  records: number;
  value: MeanResult;
}

/** Per-round and overall mean of one key. */
export interface RoundMeans {
  key: string;
  /** Schema entry of the key; undefined when the schema does not describe it. */
  metric: MetricSpec | undefined;
  grain: MetricGrain;
  rows: RoundMeanRow[];
  all: RoundMeanRow;
  notes: string[];
}

/** Options of {@link roundMeans}. */
export interface RoundMeansOptions {
  /** Records to average over; default: the schema grain of the key, else its key family's grain. */
  grain?: MetricGrain;
  /** Receives one warning per excluded non-finite value. */
  reporter?: Reporter;
}

/**
 * Mean of any key per round and over all rounds (updates for `train/*`, rollout batches otherwise).
 * @example roundMeans(aligned, "train/loss").rows.map((r) => r.value.mean)
 */
export function roundMeans(aligned: AlignedRuns, key: string, opts: RoundMeansOptions = {}): RoundMeans {
  const profile = profileOfAligned(aligned);
  const grain = opts.grain ?? grainOf(profile, key);
  if (grain !== "update" && grain !== "rollout") throw new Error(`invalid grain: ${grain} (key ${key} has no known family; pass grain "update" or "rollout")`);
  const index = roundIndex(aligned);
  const accs = index.rounds.map(() => new MeanAccumulator());
  const all = new MeanAccumulator();
  const counts = index.rounds.map(() => 0);
  const warn = opts.reporter?.warn?.bind(opts.reporter);
  const alias = new AliasUse(profile, key, keysFor(profile, key), index.rounds.length);
  const records: readonly (UpdateRecord | AxisRecord)[] = grain === "update" ? aligned.updates : aligned.rollouts;
  // Throws naming record j, whose round is not in the index.
  const unknown = (j: number) => (grain === "update" ? updateRoundPosition(index, aligned.updates[j]) : rolloutRoundPosition(index, aligned.rollouts[j]));
  const describe = (j: number) => (grain === "update" ? describeUpdate(aligned.updates[j], index.updateKey) : describeRollout(aligned.rollouts[j]));
  const slot = new RoundSlot(index.position);
  // Typed columns a block at a time (lib/values/key-column.ts): no getter call or boxed number per record.
  forEachBlock(records, [keysFor(profile, key)], (from, to, [col]) => {
    for (let j = from; j < to; j++) {
      let i = slot.of(records[j].round);
      if (i < 0) i = unknown(j);
      counts[i]++;
      const found = col.found[j - from];
      if (found === 0) {
        all.missing++;
        accs[i].missing++;
        continue;
      }
      if (found > 1) alias.count(i, found - 1);
      const v = col.values[j - from];
      all.addNumber(v);
      if (!accs[i].addNumber(v) && warn) warn(nonFiniteMessage(describe(j), key, v));
    }
  });
  const noun = grain === "update" ? "optimizer updates" : "rollout batches";
  const rows = index.rounds.map((round, i) => ({
    round,
    runId: index.runIds[i],
    records: counts[i],
    value: accs[i].result(round, noun, key),
  }));
  const allRow = { round: "all", runId: null, records: counts.reduce((a, b) => a + b, 0), value: all.result(null, noun, key) };
  const notes = collectNotes([...rows, allRow].map((r) => r.value)).concat(alias.notes(index.rounds, noun));
  return { key, metric: metricByKey(profile, key), grain, rows, all: allRow, notes };
}

/**
 * Counts, per round slot, records that logged an older alias of a key instead of the key itself
 * (schema aliases: renamed keys of older slime versions; the first present of `keys` is read), and
 * words the notes.
 */
export class AliasUse {
  private readonly counts: Map<string, number>[];
  constructor(
    private readonly profile: FrameworkProfile,
    private readonly key: string,
    private readonly keys: readonly string[],
    slots: number,
  ) {
    this.counts = Array.from({ length: slots }, () => new Map<string, number>());
  }

  /**
   * Counts a read of keys[k] (k >= 1: an older name) in `slot`. Callers read the key then its older
   * names as one typed column (lib/values/key-column.ts, whose `found` says which name was read).
   */
  count(slot: number, k: number): void {
    const m = this.counts[slot];
    m.set(this.keys[k], (m.get(this.keys[k]) ?? 0) + 1);
  }

  /** One note per round and alias read, e.g. "round R0: 40 record(s) logged X instead of Y, read as Y: <what differs>". */
  notes(rounds: readonly string[], noun: string): string[] {
    const out: string[] = [];
    this.counts.forEach((m, i) => {
      if (i >= rounds.length) return;
      for (const [old, n] of m) {
        const alias = aliasOf(this.profile, old);
        out.push(
          `round ${rounds[i]}: ${n} ${noun} logged ${old} (${this.profile.label} until ${alias?.alias.until ?? "?"}) instead of ${this.key}, read as it: ${alias?.alias.note ?? ""}`,
        );
      }
    });
    return out;
  }
}
