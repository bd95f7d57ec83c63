/** Request bodies in and JSON answers out, for the test server's API port. */
import type http from "node:http";

const MAX_BODY_BYTES = 512 * 1024 * 1024;

/** The whole request body (refused over 512 MiB). */
export function readBody(req: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) {
        reject(new Error("request body too large"));
        req.destroy();
      } else chunks.push(c);
    });
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

/** Sends `body` (a string as is, anything else as JSON) unless the response is already gone or started. */
export function sendJson(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.destroyed || res.headersSent) return;
  const buf = Buffer.from(typeof body === "string" ? body : JSON.stringify(body));
  res.writeHead(status, { "Content-Type": "application/json; charset=utf-8", "Content-Length": String(buf.length), ...headers });
  res.end(buf);
}

/** A JSON body, or null when it is not JSON. */
export function parseJsonBody<T>(raw: Buffer): T | null {
  try {
    return JSON.parse(raw.toString("utf8")) as T;
  } catch {
    return null;
  }
}
