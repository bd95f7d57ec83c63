/** Reader of TensorBoard event files (TFRecord files of `Event` protobufs). Re-exports only. */
export { decodeEvent, type DecodedEvent, type DroppedSummary, type EventScalar } from "./event-message";
export { isEventFileName, locateEventFiles } from "./locate-event-files";
export { readEventFile, type EventFileInfo, type OnEvent } from "./read-event-file";
export { readTensorboardRun, runIdOfPath, type ReadTensorboardRunOptions, type TensorboardRun } from "./read-tensorboard-run";
export { crossCheckTensorboard, type TensorboardCrossCheck, type TensorboardMismatch, type TensorboardOneSided } from "./cross-check-wandb";
export { tensorboardAsLogged } from "./step-rows";
export { TagSeries, type SupersededCount } from "./tag-series";
export { TensorboardError, type TensorboardErrorInit } from "./tensorboard-error";
export { TfRecordSplitter, type TfRecord, type TornTail } from "./tfrecord-splitter";
