/**
 * The values of one run's tags as read in file order, with the one superseding rule: a value of tag
 * `t` at step `s` supersedes every value of `t` at step >= `s` read before it. Across files this is
 * a restart re-logging from its checkpoint (the earlier process's values from there on are orphaned);
 * within a file, a step logged twice keeps the later value. It is TensorBoard's purge of orphaned
 * data by tag (event_accumulator `_CheckForOutOfOrderStepAndMaybePurge`), applied across the files
 * of a directory. Each tag's kept steps therefore stay strictly increasing.
 *
 * Values a later file re-logged are not dropped: `rows()` keeps them, as rows of their own placed
 * before the re-logged steps, so that the frozen history goes back at a restart as a W&B log does and
 * the aligner's one superseding rule decides which records they were (issue 39, case 6).
 */

/** The kept values of one tag, in step order. */
interface Series {
  steps: number[];
  values: number[];
  walls: number[];
  files: number[];
}

/** Values superseded, per file that held them and per file that re-logged them. */
export interface SupersededCount {
  /** Index of the file whose values were superseded. */
  file: number;
  /** Index of the file whose later value superseded them (the same file for a step logged twice). */
  by: number;
  values: number;
  /** Lowest and highest superseded step. */
  fromStep: number;
  toStep: number;
}

/** The values of one file a later file re-logged: step -> its row (tags and the latest wall time). */
type ReloggedRows = Map<number, Record<string, number>>;

/** One run's tags as they stand after superseding. */
export class TagSeries {
  private readonly series = new Map<string, Series>();
  private readonly superseded = new Map<string, SupersededCount>();
  /** Per superseded group across files (key `file:by`), the earlier file's values there, by step. */
  private readonly relogged = new Map<string, ReloggedRows>();

  /** Adds one value read from file `file` (files are added in read order). */
  add(tag: string, step: number, value: number, wall: number, file: number): void {
    let s = this.series.get(tag);
    if (s === undefined) {
      s = { steps: [], values: [], walls: [], files: [] };
      this.series.set(tag, s);
    }
    const n = s.steps.length;
    if (n > 0 && s.steps[n - 1] >= step) this.supersede(tag, s, step, file);
    s.steps.push(step);
    s.values.push(value);
    s.walls.push(wall);
    s.files.push(file);
  }

  /** Superseded values, grouped by (file, by), in file order. */
  supersededCounts(): SupersededCount[] {
    return Array.from(this.superseded.values()).sort((a, b) => a.file - b.file || a.by - b.by);
  }

  /** The groups a later file re-logged (file != by): the restarts, in file order. */
  restarts(): SupersededCount[] {
    return this.supersededCounts().filter((c) => c.file !== c.by);
  }

  /**
   * The rows to freeze: the kept values as one row per step (`_step` the step, `_timestamp` the
   * latest wall time among the row's values, then the tags in first-seen order), and before the kept
   * rows from each restart's first re-logged step on, the re-logged values of the earlier file, one
   * row per step. The steps go back at most once per restart (see `restarts`): the kept rows below a
   * restart's step, its re-logged rows, then the kept rows from that step on.
   */
  rows(): Record<string, number>[] {
    const kept = this.keptRows();
    const groups = this.restarts();
    const out: Record<string, number>[] = [];
    let k = 0;
    const bounds = Array.from(new Set(groups.map((g) => g.fromStep))).sort((a, b) => a - b);
    for (const b of bounds) {
      while (k < kept.length && kept[k]._step < b) out.push(kept[k++]);
      for (const g of groups) if (g.fromStep === b) out.push(...this.reloggedRows(g));
    }
    while (k < kept.length) out.push(kept[k++]);
    return out;
  }

  /** The earlier file's rows of one restart group, steps ascending. */
  private reloggedRows(g: SupersededCount): Record<string, number>[] {
    const rows = this.relogged.get(`${g.file}:${g.by}`)!;
    return Array.from(rows.keys())
      .sort((a, b) => a - b)
      .map((step) => rows.get(step)!);
  }

  /** The kept values, one row per step, steps ascending. */
  private keptRows(): Record<string, number>[] {
    const bySteps = new Map<number, Record<string, number>>();
    for (const [tag, s] of this.series) {
      for (let i = 0; i < s.steps.length; i++) {
        let row = bySteps.get(s.steps[i]);
        if (row === undefined) {
          row = { _step: s.steps[i], _timestamp: s.walls[i] };
          bySteps.set(s.steps[i], row);
        } else if (s.walls[i] > row._timestamp) row._timestamp = s.walls[i];
        row[tag] = s.values[i];
      }
    }
    return Array.from(bySteps.keys())
      .sort((a, b) => a - b)
      .map((step) => bySteps.get(step)!);
  }

  private supersede(tag: string, s: Series, step: number, by: number): void {
    while (s.steps.length > 0 && s.steps[s.steps.length - 1] >= step) {
      const old = s.steps.pop()!;
      const file = s.files.pop()!;
      const value = s.values.pop()!;
      const wall = s.walls.pop()!;
      const key = `${file}:${by}`;
      if (file !== by) this.keepRelogged(key, tag, old, value, wall);
      const c = this.superseded.get(key);
      if (c === undefined) this.superseded.set(key, { file, by, values: 1, fromStep: old, toStep: old });
      else {
        c.values++;
        c.fromStep = Math.min(c.fromStep, old);
        c.toStep = Math.max(c.toStep, old);
      }
    }
  }

  /** Keeps a value a later file re-logged, in its group's row of that step. */
  private keepRelogged(key: string, tag: string, step: number, value: number, wall: number): void {
    let rows = this.relogged.get(key);
    if (rows === undefined) {
      rows = new Map();
      this.relogged.set(key, rows);
    }
    const row = rows.get(step);
    if (row === undefined) rows.set(step, { _step: step, _timestamp: wall, [tag]: value });
    else {
      if (wall > row._timestamp) row._timestamp = wall;
      row[tag] = value;
    }
  }
}
