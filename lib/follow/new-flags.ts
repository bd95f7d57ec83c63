/**
 * Which health flags a follow has printed: a flag is new once, however its range grows later. The
 * record is kept in the archive (`snapshots/flags-printed.json`, docs/follow.md), so a follow
 * restarted on the archive does not print them again, and notebook 06 shows when each first appeared.
 */
import { promises as fsp } from "node:fs";
import * as path from "node:path";

import { lockArchiveDir } from "../archive/replace-dir";
import { SNAPSHOTS_DIR } from "../archive/manifest";
import type { HealthFlag } from "../health/health-check";
import type { Reporter } from "../types";

/** Archive-relative path of the record of printed flags (beside the snapshots, copied into each new one). */
export const FLAGS_PRINTED_FILE = `${SNAPSHOTS_DIR}/flags-printed.json`;

/** A flag as it was when a follow first printed it, and the snapshot whose analysis found it. */
export interface PrintedFlag {
  check: string;
  severity: HealthFlag["severity"];
  runId: string;
  round: string;
  unit: HealthFlag["unit"];
  key: string;
  /** The range as first seen (its end may have grown since). */
  first: number;
  last: number;
  rule: string;
  /** The snapshot after which it was printed, and when that poll began. */
  snapshot: number;
  takenAt: string | null;
}

/** Where in the chain a flag was seen: the snapshot and when its poll began. */
export interface SeenAt {
  snapshot: number;
  takenAt: string | null;
}

/** A flag's identity across polls: its check, run, key and where its range starts (the range's end grows as the run goes on). */
export function flagId(f: Pick<HealthFlag, "check" | "runId" | "key" | "unit" | "first">): string {
  return [f.check, f.runId, f.key, f.unit, f.first].join("\u0000");
}

/**
 * Remembers the flags printed so far; `take` returns those not printed before, in the order given.
 * State across polls lives here (and, through `open`/`save`, in the archive), never in module scope.
 * @example const seen = await FlagsSeen.open("data/live"); seen.take(report.flags, { snapshot: 3, takenAt }); await seen.save("data/live")
 */
export class FlagsSeen {
  private readonly seen = new Set<string>();
  private readonly printed: PrintedFlag[] = [];
  /** The last snapshot whose flags were taken (null: none yet). */
  private analysed: number | null = null;
  private dirty = false;

  /** The record of an archive (empty when the archive has none). */
  static async open(dir: string): Promise<FlagsSeen> {
    const seen = new FlagsSeen();
    const record = await readRecord(dir);
    for (const p of record.flags) {
      seen.seen.add(flagId(p));
      seen.printed.push(p);
    }
    seen.analysed = record.analysed;
    return seen;
  }

  /** The flags not printed before (and records them as printed at `at`, and `at` as analysed). */
  take(flags: readonly HealthFlag[], at: SeenAt = { snapshot: 0, takenAt: null }): HealthFlag[] {
    if (this.analysed !== at.snapshot) this.dirty = true;
    this.analysed = at.snapshot;
    const out: HealthFlag[] = [];
    for (const f of flags) {
      const id = flagId(f);
      if (this.seen.has(id)) continue;
      this.seen.add(id);
      const { check, severity, runId, round, unit, key, first, last, rule } = f;
      this.printed.push({ check, severity, runId, round, unit, key, first, last, rule, ...at });
      this.dirty = true;
      out.push(f);
    }
    return out;
  }

  /** The last snapshot whose flags were taken, here or by an earlier follow of the archive (null: none). */
  lastAnalysed(): number | null {
    return this.analysed;
  }

  /** Every flag printed, in the order it was. */
  list(): readonly PrintedFlag[] {
    return this.printed;
  }

  /**
   * Writes the record into the archive when it changed: a temp file renamed over the old one, under
   * the archive's lock (a follow's own snapshots and a fetch never write at the same time).
   */
  async save(dir: string, reporter: Reporter = {}): Promise<void> {
    if (!this.dirty) return;
    const file = path.join(dir, FLAGS_PRINTED_FILE);
    const lock = await lockArchiveDir(path.resolve(dir), reporter);
    try {
      const tmp = `${file}.tmp-${process.pid}`;
      const record = { kind: "follow-flags-printed", formatVersion: 1, analysed: this.analysed, flags: this.printed };
      await fsp.writeFile(tmp, `${JSON.stringify(record, null, 2)}\n`);
      await fsp.rename(tmp, file);
    } finally {
      await lock.release();
    }
    this.dirty = false;
  }
}

/**
 * The flags a follow printed into the archive in `dir`, in order (empty for an archive no follow
 * printed flags into). Throws naming the file when it is not such a record.
 * @example (await readFlagsPrinted("data/live")).map((f) => `${f.check} ${f.runId}: snapshot ${f.snapshot}`)
 */
export async function readFlagsPrinted(dir: string): Promise<PrintedFlag[]> {
  return (await readRecord(dir)).flags;
}

/** The record in the archive: the flags printed and the last snapshot analysed (none: empty). */
async function readRecord(dir: string): Promise<{ flags: PrintedFlag[]; analysed: number | null }> {
  const file = path.join(dir, FLAGS_PRINTED_FILE);
  const text = await fsp.readFile(file, "utf8").catch((e: NodeJS.ErrnoException) => {
    if (e.code === "ENOENT") return null;
    throw e;
  });
  if (text === null) return { flags: [], analysed: null };
  const parsed = JSON.parse(text) as { kind?: unknown; flags?: unknown; analysed?: unknown };
  if (parsed.kind !== "follow-flags-printed" || !Array.isArray(parsed.flags)) throw new Error(`invalid ${file}: not a record of printed flags`);
  return { flags: parsed.flags as PrintedFlag[], analysed: typeof parsed.analysed === "number" ? parsed.analysed : null };
}
