/** Reader of W&B transaction logs (`.wandb` files of offline or synced runs). Re-exports only. */
export { chunkChecksum, crc32 } from "./crc32";
export { applySummary, historyRow, ItemValueError } from "./history-rows";
export { locateWandbFile, peekWandbFileRunId, runIdOfFolderName } from "./locate-wandb-file";
export { CHUNK, checkFileHeader, FILE_HEADER, HEADER_BYTES, LOG_BLOCK_BYTES, LogRecordSplitter, type LogRecord, type TornTail } from "./log-records";
export { decodeRecord, RECORD_KINDS, type DecodedHistory, type DecodedItem, type DecodedRecord, type DecodedRun, type DecodedSummary } from "./record-messages";
export { readWandbFile, runIdOfFileName, type ReadWandbFileOptions, type WandbFileRun, type WandbFileState } from "./read-wandb-file";
export { WandbFileError, type WandbFileErrorInit } from "./wandb-file-error";
