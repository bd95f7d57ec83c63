/**
 * The few messages of W&B's `Record` (wandb/proto/wandb_internal.proto) that the archive needs,
 * decoded from the protobuf wire format by field number: history rows, the run (identity, start
 * time, SDK version), summary updates, the exit code and the header. Every other record kind is
 * recognised by its field number and skipped without decoding; a field number not in the table is
 * an unknown record kind (a newer SDK), also skipped.
 */
import { WIRE, WireReader } from "../wire/protobuf-wire";

/** Record kinds by field number of `Record.record_type` (wandb_internal.proto, SDK 0.15 to 0.31). */
export const RECORD_KINDS: Readonly<Record<number, string>> = {
  2: "history",
  3: "summary",
  4: "output",
  5: "config",
  6: "files",
  7: "stats",
  8: "artifact",
  9: "tbrecord",
  10: "alert",
  11: "telemetry",
  12: "metric",
  13: "output_raw",
  17: "run",
  18: "exit",
  20: "final",
  21: "header",
  22: "footer",
  23: "preempting",
  24: "noop_link_artifact",
  25: "use_artifact",
  26: "environment",
  27: "output_logger",
  100: "request",
};

/** Fields of `Record` outside its record_type: num (1), control (16), uuid (19), _info (200). */
const RECORD_ENVELOPE = new Set([1, 16, 19, 200]);

/** Field numbers read from the decoded messages (all other fields are skipped). */
const F = {
  history: { item: 1, step: 2 },
  historyStep: { num: 1 },
  item: { key: 1, nestedKey: 2, none: 3, boolean: 4, integer: 5, number: 6, text: 7, json: 8, valueJson: 16 },
  run: { runId: 1, entity: 2, project: 3, config: 4, summary: 5, displayName: 8, startTime: 17, telemetry: 19 },
  timestamp: { seconds: 1, nanos: 2 },
  telemetry: { pythonVersion: 4, cliVersion: 5, huggingfaceVersion: 6 },
  summary: { update: 1, remove: 2 },
  exit: { exitCode: 1 },
  header: { versionInfo: 1 },
  versionInfo: { producer: 1 },
} as const;

/**
 * One history item as JSON text of its value: `value_json` when set, else the typed oneof value
 * written as the JSON the server would get (null, true/false, numbers, a JSON string of text).
 */
export interface DecodedItem {
  /** `nested_key` when set, else `[key]`. */
  path: string[];
  json: string;
}

/** A decoded `HistoryRecord`: its items and `step.num` (null when the record has no step). */
export interface DecodedHistory {
  items: DecodedItem[];
  stepNum: number | null;
}

/** A decoded `RunRecord` (only what the archive needs). */
export interface DecodedRun {
  runId: string;
  entity: string;
  project: string;
  displayName: string;
  /** start_time in milliseconds since the epoch, null when absent. */
  startTimeMs: number | null;
  /** telemetry.cli_version, "" when absent. */
  cliVersion: string;
  /** The run record's telemetry (python and transformers versions). */
  telemetry: DecodedTelemetry;
  summary: DecodedSummary | null;
  /** The run's config as the run record carries it (same shape as a config record); null when absent. */
  config: DecodedSummary | null;
}

/** The versions a `TelemetryRecord` carries ("" when absent). */
export interface DecodedTelemetry {
  cliVersion: string;
  pythonVersion: string;
  /** transformers' version, when the run imported it. */
  huggingfaceVersion: string;
}

/** A decoded `SummaryRecord`: updated and removed items. */
export interface DecodedSummary {
  update: DecodedItem[];
  remove: string[][];
}

/** One decoded record: its kind and, for the kinds the archive needs, the message. */
export type DecodedRecord =
  | { kind: "history"; history: DecodedHistory }
  | { kind: "run"; run: DecodedRun }
  | { kind: "summary"; summary: DecodedSummary }
  /** A `ConfigRecord`: its items have a summary item's field numbers (key, nested_key, value_json). */
  | { kind: "config"; config: DecodedSummary }
  | { kind: "exit"; exitCode: number }
  | { kind: "header"; producer: string }
  | { kind: "telemetry"; cliVersion: string; telemetry: DecodedTelemetry }
  | { kind: "other"; name: string }
  | { kind: "unknown"; fields: number[] };

/** Decodes one record's protobuf bytes; throws `WireError` on malformed bytes. */
export function decodeRecord(buf: Uint8Array): DecodedRecord {
  const r = new WireReader(buf);
  let found: DecodedRecord | null = null;
  const unknown: number[] = [];
  while (!r.done()) {
    const tag = r.tag();
    const field = Math.floor(tag / 8);
    const wire = tag & 7;
    const name = RECORD_KINDS[field];
    if (name === undefined || wire !== WIRE.bytes) {
      if (!RECORD_ENVELOPE.has(field)) unknown.push(field);
      r.skip(wire);
      continue;
    }
    if (name === "history") found = { kind: "history", history: decodeHistory(r.message()) };
    else if (name === "run") found = { kind: "run", run: decodeRun(r.message()) };
    else if (name === "summary") found = { kind: "summary", summary: decodeSummary(r.message()) };
    else if (name === "config") found = { kind: "config", config: decodeSummary(r.message()) };
    else if (name === "exit") found = { kind: "exit", exitCode: decodeExit(r.message()) };
    else if (name === "header") found = { kind: "header", producer: decodeHeader(r.message()) };
    else if (name === "telemetry") {
      const telemetry = decodeTelemetry(r.message());
      found = { kind: "telemetry", cliVersion: telemetry.cliVersion, telemetry };
    } else {
      r.skip(wire);
      found = { kind: "other", name };
    }
  }
  return found ?? { kind: "unknown", fields: unknown };
}

function decodeHistory(r: WireReader): DecodedHistory {
  const items: DecodedItem[] = [];
  let stepNum: number | null = null;
  while (!r.done()) {
    const tag = r.tag();
    if (tag === fieldTag(F.history.item, WIRE.bytes)) items.push(decodeItem(r.message()));
    else if (tag === fieldTag(F.history.step, WIRE.bytes)) {
      const s = r.message();
      stepNum = 0; // an empty HistoryStep is step 0 (proto3 leaves zero out)
      while (!s.done()) {
        const t = s.tag();
        if (t === fieldTag(F.historyStep.num, WIRE.varint)) stepNum = s.varint();
        else s.skip(t & 7);
      }
    } else r.skip(tag & 7);
  }
  return { items, stepNum };
}

/** Decodes a `HistoryItem` or `SummaryItem` (same field numbers for key, nested_key, value_json). */
function decodeItem(r: WireReader): DecodedItem {
  let key = "";
  const nested: string[] = [];
  let json: string | null = null;
  let typed: string | null = null;
  const I = F.item;
  while (!r.done()) {
    const tag = r.tag();
    const field = Math.floor(tag / 8);
    const wire = tag & 7;
    if (field === I.key && wire === WIRE.bytes) key = r.string();
    else if (field === I.nestedKey && wire === WIRE.bytes) nested.push(r.string());
    else if (field === I.valueJson && wire === WIRE.bytes) json = r.string();
    else if (field === I.none && wire === WIRE.varint) {
      r.varint();
      typed = "null";
    } else if (field === I.boolean && wire === WIRE.varint) typed = r.varint() ? "true" : "false";
    else if (field === I.integer && wire === WIRE.varint) typed = String(r.sint64());
    else if (field === I.number && wire === WIRE.fixed64) typed = jsonNumber(r.double());
    else if ((field === I.text || field === I.json) && wire === WIRE.bytes) {
      const s = r.string();
      typed = field === I.text ? JSON.stringify(s) : s;
    } else r.skip(wire);
  }
  return { path: nested.length > 0 ? nested : [key], json: json ?? typed ?? "null" };
}

/** A double as extended JSON (the token forms the SDK writes for non-finite values). */
function jsonNumber(v: number): string {
  if (Number.isFinite(v)) return String(v);
  return Number.isNaN(v) ? "NaN" : v > 0 ? "Infinity" : "-Infinity";
}

function decodeRun(r: WireReader): DecodedRun {
  const run: DecodedRun = {
    runId: "",
    entity: "",
    project: "",
    displayName: "",
    startTimeMs: null,
    cliVersion: "",
    telemetry: noTelemetry(),
    summary: null,
    config: null,
  };
  const R = F.run;
  while (!r.done()) {
    const tag = r.tag();
    const field = Math.floor(tag / 8);
    const wire = tag & 7;
    if (wire !== WIRE.bytes) r.skip(wire);
    else if (field === R.runId) run.runId = r.string();
    else if (field === R.entity) run.entity = r.string();
    else if (field === R.project) run.project = r.string();
    else if (field === R.displayName) run.displayName = r.string();
    else if (field === R.summary) run.summary = decodeSummary(r.message());
    else if (field === R.config) run.config = decodeSummary(r.message());
    else if (field === R.startTime) run.startTimeMs = decodeTimestampMs(r.message());
    else if (field === R.telemetry) {
      run.telemetry = decodeTelemetry(r.message());
      run.cliVersion = run.telemetry.cliVersion;
    } else r.skip(wire);
  }
  return run;
}

function decodeTimestampMs(r: WireReader): number {
  let seconds = 0;
  let nanos = 0;
  while (!r.done()) {
    const tag = r.tag();
    if (tag === fieldTag(F.timestamp.seconds, WIRE.varint)) seconds = r.varint();
    else if (tag === fieldTag(F.timestamp.nanos, WIRE.varint)) nanos = r.int32();
    else r.skip(tag & 7);
  }
  return seconds * 1000 + Math.floor(nanos / 1e6);
}

function noTelemetry(): DecodedTelemetry {
  return { cliVersion: "", pythonVersion: "", huggingfaceVersion: "" };
}

function decodeTelemetry(r: WireReader): DecodedTelemetry {
  const t = noTelemetry();
  const T = F.telemetry;
  while (!r.done()) {
    const tag = r.tag();
    if (tag === fieldTag(T.cliVersion, WIRE.bytes)) t.cliVersion = r.string();
    else if (tag === fieldTag(T.pythonVersion, WIRE.bytes)) t.pythonVersion = r.string();
    else if (tag === fieldTag(T.huggingfaceVersion, WIRE.bytes)) t.huggingfaceVersion = r.string();
    else r.skip(tag & 7);
  }
  return t;
}

function decodeSummary(r: WireReader): DecodedSummary {
  const summary: DecodedSummary = { update: [], remove: [] };
  while (!r.done()) {
    const tag = r.tag();
    if (tag === fieldTag(F.summary.update, WIRE.bytes)) summary.update.push(decodeItem(r.message()));
    else if (tag === fieldTag(F.summary.remove, WIRE.bytes)) summary.remove.push(decodeItem(r.message()).path);
    else r.skip(tag & 7);
  }
  return summary;
}

function decodeExit(r: WireReader): number {
  let code = 0; // proto3: exit code 0 is not written
  while (!r.done()) {
    const tag = r.tag();
    if (tag === fieldTag(F.exit.exitCode, WIRE.varint)) code = r.int32();
    else r.skip(tag & 7);
  }
  return code;
}

function decodeHeader(r: WireReader): string {
  let producer = "";
  while (!r.done()) {
    const tag = r.tag();
    if (tag === fieldTag(F.header.versionInfo, WIRE.bytes)) {
      const v = r.message();
      while (!v.done()) {
        const t = v.tag();
        if (t === fieldTag(F.versionInfo.producer, WIRE.bytes)) producer = v.string();
        else v.skip(t & 7);
      }
    } else r.skip(tag & 7);
  }
  return producer;
}

function fieldTag(field: number, wire: number): number {
  return field * 8 + wire;
}
