/**
 * The Reporter of the command-line tools (fetch, export): a cli-progress bar per task on a terminal;
 * off a terminal, warnings and notes as plain lines and progress only if asked for (every 10 %), so
 * CI logs stay short. Everything goes to stderr: stdout carries the tools' results.
 */
import * as cliProgress from "cli-progress";
import type { Reporter } from "../lib/types";

/** Options of cliReporter. */
export interface CliReporterOptions {
  /** Draw bars (a terminal). */
  tty: boolean;
  /** Unit after the counts, e.g. "rows". */
  unit?: string;
  /** Off a terminal, print progress lines at each 10 % (default false: only warnings and notes). */
  plainProgress?: boolean;
  /** Remove finished bars (default false). */
  clearOnComplete?: boolean;
}

/** A Reporter for a CLI and the function that ends its bars. */
export function cliReporter(opts: CliReporterOptions): { reporter: Reporter; stop: () => void } {
  const unit = opts.unit ? ` ${opts.unit}` : "";
  const line = (s: string) => process.stderr.write(`${s}\n`);
  if (!opts.tty) {
    const lastDecile = new Map<string, number>();
    const reporter: Reporter = { warn: (m) => line(`warning: ${m}`), info: (m) => line(m) };
    if (opts.plainProgress) {
      reporter.progress = (task, done, total) => {
        const decile = total ? Math.floor((10 * done) / total) : done > 0 ? 10 : 0;
        if (lastDecile.get(task) === decile && done !== total) return;
        lastDecile.set(task, decile);
        line(`${task}: ${done}${total === null ? "" : `/${total}`}${unit}`);
      };
    }
    return { reporter, stop: () => undefined };
  }
  const multibar = new cliProgress.MultiBar(
    {
      format: ` {bar} {percentage}% | {value}/{total}${unit} | {task}`,
      hideCursor: true,
      clearOnComplete: opts.clearOnComplete ?? false,
      stream: process.stderr,
    },
    cliProgress.Presets.shades_classic,
  );
  const bars = new Map<string, cliProgress.SingleBar>();
  return {
    reporter: {
      progress(task, done, total) {
        let bar = bars.get(task);
        if (!bar) {
          bar = multibar.create(total ?? 0, 0, { task });
          bars.set(task, bar);
        }
        if (total !== null) bar.setTotal(total);
        bar.update(done, { task });
      },
      // multibar.log keeps the bars intact below the line.
      warn: (m) => multibar.log(`warning: ${m}\n`),
      info: (m) => multibar.log(`${m}\n`),
    },
    stop: () => multibar.stop(),
  };
}
