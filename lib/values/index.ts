/** Values objects: plain rows, compact views over an arena, packed runs, frozen-row text. Re-exports only. */
export {
  isView,
  keysOf,
  PackedRows,
  type PackedViews,
  readValues,
  unpackViews,
  type Values,
  ValuesArena,
  viewClass,
  type ViewClass,
  viewPlace,
  type ViewPlace,
} from "./compact-values";
export { FrozenRowError, frozenRowSerializer, frozenValue, parseFrozenRow, parseFrozenRowWith, serializeFrozenRow } from "./frozen-row";
export { anyHasKey, BLOCK, BySequence, forEachBlock, keyColumn, type KeyColumn, keyColumns, type KeyList, localViewPlace } from "./key-column";
export { packedRowsOf, packedRun, rowCount } from "./packed-run";
export { ValuesBuilder } from "./values-builder";
