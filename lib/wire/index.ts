/** Binary formats the file readers share: the protobuf wire format and TFRecord's masked CRC-32C. Re-exports only. */
export { crc32c, maskedCrc32c } from "./crc32c";
export { WireError, WireReader, WIRE } from "./protobuf-wire";
