/**
 * A Reporter for notebook cells and CLIs: warnings and info as lines on stderr/stdout (which tslab
 * shows under the cell), and every warning counted so a cell can show how many values were excluded.
 * Progress is shown only for long tasks: a task prints once it has run `everyMs`, then at most every
 * `everyMs`, and its completion only if it printed before (short tasks stay silent). At most
 * `maxWarnings` warnings are printed (a kernel drops a cell's output past a few hundred messages, and
 * a 10^6-update run can warn on every excluded NaN); then one line says more follow, and every
 * warning is still counted and kept in `warnings`.
 */
import type { Reporter } from "../types";

/** A Reporter that also remembers its warnings. */
export interface CountingReporter extends Required<Reporter> {
  warnings: string[];
}

/**
 * Make a reporter writing through `out` / `err` (default: process.stdout / process.stderr).
 */
export function notebookReporter(
  opts: { everyMs?: number; maxWarnings?: number; out?: (line: string) => void; err?: (line: string) => void } = {},
): CountingReporter {
  const everyMs = opts.everyMs ?? 1000;
  const maxWarnings = opts.maxWarnings ?? 50;
  const out = opts.out ?? ((l: string) => process.stdout.write(l + "\n"));
  const err = opts.err ?? ((l: string) => process.stderr.write(l + "\n"));
  const started = new Map<string, number>();
  const last = new Map<string, number>();
  const warnings: string[] = [];
  return {
    warnings,
    progress(task, done, total) {
      const now = Date.now();
      const start = started.get(task) ?? now;
      started.set(task, start);
      const complete = total !== null && done >= total;
      const printed = last.get(task);
      const due = printed === undefined ? now - start >= everyMs : now - printed >= everyMs;
      if (complete) {
        started.delete(task);
        last.delete(task);
        if (printed === undefined) return;
      } else if (!due) return;
      else last.set(task, now);
      out(`${task}: ${done}${total === null ? "" : ` / ${total}`}`);
    },
    warn(message) {
      warnings.push(message);
      if (warnings.length <= maxWarnings) err(`warning: ${message}`);
      else if (warnings.length === maxWarnings + 1) err(`warning: more warnings follow, not printed (counted: see reporter.warnings)`);
    },
    info(message) {
      out(message);
    },
  };
}
