/**
 * The archives a server answers from, each opened once and kept aligned in memory, with what its
 * tools derive from it (the summary, the health report, an experiment per compare axis) worked out on
 * first use and kept: every later answer reads the same objects.
 */
import * as path from "node:path";

import { assertMappingHolds } from "../align/issues";
import type { RowReader } from "../align/row-reader";
import { type CompareAxis, ROUND_AXIS } from "../compare/compare-axis";
import { type Experiment, experimentDataOf, experimentOf } from "../compare/experiment";
import { wallClock } from "../compare/wall-clock";
import { unfilledCells } from "../export/filled-cells";
import { summaryColumnsFor, summaryTable, type SummaryExport } from "../export/summary-table";
import { healthSettings, type HealthSettings } from "../health/health-params";
import { runHealthChecks, type HealthReport } from "../health/run-health-checks";
import { profileOfAligned } from "../registry/profiles";
import type { Reporter } from "../types";
import { type OpenedArchive, openServedArchive } from "./open-archive";
import { ToolRefusal } from "./refusal";

/** One archive as the server serves it. */
export class ServedArchive {
  /** What its tools derived from it, by id: a value, or the refusal (asked again, it is refused again without recomputing). */
  private readonly memos = new Map<string, { value: unknown } | { error: unknown }>();

  constructor(
    /** The name agents give it (`--data NAME=DIR`). */
    readonly name: string,
    readonly opened: OpenedArchive,
  ) {}

  get manifestSha256(): string {
    return this.opened.manifestSha256;
  }

  /** A refusal citing this archive's manifest. */
  refuse(code: ConstructorParameters<typeof ToolRefusal>[0], reason: string): ToolRefusal {
    return new ToolRefusal(code, `${this.name}: ${reason}`, this.manifestSha256);
  }

  /** `make()` once per id: its value, or its error thrown again. */
  private once<T>(id: string, make: () => T): T {
    let m = this.memos.get(id);
    if (m === undefined) {
      try {
        m = { value: make() };
      } catch (error) {
        m = { error };
      }
      this.memos.set(id, m);
    }
    if ("error" in m) throw m.error;
    return m.value as T;
  }

  /**
   * Works out the summary and the health report now (a server does, when it opens the archive), so
   * that answering them is a lookup: at 10^6 rows the summary alone takes about a second.
   */
  prepare(): void {
    for (const work of [() => this.summary(), () => this.health()]) {
      try {
        work();
      } catch {
        // Remembered: the tool that asks gets the refusal.
      }
    }
  }

  /** Refuses, as the export does, when the axis mapping does not hold for a run. */
  checkMapping(what: string): void {
    try {
      assertMappingHolds(this.opened.aligned, { what });
    } catch (e) {
      throw this.refuse("mapping_does_not_hold", (e as Error).message);
    }
  }

  /**
   * summary.csv's table and notes, by the export's own code; refused as the export refuses it (the
   * axis mapping does not hold, or a cell stays empty although frozen rows hold its key).
   */
  summary(): SummaryExport {
    return this.once("summary", () => {
      this.checkMapping("the summary");
      const aligned = this.opened.aligned;
      const summary = summaryTable(aligned, { allowIssues: true });
      const unfilled = unfilledCells(summary.table, summaryColumnsFor(profileOfAligned(aligned)), aligned, summary.notes);
      if (unfilled.length > 0) throw this.refuse("unfilled_cells", `${unfilled.map((u) => u.message).join("; ")} (the export refuses these too)`);
      return summary;
    });
  }

  /** The health report with the thresholds the export would use (defaults, runs.json's `health`, HEALTH_* variables of the server's environment). */
  health(): { report: HealthReport; settings: HealthSettings } {
    return this.once("health", () => {
      const settings = healthSettings(process.env, path.join(this.opened.dataDir, "runs.json"));
      return { report: runHealthChecks(this.opened.aligned, settings.params), settings };
    });
  }

  /** The run's row reader, made once. */
  reader(runId: string, make: () => RowReader): RowReader {
    return this.once(`reader ${runId}`, make);
  }

  /** Every key the run logged in some row, found once (rows of one key list are read once). */
  keysOf(runId: string, reader: RowReader): Set<string> {
    return this.once(`keys ${runId}`, () => {
      const keys = new Set<string>();
      const shapes = new Set<number>();
      for (let i = 0; i < reader.length; i++) {
        const s = reader.shape(i);
        if (s >= 0 && shapes.has(s)) continue;
        shapes.add(s);
        for (const k of reader.keys(i)) keys.add(k);
      }
      return keys;
    });
  }

  /** The archive as one experiment of a comparison on `axis`, summarised as `npm run compare` does. */
  experiment(axis: CompareAxis = ROUND_AXIS): Experiment {
    return this.once(`experiment ${axis.name} ${axis.width}`, () => {
      this.checkMapping("to compare");
      const { aligned, archive } = this.opened;
      const wall = axis.name === "wall" ? wallClock(archive.runs) : null;
      return experimentOf(experimentDataOf(aligned, { label: this.name, manifestSha256: this.manifestSha256, axis, wall }));
    });
  }
}

/** The archives of one server, by name, in the order given. */
export class ArchiveSet {
  private constructor(private readonly byName: Map<string, ServedArchive>) {}

  /**
   * Opens every archive once (in order; a failure names the archive); `prepare`: also works out each
   * one's summary and health report now (a server's start), rather than at the first question.
   */
  static async open(specs: readonly { name: string; dir: string }[], reporter: Reporter = {}, opts: { prepare?: boolean } = {}): Promise<ArchiveSet> {
    const byName = new Map<string, ServedArchive>();
    for (const s of specs) {
      try {
        const a = new ServedArchive(s.name, await openServedArchive(s.dir, reporter));
        if (opts.prepare) a.prepare();
        byName.set(s.name, a);
      } catch (e) {
        throw new Error(`archive ${s.name} (${s.dir}): ${(e as Error).message}`);
      }
    }
    return new ArchiveSet(byName);
  }

  /** Every archive, in the order given. */
  all(): ServedArchive[] {
    return [...this.byName.values()];
  }

  /** The archive of a name; without one, the only archive (several: refused, naming them). */
  get(name: string | undefined): ServedArchive {
    const names = [...this.byName.keys()];
    if (name === undefined) {
      if (names.length === 1) return this.byName.get(names[0])!;
      throw new ToolRefusal("unknown_archive", `several archives are open: name one of ${names.join(", ")} (argument archive)`);
    }
    const a = this.byName.get(name);
    if (a === undefined) throw new ToolRefusal("unknown_archive", `no archive named ${name}: the server has ${names.join(", ")}`);
    return a;
  }
}

/**
 * The archives of `--data` options: `NAME=DIR`, or `DIR` named by its folder's name.
 * @example dataSpecs(["data", "trl=fixtures/trl"]) // [{ name: "data", dir: "data" }, { name: "trl", dir: "fixtures/trl" }]
 */
export function dataSpecs(options: readonly string[]): { name: string; dir: string }[] {
  if (options.length === 0) throw new Error("invalid --data: none given (--data DIR or --data NAME=DIR, repeatable)");
  const specs = options.map((o) => {
    const m = /^([A-Za-z0-9_.-]+)=(.+)$/.exec(o);
    const dir = m ? m[2] : o;
    if (dir === "") throw new Error(`invalid --data: ${JSON.stringify(o)}`);
    return { name: m ? m[1] : path.basename(path.resolve(dir)), dir };
  });
  const seen = new Set<string>();
  for (const s of specs) {
    if (seen.has(s.name)) throw new Error(`invalid --data: two archives named ${s.name} (name them: --data NAME=DIR)`);
    seen.add(s.name);
  }
  return specs;
}
