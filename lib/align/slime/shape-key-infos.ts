/** Key facts per row shape, shared by one run's pass (run-pass.ts) and its merges. Internal to lib/align/slime. */
import type { RowReader } from "../row-reader";
import { keyInfo, type KeyInfo } from "./key-flags";

// A module-local copy for the per-row loops: imported bindings are getter calls under tsx (see key-flags.ts).
const infoOf = keyInfo;

/**
 * Key facts (flags, merge scratch) per key list of one run's rows: rows of one shape share the list,
 * so its keys are looked up once per shape instead of once per key of every row.
 */
export class ShapeKeyInfos {
  private readonly byShape: (KeyInfo[] | undefined)[] = [];
  constructor(private readonly reader: RowReader) {}
  /** The facts of row i's keys, in key order (`keys` as the reader returned them for row i). */
  of(i: number, keys: readonly string[]): KeyInfo[] {
    const s = this.reader.shape(i);
    if (s < 0) return keys.map(infoOf);
    let infos = this.byShape[s];
    if (infos === undefined) this.byShape[s] = infos = keys.map(infoOf);
    return infos;
  }
}
