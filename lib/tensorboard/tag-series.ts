/**
 * The values of one run's tags as read in file order, with the one superseding rule: a value of tag
 * `t` at step `s` supersedes every value of `t` at step >= `s` read before it. Across files this is
 * a restart re-logging from its checkpoint (the earlier process's values from there on are orphaned);
 * within a file, a step logged twice keeps the later value. It is TensorBoard's purge of orphaned
 * data by tag (event_accumulator `_CheckForOutOfOrderStepAndMaybePurge`), applied across the files
 * of a directory. Each tag's kept steps therefore stay strictly increasing.
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

/** One run's tags as they stand after superseding. */
export class TagSeries {
  private readonly series = new Map<string, Series>();
  private readonly superseded = new Map<string, SupersededCount>();

  /** Adds one value read from file `file` (files are added in read order). */
  add(tag: string, step: number, value: number, wall: number, file: number): void {
    let s = this.series.get(tag);
    if (s === undefined) {
      s = { steps: [], values: [], walls: [], files: [] };
      this.series.set(tag, s);
    }
    const n = s.steps.length;
    if (n > 0 && s.steps[n - 1] >= step) this.supersede(s, step, file);
    s.steps.push(step);
    s.values.push(value);
    s.walls.push(wall);
    s.files.push(file);
  }

  /** Superseded values, grouped by (file, by), in file order. */
  supersededCounts(): SupersededCount[] {
    return Array.from(this.superseded.values()).sort((a, b) => a.file - b.file || a.by - b.by);
  }

  /**
   * The kept values as one row per step, steps ascending: `_step` the step, `_timestamp` the latest
   * wall time among the row's values, then the tags in first-seen order.
   */
  rows(): Record<string, number>[] {
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

  private supersede(s: Series, step: number, by: number): void {
    while (s.steps.length > 0 && s.steps[s.steps.length - 1] >= step) {
      const old = s.steps.pop()!;
      const file = s.files.pop()!;
      s.values.pop();
      s.walls.pop();
      const key = `${file}:${by}`;
      const c = this.superseded.get(key);
      if (c === undefined) this.superseded.set(key, { file, by, values: 1, fromStep: old, toStep: old });
      else {
        c.values++;
        c.fromStep = Math.min(c.fromStep, old);
        c.toStep = Math.max(c.toStep, old);
      }
    }
  }
}
