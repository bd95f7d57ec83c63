/**
 * The TensorBoard `Event` protobuf (tensorboard/compat/proto/event.proto, summary.proto, tensor.proto),
 * decoded by field number from the wire format: `wall_time`, `step`, `file_version` and the scalar
 * values of `summary.value[]`. A scalar is a `simple_value` (float32: PyTorch's SummaryWriter and
 * tensorboardX by default) or a one-element numeric `tensor` of the scalars plugin (TF2's
 * `tf.summary.scalar`, and `new_style`/`double_precision` scalars of PyTorch and tensorboardX): float,
 * double, half, bfloat16 and integer types, from the typed value list or from `tensor_content`. Every
 * other summary (histograms, images, audio, text, hparams, non-scalar tensors) is named by its kind to
 * be counted and dropped.
 */
import { WIRE, WireReader } from "../wire/protobuf-wire";

/** One scalar of an event: tag and value (float32 values widened exactly to a double). */
export interface EventScalar {
  tag: string;
  value: number;
}

/** A summary value that is not a scalar: its tag and kind (histogram, image, audio, or the plugin name). */
export interface DroppedSummary {
  tag: string;
  kind: string;
}

/** What the archive needs of one `Event`. */
export interface DecodedEvent {
  wallTime: number;
  step: number;
  /** `file_version` of the first event of a file ("brain.Event:2"), else null. */
  fileVersion: string | null;
  scalars: EventScalar[];
  dropped: DroppedSummary[];
  /** True when the event holds a summary (else it is a file version, graph, session log, ...). */
  hasSummary: boolean;
  /**
   * Configs the event carries, in memory only (still counted as dropped summaries): an hparams
   * session start's hyperparameters, and the JSON object of a text summary whose tag is one of the
   * decoder's config tags.
   */
  configs: Record<string, unknown>[];
}

/** TensorFlow `DataType` values of the numeric types a scalar tensor may hold (types.proto). */
const DT = { float: 1, double: 2, int32: 3, uint8: 4, int16: 5, int8: 6, int64: 9, bfloat16: 14, uint16: 17, half: 19, uint32: 22, uint64: 23 } as const;

/** Decodes one event record (text summaries tagged one of `configTags` read as JSON configs); throws `WireError` on a malformed message. */
export function decodeEvent(data: Uint8Array, configTags: ReadonlySet<string> = NO_TAGS): DecodedEvent {
  const r = new WireReader(data);
  const ev: DecodedEvent = { wallTime: 0, step: 0, fileVersion: null, scalars: [], dropped: [], hasSummary: false, configs: [] };
  while (!r.done()) {
    const tag = r.tag();
    const field = tag >>> 3;
    const wire = tag & 7;
    if (field === 1 && wire === WIRE.fixed64) ev.wallTime = r.double();
    else if (field === 2 && wire === WIRE.varint) ev.step = r.int64();
    else if (field === 3 && wire === WIRE.bytes) ev.fileVersion = r.string();
    else if (field === 5 && wire === WIRE.bytes) {
      ev.hasSummary = true;
      decodeSummary(r.message(), ev, configTags);
    } else r.skip(wire);
  }
  return ev;
}

const NO_TAGS: ReadonlySet<string> = new Set();

/** `Summary`: repeated `Value value = 1`. */
function decodeSummary(r: WireReader, ev: DecodedEvent, configTags: ReadonlySet<string>): void {
  while (!r.done()) {
    const tag = r.tag();
    if (tag >>> 3 === 1 && (tag & 7) === WIRE.bytes) decodeValue(r.message(), ev, configTags);
    else r.skip(tag & 7);
  }
}

/** `Summary.Value`: tag 1, simple_value 2, histo 5 (and the old 3), image 4, audio 6, tensor 8, metadata 9. */
function decodeValue(r: WireReader, ev: DecodedEvent, configTags: ReadonlySet<string>): void {
  let name = "";
  let simple: number | null = null;
  let kind: string | null = null;
  let tensor: WireReader | null = null;
  let plugin = "";
  let dataClass = 0;
  let content: Uint8Array | null = null;
  while (!r.done()) {
    const tag = r.tag();
    const field = tag >>> 3;
    const wire = tag & 7;
    if (field === 1 && wire === WIRE.bytes) name = r.string();
    else if (field === 7 && wire === WIRE.bytes && name === "")
      name = r.string(); // node_name: the tag of very old files
    else if (field === 2 && wire === WIRE.fixed32) simple = r.float();
    else if (field === 8 && wire === WIRE.bytes) tensor = r.message();
    else if (field === 9 && wire === WIRE.bytes) [plugin, dataClass, content] = decodeMetadata(r.message());
    else if ((field === 3 || field === 5) && wire === WIRE.bytes) kind = skipAs("histogram", r);
    else if (field === 4 && wire === WIRE.bytes) kind = skipAs("image", r);
    else if (field === 6 && wire === WIRE.bytes) kind = skipAs("audio", r);
    else r.skip(wire);
  }
  if (plugin === "hparams" && content !== null) takeConfig(ev, sessionStartHparams(new WireReader(content)));
  else if (plugin === "text" && tensor !== null && configTags.has(name)) takeConfig(ev, jsonObject(firstString(tensor)));
  if (simple !== null) ev.scalars.push({ tag: name, value: simple });
  else if (kind !== null) ev.dropped.push({ tag: name, kind });
  else if (tensor !== null) {
    // DataClass 1 is DATA_CLASS_SCALAR (summary.proto); the scalars plugin is TF2's and TensorBoard's own.
    const value = plugin === "scalars" || dataClass === 1 ? scalarOfTensor(tensor) : null;
    if (value !== null) ev.scalars.push({ tag: name, value });
    else ev.dropped.push({ tag: name, kind: plugin || "tensor" });
  } else ev.dropped.push({ tag: name, kind: "empty" });
}

/** Skips a length-delimited field and returns the kind it stands for. */
function skipAs(kind: string, r: WireReader): string {
  r.span();
  return kind;
}

/** `SummaryMetadata`: plugin_data 1 (plugin_name 1, content 2), data_class 4. */
function decodeMetadata(r: WireReader): [string, number, Uint8Array | null] {
  let plugin = "";
  let dataClass = 0;
  let content: Uint8Array | null = null;
  while (!r.done()) {
    const tag = r.tag();
    const field = tag >>> 3;
    if (field === 1 && (tag & 7) === WIRE.bytes) {
      const pd = r.message();
      while (!pd.done()) {
        const t = pd.tag();
        if (t >>> 3 === 1 && (t & 7) === WIRE.bytes) plugin = pd.string();
        else if (t >>> 3 === 2 && (t & 7) === WIRE.bytes) {
          const [s, e] = pd.span();
          content = pd.buf.subarray(s, e);
        } else pd.skip(t & 7);
      }
    } else if (field === 4 && (tag & 7) === WIRE.varint) dataClass = r.varint();
    else r.skip(tag & 7);
  }
  return [plugin, dataClass, content];
}

function takeConfig(ev: DecodedEvent, config: Record<string, unknown> | null): void {
  if (config !== null) ev.configs.push(config);
}

/** The first `string_val` (field 8) of a string `TensorProto`: a text summary's text. */
function firstString(r: WireReader): string | null {
  while (!r.done()) {
    const tag = r.tag();
    if (tag >>> 3 === 8 && (tag & 7) === WIRE.bytes) return r.string();
    r.skip(tag & 7);
  }
  return null;
}

/** The text as a JSON object, or null (not JSON, or JSON of another shape). */
function jsonObject(text: string | null): Record<string, unknown> | null {
  if (text === null) return null;
  try {
    const v = JSON.parse(text);
    return v !== null && typeof v === "object" && !Array.isArray(v) ? v : null;
  } catch {
    return null;
  }
}

/**
 * The hyperparameters of an hparams plugin's `HParamsPluginData` (session_start_info 3, its map
 * `hparams` 1 of string to `google.protobuf.Value`: number 2, string 3, bool 4); null for the
 * plugin's other messages (experiment, session end).
 */
function sessionStartHparams(r: WireReader): Record<string, unknown> | null {
  let out: Record<string, unknown> | null = null;
  while (!r.done()) {
    const tag = r.tag();
    if (tag >>> 3 !== 3 || (tag & 7) !== WIRE.bytes) {
      r.skip(tag & 7);
      continue;
    }
    out = {};
    const info = r.message();
    while (!info.done()) {
      const t = info.tag();
      if (t >>> 3 === 1 && (t & 7) === WIRE.bytes) {
        const [k, v] = mapEntry(info.message());
        if (k !== null && v !== undefined) Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
      } else info.skip(t & 7);
    }
  }
  return out;
}

/** One `map<string, Value>` entry: key 1, value 2. */
function mapEntry(r: WireReader): [string | null, unknown] {
  let key: string | null = null;
  let value: unknown;
  while (!r.done()) {
    const tag = r.tag();
    if (tag >>> 3 === 1 && (tag & 7) === WIRE.bytes) key = r.string();
    else if (tag >>> 3 === 2 && (tag & 7) === WIRE.bytes) value = protobufValue(r.message());
    else r.skip(tag & 7);
  }
  return [key, value];
}

/** A `google.protobuf.Value`'s number, string or bool; undefined for null, struct and list values. */
function protobufValue(r: WireReader): unknown {
  let value: unknown;
  while (!r.done()) {
    const tag = r.tag();
    const field = tag >>> 3;
    const wire = tag & 7;
    if (field === 2 && wire === WIRE.fixed64) value = r.double();
    else if (field === 3 && wire === WIRE.bytes) value = r.string();
    else if (field === 4 && wire === WIRE.varint) value = r.varint() !== 0;
    else r.skip(wire);
  }
  return value;
}

/** The one element of a numeric `TensorProto`, or null when it is not a one-element numeric tensor. */
function scalarOfTensor(r: WireReader): number | null {
  let dtype = 0;
  let elements = 1;
  let content: Uint8Array | null = null;
  const values: number[] = [];
  while (!r.done()) {
    const tag = r.tag();
    const field = tag >>> 3;
    const wire = tag & 7;
    if (field === 1 && wire === WIRE.varint) dtype = r.varint();
    else if (field === 2 && wire === WIRE.bytes) elements = shapeElements(r.message());
    else if (field === 4 && wire === WIRE.bytes) {
      const [s, e] = r.span();
      content = r.buf.subarray(s, e);
    } else if (field === 5) readRepeated(r, wire, WIRE.fixed32, (x) => x.float(), values);
    else if (field === 6) readRepeated(r, wire, WIRE.fixed64, (x) => x.double(), values);
    else if (field === 7 || field === 13) readRepeated(r, wire, WIRE.varint, (x) => intOfDtype(dtype, x.int32()), values);
    else if (field === 10) readRepeated(r, wire, WIRE.varint, (x) => x.int64(), values);
    else if (field === 16 || field === 17) readRepeated(r, wire, WIRE.varint, (x) => x.varint(), values);
    else r.skip(wire);
  }
  if (elements !== 1) return null;
  if (content !== null && content.length > 0) return numberOfContent(dtype, content);
  if (values.length === 0) return null;
  return values[0];
}

/** int_val holds int32, int16, int8, uint8, uint16, and the 16 bits of half and bfloat16 values. */
function intOfDtype(dtype: number, v: number): number {
  if (dtype === DT.half) return halfToNumber(v & 0xffff);
  if (dtype === DT.bfloat16) return bfloat16ToNumber(v & 0xffff);
  return v;
}

/** Reads a repeated scalar field, packed (wire type 2) or one element at a time, with `read` on a reader bounded to it. */
function readRepeated(r: WireReader, wire: number, elementWire: number, read: (from: WireReader) => number, out: number[]): void {
  if (wire === elementWire) out.push(read(r));
  else if (wire === WIRE.bytes) {
    const packed = r.message();
    while (!packed.done()) out.push(read(packed));
  } else r.skip(wire);
}

/** Elements of a `TensorShapeProto` (dim 2, each with size 1): 1 for rank 0; -1 for an unknown rank. */
function shapeElements(r: WireReader): number {
  let n = 1;
  while (!r.done()) {
    const tag = r.tag();
    const field = tag >>> 3;
    if (field === 2 && (tag & 7) === WIRE.bytes) {
      const dim = r.message();
      let size = 0;
      while (!dim.done()) {
        const t = dim.tag();
        if (t >>> 3 === 1 && (t & 7) === WIRE.varint) size = dim.int64();
        else dim.skip(t & 7);
      }
      n *= size;
    } else if (field === 3 && (tag & 7) === WIRE.varint) {
      if (r.varint() !== 0) return -1;
    } else r.skip(tag & 7);
  }
  return n;
}

/** The first element of `tensor_content` (little-endian) for a numeric dtype, or null. */
function numberOfContent(dtype: number, c: Uint8Array): number | null {
  const v = new DataView(c.buffer, c.byteOffset, c.length);
  const need = (n: number) => c.length >= n;
  switch (dtype) {
    case DT.float:
      return need(4) ? v.getFloat32(0, true) : null;
    case DT.double:
      return need(8) ? v.getFloat64(0, true) : null;
    case DT.int32:
      return need(4) ? v.getInt32(0, true) : null;
    case DT.uint32:
      return need(4) ? v.getUint32(0, true) : null;
    case DT.int16:
      return need(2) ? v.getInt16(0, true) : null;
    case DT.uint16:
      return need(2) ? v.getUint16(0, true) : null;
    case DT.int8:
      return need(1) ? v.getInt8(0) : null;
    case DT.uint8:
      return need(1) ? v.getUint8(0) : null;
    case DT.int64:
      return need(8) ? Number(v.getBigInt64(0, true)) : null;
    case DT.uint64:
      return need(8) ? Number(v.getBigUint64(0, true)) : null;
    case DT.half:
      return need(2) ? halfToNumber(v.getUint16(0, true)) : null;
    case DT.bfloat16:
      return need(2) ? bfloat16ToNumber(v.getUint16(0, true)) : null;
    default:
      return null;
  }
}

/** IEEE 754 half precision bits -> number. */
function halfToNumber(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >> 10) & 0x1f;
  const frac = h & 0x3ff;
  if (exp === 0) return sign * frac * 2 ** -24;
  if (exp === 31) return frac === 0 ? sign * Infinity : NaN;
  return sign * (1 + frac / 1024) * 2 ** (exp - 15);
}

/** bfloat16 bits (the high half of a float32) -> number. */
function bfloat16ToNumber(b: number): number {
  const v = new DataView(new ArrayBuffer(4));
  v.setUint32(0, b << 16);
  return v.getFloat32(0);
}
