/** The one error class of the `.wandb` file reader: it names the file, the byte offset and, when known, the run. */

/** What went wrong where in a `.wandb` file. */
export interface WandbFileErrorInit {
  /** The file as the caller named it. */
  file: string;
  /** Byte offset in the file of the chunk or record at fault, or null when not tied to one. */
  offset: number | null;
  /** Run id, once the run record was read. */
  runId?: string | null;
  detail: string;
  cause?: unknown;
}

/** Message: `W&B file <file> (run <id>) at byte <offset>: <detail>`. */
export class WandbFileError extends Error {
  readonly file: string;
  readonly offset: number | null;
  readonly runId: string | null;
  /** The message without file, run and offset. */
  readonly detail: string;

  constructor(init: WandbFileErrorInit) {
    const run = init.runId ? ` (run ${init.runId})` : "";
    const at = init.offset === null ? "" : ` at byte ${init.offset}`;
    super(`W&B file ${init.file}${run}${at}: ${init.detail}`, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = "WandbFileError";
    this.file = init.file;
    this.offset = init.offset;
    this.runId = init.runId ?? null;
    this.detail = init.detail;
  }
}
