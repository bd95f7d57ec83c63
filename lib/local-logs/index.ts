/** slime's local training logs: parsing the printed metric dicts and checking them against W&B. */
export { type ParsedReprDict, parsePythonDictRepr, ReprSyntaxError, roundToFloat16 } from "./python-repr";
export {
  type LocalLogKind,
  type LocalLogMessage,
  type LocalLogRecord,
  type MalformedLine,
  parseSlimeLog,
  type ParseSlimeLogOptions,
  parseSlimeLogWithStats,
  type SlimeLogStats,
} from "./parse-slime-log";
export {
  crossCheck,
  type CrossCheckAligned,
  type CrossCheckField,
  type CrossCheckLocal,
  type CrossCheckMalformed,
  type CrossCheckMismatch,
  type CrossCheckResult,
  type CrossCheckRunSummary,
  type CrossCheckUnmatched,
} from "./cross-check";
