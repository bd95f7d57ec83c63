/**
 * Hashes a followed archive's history files on a thread of their own (lib/follow/hash-worker.ts), so
 * that the follow's thread parses only the new bytes and aligns meanwhile: hashing every byte is the
 * one part of reading a followed archive that grows with the archive (docs/follow.md, "The in-memory
 * archive"). loadArchive reads on a thread beside the main one the same way. Where a thread cannot
 * start, files are hashed on this one.
 */
import { Worker } from "node:worker_threads";

import { workerCode } from "../archive/worker-code";
import { type FileHashes, hashFilePrefixes } from "../archive/snapshot-chain";
import type { HashJob } from "./hash-worker";

/** An error of a file the thread could not read, with its code (ENOENT: a file missing). */
export class HashFileError extends Error {
  constructor(
    message: string,
    readonly code: string | null,
  ) {
    super(message);
  }
}

type Pending = { resolve: (h: FileHashes) => void; reject: (e: Error) => void };

/** The hashing thread, started on first use; `close()` ends it. */
export class FileHasher {
  private worker: Worker | null = null;
  private failed = false;
  private nextId = 0;
  private readonly pending = new Map<number, Pending>();

  /** Size and sha256 of `filePath`, and of its first `prefix` bytes (`prefixes[0]`). */
  hash(filePath: string, prefix: number): Promise<FileHashes> {
    const worker = this.start();
    if (worker === null) return hashFilePrefixes(filePath, [prefix]);
    const id = this.nextId++;
    // Held while it hashes (an unref'd thread would let the process exit under an await), let go when idle.
    worker.ref();
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      const job: HashJob = { id, filePath, prefix };
      worker.postMessage(job);
    });
  }

  async close(): Promise<void> {
    const w = this.worker;
    this.worker = null;
    if (w !== null) await w.terminate();
  }

  private start(): Worker | null {
    if (this.worker !== null || this.failed) return this.worker;
    try {
      const w = new Worker(workerCode("hash-worker"), { eval: true });
      // A follow that ends without close() must not wait for this thread (see hash()).
      w.unref();
      w.on("message", (m: { id: number; hashed?: FileHashes; error?: string; code?: string | null }) => {
        const p = this.pending.get(m.id);
        this.pending.delete(m.id);
        if (this.pending.size === 0) w.unref();
        if (m.hashed !== undefined) p?.resolve(m.hashed);
        else p?.reject(new HashFileError(m.error ?? "hashing failed", m.code ?? null));
      });
      w.on("error", (e) => this.stopped(e));
      w.on("exit", (code) => this.stopped(new Error(`hashing thread exited (code ${code})`)));
      this.worker = w;
    } catch {
      this.failed = true;
    }
    return this.worker;
  }

  /** The thread ended: what it was hashing fails (the analysis is tried again at the next snapshot); the next call starts another. */
  private stopped(e: Error): void {
    this.worker = null;
    for (const p of this.pending.values()) p.reject(e);
    this.pending.clear();
  }
}
