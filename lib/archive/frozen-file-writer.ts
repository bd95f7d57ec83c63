/**
 * Streams frozen rows to a history file while hashing it: memory stays one chunk however long the
 * run, and the sha256 and byte count come out of the same pass.
 */
import { createHash, type Hash } from "node:crypto";
import { promises as fsp } from "node:fs";

import type { HistoryRow } from "../types";
import { frozenRowSerializer } from "../values/frozen-row";

const CHUNK_CHARS = 1 << 20;

/** Totals of a closed frozen file. */
export interface FrozenFileInfo {
  sha256: string;
  bytes: number;
  rows: number;
}

/** Where a frozen file stands, to append to it later without hashing it again (a followed archive). */
export interface FrozenFileState {
  /** sha256 state over every byte so far (not digested). */
  hash: Hash;
  bytes: number;
  rows: number;
}

/** Writer of one frozen history file; `close()` fsyncs and returns hash, size and row count. */
export class FrozenFileWriter {
  private pending = "";
  private readonly hash: Hash;
  private bytes: number;
  private rows: number;
  private readonly serialize = frozenRowSerializer();
  private endState: FrozenFileState | null = null;

  private constructor(
    private readonly handle: fsp.FileHandle,
    from?: FrozenFileState,
  ) {
    this.hash = from ? from.hash.copy() : createHash("sha256");
    this.bytes = from?.bytes ?? 0;
    this.rows = from?.rows ?? 0;
  }

  /** Creates the file (it must not exist yet). */
  static async create(path: string): Promise<FrozenFileWriter> {
    return new FrozenFileWriter(await fsp.open(path, "wx"));
  }

  /** Opens an existing frozen file to append to; `from` describes its bytes (not checked here). */
  static async append(path: string, from: FrozenFileState): Promise<FrozenFileWriter> {
    return new FrozenFileWriter(await fsp.open(path, "a"), from);
  }

  /** Appends rows, one line each. */
  async writeRows(rows: readonly HistoryRow[]): Promise<void> {
    for (const row of rows) {
      this.pending += this.serialize(row) + "\n";
      this.rows++;
      if (this.pending.length >= CHUNK_CHARS) await this.flush();
    }
  }

  /** Appends frozen lines (already in the frozen format, without newlines), one each. */
  async writeLines(lines: readonly string[]): Promise<void> {
    for (const line of lines) {
      this.pending += line + "\n";
      this.rows++;
      if (this.pending.length >= CHUNK_CHARS) await this.flush();
    }
  }

  private async flush(): Promise<void> {
    if (!this.pending) return;
    const buf = Buffer.from(this.pending, "utf8");
    this.pending = "";
    this.hash.update(buf);
    this.bytes += buf.length;
    let offset = 0;
    while (offset < buf.length) offset += (await this.handle.write(buf, offset)).bytesWritten;
  }

  /** Flushes, fsyncs and closes; the totals describe exactly the bytes on disk. */
  async close(): Promise<FrozenFileInfo> {
    try {
      await this.flush();
      await this.handle.sync();
    } finally {
      await this.handle.close();
    }
    this.endState = { hash: this.hash.copy(), bytes: this.bytes, rows: this.rows };
    return { sha256: this.hash.digest("hex"), bytes: this.bytes, rows: this.rows };
  }

  /** After `close()`: the state to append from next time. */
  closedState(): FrozenFileState {
    if (this.endState === null) throw new Error("FrozenFileWriter.closedState() before close()");
    return this.endState;
  }

  /** Closes without caring about the content (error paths). */
  async abandon(): Promise<void> {
    await this.handle.close().catch(() => undefined);
  }
}
