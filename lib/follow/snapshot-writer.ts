/**
 * Writing a follow's snapshots (docs/follow.md, "What a poll does", 6): the archive as the last
 * snapshot left it (read once when the follow opens), the next snapshot written as a new folder
 * swapped in by rename (started from the spare copy when there is one), the manifests chained by hash,
 * and the spare removed when the follow ends.
 */
import { promises as fsp } from "node:fs";
import * as path from "node:path";

import { MANIFEST_FILE, parseManifest, serializeManifest } from "../archive/manifest";
import { replaceDirAtomically, type SpareCopy } from "../archive/replace-dir";
import { sha256Hex, snapshotFile, supersededFile } from "../archive/snapshot-chain";
import { writeSynced } from "../archive/write-synced";
import type { Reporter, SourceManifest } from "../types";
import type { WandbConnection } from "../wandb/connection";
import { DEFAULT_CONCURRENCY } from "../wandb/fetch-runs";
import { mapConcurrent } from "../wandb/map-concurrent";
import type { HistoryPathChoice } from "../wandb/read-history";
import { READER_VERSION } from "../wandb/version";
import { pagesPerRun } from "../wandb/scan-history";
import { hashFrozenFile } from "./hash-frozen-file";
import { readFileTail } from "./overlap-window";
import type { PollPlan } from "./poll-states";
import { appendServerRun, describeRun, type FrozenRun, NO_TAIL, refreezeWandbFileRun, type RunFrozenNow, unchangedRun } from "./run-tail";
import { type CatchUp, catchUpSpare, copyArchiveFiles } from "./spare-catch-up";

/** The last snapshot the follower wrote or found: its manifest, its bytes' sha256, and the run states. */
interface LastSnapshot {
  manifest: SourceManifest | null;
  sha256: string | null;
  /** Manifest bytes of a one-shot archive the follow started from, written as snapshot 0 with the first snapshot. */
  base: string | null;
}

/** A snapshot written by a poll: each run's entry and file state (null: a run still waiting for its run record), the manifest and its bytes. */
export interface WrittenSnapshot {
  written: (RunFrozenNow | null)[];
  manifest: SourceManifest;
  text: string;
}

/** Where and how snapshots are written. */
export interface WriterContext {
  outDir: string;
  entity: string;
  project: string;
  conn: WandbConnection | null;
  pageSize: number;
  historyPath: HistoryPathChoice;
  overlapRows: number;
  reporter: Reporter;
}

/** Writes the follower's runs' snapshots into one archive folder; see the module doc. */
export class SnapshotWriter {
  private last: LastSnapshot = { manifest: null, sha256: null, base: null };
  /** The archive as of the snapshot before the last, kept beside it: the next snapshot starts from it (spare-catch-up.ts). */
  private readonly spare: SpareCopy = { dir: null };
  /** Bytes the last snapshot wrote to start from the spare (null: it copied the archive whole). */
  lastCatchUp: CatchUp | null = null;

  constructor(
    private readonly runs: FrozenRun[],
    private readonly ctx: WriterContext,
  ) {}

  /** The last snapshot's manifest (null while nothing was frozen). */
  manifest(): SourceManifest | null {
    return this.last.manifest;
  }

  /** Reads the archive's manifest (if any): its runs must be the selected ones; their files are hashed to append later. */
  async readArchive(): Promise<void> {
    const { outDir, overlapRows } = this.ctx;
    const text = await fsp.readFile(path.join(outDir, MANIFEST_FILE), "utf8").catch((e: NodeJS.ErrnoException) => {
      if (e.code === "ENOENT") return null;
      throw e;
    });
    if (text === null) return;
    const manifest = parseManifest(text, path.join(outDir, MANIFEST_FILE));
    const byId = new Map(manifest.runs.map((r) => [r.runId, r]));
    const selected = new Set(this.runs.map((r) => r.sel.runId));
    const unselected = manifest.runs.filter((r) => !selected.has(r.runId)).map((r) => r.runId);
    if (unselected.length > 0)
      throw new Error(`invalid runs: the archive ${outDir} also holds run ${unselected.join(", ")}; select it too, or follow into another folder`);
    for (const run of this.runs) {
      const entry = byId.get(run.sel.runId) ?? null;
      if (entry && entry.round !== run.sel.round) {
        throw new Error(`invalid runs: run ${run.sel.runId} is round ${entry.round} in the archive ${outDir}, ${run.sel.round} here`);
      }
      run.entry = entry;
      if (entry && !run.sel.file) {
        run.file = await hashFrozenFile(path.join(outDir, entry.file), entry);
        run.tail = await readFileTail(path.join(outDir, entry.file), overlapRows);
      }
    }
    this.last = { manifest, sha256: sha256Hex(text), base: manifest.snapshot ? null : text };
  }

  /** Writes the next snapshot: the last one's files copied, each changed run's new rows added (a rewritten run read anew), manifests chained. */
  async write(plan: PollPlan, takenAt: string, signal?: AbortSignal): Promise<WrittenSnapshot> {
    const { metas, changed, rewrites } = plan;
    const { conn, entity, project, reporter } = this.ctx;
    const superseded = this.last.manifest?.snapshot?.lineage ?? 1;
    return replaceDirAtomically(
      this.ctx.outDir,
      async (tmp, recycled) => {
        await this.checkUnchanged();
        await this.startFrom(tmp, recycled);
        // The runs read this poll share the requests at once, as a fetch's runs do.
        const reading = this.runs.filter((run, i) => changed[i] && !plan.waiting[i] && !run.sel.file).length;
        const opts = {
          pageSize: this.ctx.pageSize,
          historyPath: this.ctx.historyPath,
          signal,
          fetchedAt: takenAt,
          overlapRows: this.ctx.overlapRows,
          pagesInFlight: pagesPerRun(DEFAULT_CONCURRENCY, reading),
        };
        const written = await mapConcurrent(
          this.runs,
          DEFAULT_CONCURRENCY,
          async (run, i, s) => {
            if (plan.waiting[i]) return null;
            if (!changed[i]) return unchangedRun(run, metas[i], takenAt);
            if (run.sel.file) {
              const frozen = await refreezeWandbFileRun(tmp, run, takenAt, reporter, s);
              return plan.crashed[i] && frozen.entry.state === "running" ? { ...frozen, entry: { ...frozen.entry, state: "crashed" } } : frozen;
            }
            if (rewrites[i] === null) return appendServerRun(conn!, tmp, run, metas[i]!, { ...opts, signal: s });
            // The superseded lineage's file stays in the chain, beside the snapshots that froze it.
            await fsp.rename(path.join(tmp, run.entry!.file), path.join(tmp, supersededFile(superseded, run.sel.runId)));
            return appendServerRun(conn!, tmp, { ...run, entry: null, file: null, tail: NO_TAIL }, metas[i]!, { ...opts, signal: s });
          },
          signal,
        );
        const reasons = this.runs.flatMap((run, i) => (rewrites[i] === null ? [] : [`run ${describeRun(run, entity, project)}: ${rewrites[i]}`]));
        return { written, ...(await this.writeManifests(tmp, written, takenAt, reasons)) };
      },
      reporter,
      this.spare,
    );
  }

  /** After the swap: the written snapshot becomes the last one. */
  commit(snapshot: WrittenSnapshot, stamps: readonly (string | null)[]): void {
    snapshot.written.forEach((w, i) => {
      if (w === null) return;
      this.runs[i].entry = w.entry;
      this.runs[i].file = w.file;
      this.runs[i].stamp = stamps[i];
      this.runs[i].tail = w.tail;
    });
    this.last = { manifest: snapshot.manifest, sha256: sha256Hex(snapshot.text), base: null };
  }

  /** Removes the spare copy (the end of a follow: it is only worth keeping between polls). */
  async close(): Promise<void> {
    const dir = this.spare.dir;
    this.spare.dir = null;
    if (dir !== null) await fsp.rm(dir, { recursive: true, force: true });
  }

  /** The new snapshot's folder holds the last snapshot: the spare caught up when there is one, else a copy. */
  private async startFrom(tmp: string, recycled: boolean): Promise<void> {
    this.lastCatchUp = recycled && this.last.manifest !== null ? await catchUpSpare(tmp, this.ctx.outDir, this.last.manifest) : null;
    if (this.lastCatchUp === null) await copyArchiveFiles(tmp, this.ctx.outDir);
  }

  /** Refuses to write when the archive's manifest is not the last snapshot this follower knows (another fetch replaced it). */
  private async checkUnchanged(): Promise<void> {
    const text = await fsp.readFile(path.join(this.ctx.outDir, MANIFEST_FILE), "utf8").catch(() => null);
    const now = text === null ? null : sha256Hex(text);
    if (now !== this.last.sha256) {
      throw new Error(
        `archive ${this.ctx.outDir} was changed by someone else since snapshot ${this.last.manifest?.snapshot?.sequence ?? 0}: not following into it`,
      );
    }
  }

  /** Writes `manifest.json` and `snapshots/<sequence>.json` (and snapshot 0, a one-shot archive the follow started from). */
  private async writeManifests(
    tmp: string,
    written: readonly (RunFrozenNow | null)[],
    takenAt: string,
    rewrites: readonly string[],
  ): Promise<{ manifest: SourceManifest; text: string }> {
    const prev = this.last.manifest?.snapshot;
    const sequence = (prev?.sequence ?? 0) + 1;
    const lineage = (prev?.lineage ?? 1) + (rewrites.length > 0 ? 1 : 0);
    const lineageReason =
      rewrites.length > 0 ? `logged history was rewritten (a rewind, a resume in place or a deletion): ${rewrites.join("; ")}` : (prev?.lineageReason ?? null);
    if (rewrites.length > 0) this.ctx.reporter.warn?.(`snapshot ${sequence} starts lineage ${lineage}: ${lineageReason}`);
    const manifest: SourceManifest = {
      kind: "wandb-frozen-history",
      formatVersion: 1,
      readerVersion: READER_VERSION,
      pageSize: this.ctx.pageSize,
      snapshot: { sequence, takenAt, lineage, lineageReason },
      previous: this.last.sha256,
      runs: written.flatMap((w) => (w === null ? [] : [w.entry])),
    };
    const text = serializeManifest(manifest);
    if (this.last.base !== null) await writeSynced(path.join(tmp, snapshotFile(0)), this.last.base);
    await writeSynced(path.join(tmp, snapshotFile(sequence)), text);
    await writeSynced(path.join(tmp, MANIFEST_FILE), text);
    return { manifest, text };
  }
}
