/**
 * A tool's refusal: why the data does not support an answer, as a reason code and a sentence. The
 * server sends it as a tool error whose text is this JSON, never as an empty result.
 */

/** Why a tool refused. */
export type RefusalCode =
  | "unknown_archive"
  | "unknown_run"
  | "unknown_key"
  | "unknown_framework"
  | "unknown_column"
  | "unknown_round"
  | "unknown_check"
  | "invalid_cursor"
  | "invalid_argument"
  | "mapping_does_not_hold"
  | "unfilled_cells"
  | "nothing_in_range"
  | "nothing_comparable"
  | "failed";

/** A refusal as the client receives it. */
export interface RefusalBody {
  refusal: { tool: string; code: RefusalCode; reason: string; manifestSha256: string | null };
}

/** Thrown by a tool's answer when the data does not support it. */
export class ToolRefusal extends Error {
  constructor(
    readonly code: RefusalCode,
    reason: string,
    readonly manifestSha256: string | null = null,
  ) {
    super(reason);
  }
}

/**
 * The refusal body of an error thrown while answering `tool`: a ToolRefusal as it is, any other error
 * as `invalid_argument` when it names a bad argument (`invalid ...`), else `failed` with its message.
 */
export function refusalBody(tool: string, e: unknown): RefusalBody {
  if (e instanceof ToolRefusal) return { refusal: { tool, code: e.code, reason: e.message, manifestSha256: e.manifestSha256 } };
  const reason = e instanceof Error ? e.message : String(e);
  // lib/ names a bad option `invalid <what>: <value>` (docs/CONTRIBUTING.md).
  const code: RefusalCode = /^invalid /.test(reason) ? "invalid_argument" : "failed";
  return { refusal: { tool, code, reason, manifestSha256: null } };
}
