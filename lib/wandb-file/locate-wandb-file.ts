/**
 * Finding the transaction log a user points at: a `.wandb` file, or a W&B run folder
 * (`wandb/offline-run-<date>-<id>/`, `wandb/run-<date>-<id>/`) holding exactly one. And the run id
 * inside it, read from the first records without reading the whole file (for run selections that
 * must know ids before the fetch starts).
 */
import * as fs from "node:fs";
import * as path from "node:path";

import { checkFileHeader, HEADER_BYTES, LOG_BLOCK_BYTES, LogRecordSplitter, type LogRecord } from "./log-records";
import { type DecodedRecord, type DecodedRun, decodeRecord } from "./record-messages";
import { WandbFileError } from "./wandb-file-error";

/** The run record comes second in every SDK's files; this much is read to find it. */
const PEEK_BYTES = 32 * LOG_BLOCK_BYTES;

/** Run id in a run folder name (`offline-run-20260101_120000-abc123`, `run-20260101_120000-abc123`), or null. */
export function runIdOfFolderName(dir: string): string | null {
  const m = /^(?:offline-)?run-\d{8}_\d{6}-(.+)$/.exec(path.basename(dir));
  return m ? m[1] : null;
}

/**
 * The `.wandb` file `p` names: `p` itself when it is a file, else the one `*.wandb` file directly in
 * the folder `p`. Throws `invalid wandb file: <p> (<why>)`.
 */
export function locateWandbFile(p: string): string {
  const bad = (why: string) => new Error(`invalid wandb file: ${p} (${why})`);
  let stat: fs.Stats;
  try {
    stat = fs.statSync(p);
  } catch (e) {
    throw bad(`cannot read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  if (stat.isFile()) return p;
  if (!stat.isDirectory()) throw bad("neither a file nor a folder");
  const logs = fs
    .readdirSync(p)
    .filter((name) => name.endsWith(".wandb"))
    .sort();
  if (logs.length === 0) throw bad("the folder holds no .wandb file; give a W&B run folder such as wandb/offline-run-<date>-<id>, or the file itself");
  if (logs.length > 1) throw bad(`the folder holds ${logs.length} .wandb files (${logs.join(", ")}); give one of them`);
  const folderId = runIdOfFolderName(p);
  const fileId = /^run-(.+)\.wandb$/.exec(logs[0]);
  if (folderId !== null && fileId && fileId[1] !== folderId) throw bad(`the run folder of run ${folderId} holds ${logs[0]}: a file of another run`);
  return path.join(p, logs[0]);
}

/**
 * Run id of the first run record of a `.wandb` file, reading at most its first 1 MiB (CRCs
 * checked). Throws `WandbFileError` when the header is wrong or no run record comes that early.
 */
export function peekWandbFileRunId(file: string): string {
  const peeked = peekRunRecord(file);
  if ("runId" in peeked) return peeked.runId;
  throw peeked.error;
}

/**
 * When the process that wrote a `.wandb` log started (its run record's start time, ms), or null when
 * the record has none: each process of a run resumed into its own id offline writes a log of its own,
 * and this orders them. Throws as peekWandbFileRunId.
 */
export function peekWandbFileStartMs(file: string): number | null {
  const peeked = peekRunRecord(file);
  if ("runId" in peeked) return peeked.startTimeMs;
  throw peeked.error;
}

/**
 * As peekWandbFileRunId for a log its writer may have only begun (a followed run): null when the
 * file is still too short to hold its run record (not even the header, or no run record in less than
 * the 1 MiB every SDK writes it within). Throws as peekWandbFileRunId otherwise.
 */
export function peekRunIdOfLogBeingWritten(file: string): string | null {
  const peeked = peekRunRecord(file);
  if ("runId" in peeked) return peeked.runId;
  if (peeked.shortOfRecord) return null;
  throw peeked.error;
}

/** Run id in a log's own name (`run-<id>.wandb`) or its run folder's, as the SDK names them; null when neither says. */
export function runIdOfLogName(file: string): string | null {
  const m = /^run-(.+)\.wandb$/.exec(path.basename(file));
  return m ? m[1] : runIdOfFolderName(path.dirname(file));
}

/** The first run record, or why there is none (`shortOfRecord`: the file ends before one could come). */
function peekRunRecord(file: string): DecodedRun | { error: Error; shortOfRecord: boolean } {
  const fd = fs.openSync(file, "r");
  let got: number;
  const buf = Buffer.alloc(PEEK_BYTES);
  try {
    got = fs.readSync(fd, buf, 0, PEEK_BYTES, 0);
  } finally {
    fs.closeSync(fd);
  }
  try {
    checkFileHeader(buf.subarray(0, Math.min(got, HEADER_BYTES)), file);
  } catch (e) {
    return { error: e as Error, shortOfRecord: got < HEADER_BYTES };
  }
  const splitter = new LogRecordSplitter(file);
  const records: LogRecord[] = [];
  for (let b = 0; b < got; b += LOG_BLOCK_BYTES) {
    const block = buf.subarray(b, Math.min(b + LOG_BLOCK_BYTES, got));
    splitter.block(block, b, got < PEEK_BYTES && b + block.length >= got, records);
    for (const rec of records) {
      let decoded: DecodedRecord;
      try {
        decoded = decodeRecord(rec.data);
      } catch (e) {
        throw new WandbFileError({ file, offset: rec.offset, detail: `record is not a valid protobuf Record (${(e as Error).message})`, cause: e });
      }
      if (decoded.kind === "run") return decoded.run;
    }
    records.length = 0;
  }
  const error = new WandbFileError({ file, offset: null, detail: `no run record in its first ${got} bytes: cannot tell which run it holds` });
  return { error, shortOfRecord: got < PEEK_BYTES };
}
