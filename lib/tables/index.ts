/** Round tables as DataFrames for the notebooks. Re-exports only. */
export { roundTableFrame, type RoundTableLike, type RoundTableRow, roundTableRows } from "./round-table-frame";
export { stackableTimeCells, type TimeBreakdownCell, timeBreakdownCells, timeBreakdownWide, untimedRestKey } from "./time-breakdown-rows";
