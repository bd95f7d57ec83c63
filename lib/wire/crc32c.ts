/**
 * CRC-32C (Castagnoli), masked as TFRecord files store it: TensorBoard event files carry the masked
 * CRC-32C of each record's length and of its data. The CRC itself comes from the `crc-32` package
 * (SheetJS, pure JavaScript, slicing by 16); Node's zlib only has the IEEE polynomial, which the W&B
 * log uses (lib/wandb-file/crc32.ts). See docs/libraries.md.
 */
import * as CRC32C from "crc-32/crc32c";

/** The constant TFRecord adds after rotating (tensorflow/core/lib/hash/crc32c.h, `kMaskDelta`). */
const MASK_DELTA = 0xa282ead8;

/** CRC-32C of `data` (unsigned). */
export function crc32c(data: Uint8Array): number {
  return CRC32C.buf(data) >>> 0;
}

/** The masked CRC-32C TFRecord stores: the CRC rotated right by 15 bits plus 0xa282ead8, mod 2^32. */
export function maskedCrc32c(data: Uint8Array): number {
  const crc = crc32c(data);
  return ((((crc >>> 15) | (crc << 17)) >>> 0) + MASK_DELTA) >>> 0;
}
