/**
 * The Reporter of the command-line tools (fetch, export): a cli-progress bar per task on a terminal;
 * off a terminal, warnings and notes as plain lines and progress only if asked for (every 10 %), so
 * CI logs stay short. Everything goes to stderr: stdout carries the tools' results. Past
 * `maxWarnings` warnings (an export at 10^6 updates warns once per excluded NaN, about a thousand
 * lines) the rest are counted by what they say, and stop() prints one line with the counts.
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
  /** Warnings printed as they come (default 20); stop() sums up the rest in one line. */
  maxWarnings?: number;
  /** Said after that sum: where the warnings not printed can be read in full (e.g. the export's health.csv). */
  omittedHint?: string;
}

/** Kinds of omitted warnings named in the closing line; the others are counted together. */
const NAMED_KINDS = 5;

/**
 * Warnings past the first `max`, counted by what they say after their last ": " (the place they
 * name, run and step, left out): `train/grad_norm is NaN; excluded from means`.
 */
export class WarningCap {
  private seen = 0;
  private readonly omitted = new Map<string, number>();

  constructor(
    private readonly max: number,
    private readonly hint?: string,
  ) {
    if (!Number.isInteger(max) || max < 0) throw new Error(`invalid maxWarnings: ${max} (an integer >= 0)`);
  }

  /** True when the warning is to be printed now; otherwise it is counted. */
  take(message: string): boolean {
    this.seen++;
    if (this.seen <= this.max) return true;
    const kind = message.slice(message.lastIndexOf(": ") + 1).trim();
    this.omitted.set(kind, (this.omitted.get(kind) ?? 0) + 1);
    return false;
  }

  /** The closing line about the warnings not printed, null when every warning was. */
  summary(): string | null {
    const n = this.seen - Math.min(this.seen, this.max);
    if (n === 0) return null;
    const kinds = [...this.omitted].sort((a, b) => b[1] - a[1]);
    const named = kinds.slice(0, NAMED_KINDS).map(([kind, count]) => `${count} x "${kind}"`);
    const rest = kinds.slice(NAMED_KINDS).reduce((a, [, count]) => a + count, 0);
    if (rest > 0) named.push(`${rest} of ${kinds.length - NAMED_KINDS} other kind(s)`);
    return `${n} more warning(s) not printed (${this.seen} in all): ${named.join(", ")}${this.hint ? `; ${this.hint}` : ""}`;
  }
}

/** A Reporter for a CLI and the function that ends its bars. */
export function cliReporter(opts: CliReporterOptions): { reporter: Reporter; stop: () => void } {
  const unit = opts.unit ? ` ${opts.unit}` : "";
  const line = (s: string) => process.stderr.write(`${s}\n`);
  const cap = new WarningCap(opts.maxWarnings ?? 20, opts.omittedHint);
  let closed = false;
  const closing = () => {
    const s = closed ? null : cap.summary();
    closed = true;
    if (s !== null) line(`warning: ${s}`);
  };
  if (!opts.tty) {
    const lastDecile = new Map<string, number>();
    const reporter: Reporter = { warn: (m) => void (cap.take(m) && line(`warning: ${m}`)), info: (m) => line(m) };
    if (opts.plainProgress) {
      reporter.progress = (task, done, total) => {
        const decile = total ? Math.floor((10 * done) / total) : done > 0 ? 10 : 0;
        if (lastDecile.get(task) === decile && done !== total) return;
        lastDecile.set(task, decile);
        line(`${task}: ${done}${total === null ? "" : `/${total}`}${unit}`);
      };
    }
    return { reporter, stop: closing };
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
      warn: (m) => void (cap.take(m) && multibar.log(`warning: ${m}\n`)),
      info: (m) => multibar.log(`${m}\n`),
    },
    stop: () => {
      multibar.stop();
      closing();
    },
  };
}
