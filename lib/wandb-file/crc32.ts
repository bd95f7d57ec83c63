/**
 * CRC-32 (IEEE 802.3, the zlib polynomial) as the W&B transaction log uses it: computed over the
 * chunk type byte followed by the chunk data, stored unmasked. (LevelDB proper uses a masked
 * CRC-32C; W&B's writers, the old Python one and wandb-core, both use plain IEEE CRC-32.)
 */
import * as zlib from "node:zlib";

/** Lookup table of the reflected polynomial 0xEDB88320, for Node versions without zlib.crc32. */
function makeTable(): Uint32Array {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
}

let TABLE: Uint32Array | null = null;

/** CRC-32 in plain JavaScript (same result as zlib.crc32), continuing from `crc`. */
export function crc32Js(data: Uint8Array, crc = 0): number {
  if (TABLE === null) TABLE = makeTable();
  let c = ~crc >>> 0;
  for (let i = 0; i < data.length; i++) c = TABLE[(c ^ data[i]) & 0xff] ^ (c >>> 8);
  return ~c >>> 0;
}

// zlib.crc32 is native (Node >= 20.15 / 22.2); older Node 20 releases fall back to the table.
const nativeCrc32 = (zlib as unknown as { crc32?: (data: Uint8Array, value?: number) => number }).crc32;

/** CRC-32 of `data`, continuing from `crc` (0 to start). */
export function crc32(data: Uint8Array, crc = 0): number {
  return nativeCrc32 ? nativeCrc32(data, crc) >>> 0 : crc32Js(data, crc);
}

/** The checksum a W&B log chunk header carries: CRC-32 of the type byte, then of the data. */
export function chunkChecksum(type: number, data: Uint8Array): number {
  return crc32(data, crc32(Uint8Array.of(type)));
}
