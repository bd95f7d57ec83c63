/** The one error class of the TensorBoard event file reader: it names the file and, when known, the byte offset. */

/** What went wrong where in an event file. */
export interface TensorboardErrorInit {
  /** The file (or log directory) as the caller named it. */
  file: string;
  /** Byte offset in the file of the record at fault, or null when not tied to one. */
  offset: number | null;
  detail: string;
  cause?: unknown;
}

/** Message: `TensorBoard file <file> at byte <offset>: <detail>`. */
export class TensorboardError extends Error {
  readonly file: string;
  readonly offset: number | null;
  /** The message without file and offset. */
  readonly detail: string;

  constructor(init: TensorboardErrorInit) {
    const at = init.offset === null ? "" : ` at byte ${init.offset}`;
    super(`TensorBoard file ${init.file}${at}: ${init.detail}`, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = "TensorboardError";
    this.file = init.file;
    this.offset = init.offset;
    this.detail = init.detail;
  }
}
