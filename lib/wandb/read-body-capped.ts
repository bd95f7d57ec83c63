/**
 * Reading a response body with a size cap, shared by the GraphQL requests and the export downloads:
 * refused up front by its Content-Length, or as soon as more bytes arrive than allowed (the rest is
 * left unread), so a misbehaving server cannot fill memory.
 */

/** The body passed the cap; the message says how it was noticed. */
export class BodyTooLarge extends Error {}

/** Body bytes of a response; throws BodyTooLarge past `maxBytes`. */
export async function readBodyCapped(res: Response, maxBytes: number): Promise<Uint8Array> {
  const declared = Number(res.headers.get("content-length") ?? NaN);
  if (declared > maxBytes) {
    await res.body?.cancel().catch(() => undefined);
    throw new BodyTooLarge(`Content-Length ${declared}`);
  }
  if (res.body === null) return new Uint8Array(0);
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw new BodyTooLarge(`more than ${maxBytes} bytes read`);
    }
    chunks.push(value);
  }
  return chunks.length === 1 ? chunks[0] : new Uint8Array(Buffer.concat(chunks));
}
