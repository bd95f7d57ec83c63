/**
 * Records' values copied straight from their rows' stores, by a plan made once per row shape (an
 * update) or per sequence of row shapes (a rollout record's rows): which row and position each value
 * comes from, and which keys two rows both hold and must agree on. Only for compact records of rows
 * that have a shape (packed or view rows); anything else, and every record whose rows disagree or
 * repeat a slot, takes the general path (pickKeys, RolloutMerge), which reports it. The general path
 * copies each row into a scratch array, pushes key by key and looks its key sequence up per record:
 * at 10^6 updates that was 0.9 s for the updates and as much for the rollout records. Internal to
 * lib/align/slime.
 */
import type { ViewClass, ViewPlace } from "../../values/compact-values";
import type { ValuesBuilder } from "../../values/values-builder";
import type { RowReader } from "../row-reader";
import { K_INTERNAL, type KeyInfo } from "./key-flags";
import type { ShapeKeyInfos } from "./shape-key-infos";

const F_INTERNAL = K_INTERNAL;

/** How a record's values are gathered (see ValuesArena.gather) and which pairs must agree. */
interface Plan {
  View: ViewClass;
  n: number;
  row: Uint8Array;
  index: Int32Array;
  /** Pairs of values that must be equal (=== or both NaN): row, index, row, index for each. */
  agree: Int32Array;
}

/** Rows per rollout record a plan covers (more: the general path). */
const MAX_ROWS = 8;
/** Shape ids a rollout plan key holds (10 bits each, 5 rows fit a double exactly; more rows: a string key). */
const SHAPE_BITS = 1024;

/** The plan of values taken from rows of these key lists (with their facts), in order: first occurrence of each key not internal. */
function planOf(vb: ValuesBuilder, lists: readonly (readonly string[])[], infos: readonly (readonly KeyInfo[])[]): Plan | null {
  const keys: string[] = [];
  const rows: number[] = [];
  const index: number[] = [];
  const agree: number[] = [];
  const at = new Map<string, number>();
  lists.forEach((list, r) => {
    list.forEach((key, j) => {
      if (infos[r][j].flags & F_INTERNAL) return;
      const k = at.get(key);
      if (k === undefined) {
        at.set(key, keys.length);
        keys.push(key);
        rows.push(r);
        index.push(j);
      } else agree.push(rows[k], index[k], r, j);
    });
  });
  const View = vb.viewClassOf(keys);
  if (View === null) return null;
  return { View, n: keys.length, row: Uint8Array.from(rows), index: Int32Array.from(index), agree: Int32Array.from(agree) };
}

/** Update rows' values (every key but W&B bookkeeping), by a plan per row shape. */
export class UpdatePlans {
  private readonly byShape: (Plan | null | undefined)[] = [];
  private readonly place: ViewPlace = { store: new Float64Array(0), at: 0, keys: [] };
  private readonly stores: Float64Array[] = [new Float64Array(0)];
  private readonly bases: number[] = [0];

  constructor(
    private readonly reader: RowReader,
    private readonly infos: ShapeKeyInfos,
    private readonly vb: ValuesBuilder,
  ) {}

  /** Row i's values, or null when it has no plan (a plain row, plain mode): pickKeys makes them then. */
  values(i: number): Record<string, number> | null {
    const s = this.reader.shape(i);
    if (s < 0 || !this.reader.place(i, this.place)) return null;
    let plan = this.byShape[s];
    if (plan === undefined) {
      const keys = this.place.keys;
      this.byShape[s] = plan = planOf(this.vb, [keys], [this.infos.of(i, keys)]);
    }
    if (plan === null) return null;
    this.stores[0] = this.place.store;
    this.bases[0] = this.place.at;
    return this.vb.gather(plan.View, plan.n, this.stores, this.bases, plan.row, plan.index);
  }
}

/** Rollout records' values from their linked rows, by a plan per sequence of row shapes. */
export class RolloutPlans {
  private readonly plans = new Map<number | string, Plan | null>();
  private readonly place: ViewPlace = { store: new Float64Array(0), at: 0, keys: [] };
  private readonly stores: Float64Array[] = [];
  private readonly bases: number[] = [];
  private readonly rows: number[] = [];

  constructor(
    private readonly reader: RowReader,
    private readonly infos: ShapeKeyInfos,
    private readonly vb: ValuesBuilder,
  ) {}

  /**
   * The values of the record whose rows are linked from `first` through `rowNext`, or null when the
   * general merge must make them: a row without a shape, too many rows, no plan, or two rows that
   * disagree on a key. Slots repeated (duplicate rows) are the caller's to rule out first.
   */
  values(first: number, rowNext: Int32Array): Record<string, number> | null {
    const { reader, place, stores, bases, rows } = this;
    let count = 0;
    let key: number | string = 0;
    for (let i = first; i >= 0; i = rowNext[i]) {
      const s = reader.shape(i);
      if (s < 0 || s >= SHAPE_BITS - 1 || count === MAX_ROWS || !reader.place(i, place)) return null;
      stores[count] = place.store;
      bases[count] = place.at;
      rows[count] = i;
      key = count < 5 ? (key as number) * SHAPE_BITS + s + 1 : `${key},${s}`;
      count++;
    }
    let plan = this.plans.get(key);
    if (plan === undefined) {
      const lists = rows.slice(0, count).map((i) => reader.keys(i));
      plan = planOf(
        this.vb,
        lists,
        lists.map((keys, r) => this.infos.of(rows[r], keys)),
      );
      this.plans.set(key, plan);
    }
    if (plan === null) return null;
    const agree = plan.agree;
    for (let q = 0; q < agree.length; q += 4) {
      const a = stores[agree[q]][bases[agree[q]] + agree[q + 1]];
      const b = stores[agree[q + 2]][bases[agree[q + 2]] + agree[q + 3]];
      if (!(a === b || (a !== a && b !== b))) return null;
    }
    return this.vb.gather(plan.View, plan.n, stores, bases, plan.row, plan.index);
  }
}
