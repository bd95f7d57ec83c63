/**
 * The second port of the test server: exported Parquet files behind signed-looking URLs, like W&B's
 * signed cloud-storage URLs (another host than the API, no API key wanted). A URL carries its expiry,
 * a generation and an HMAC; a wrong signature or an expired URL gets 403, a request that carries an
 * `Authorization` header gets 400 (cloud storage refuses a signed URL plus credentials). Faults: a
 * status (5xx, 429 with Retry-After, ...), a cut body (full Content-Length, half the bytes), and
 * `expired` (403, and every URL handed out so far stops working: a reader must ask for new URLs),
 * and `redirect` (302 to a given Location).
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { type FileFault, FaultQueue } from "./faults";

/** One download request as the file server saw it. */
export interface FileRequestLogEntry {
  path: string;
  method: string | undefined;
  /** The request carried an Authorization header (a reader must never send one here). */
  authorizationSent: boolean;
  /** The raw Authorization header, if any (tests look for the sentinel key in it). */
  authorization: string | null;
  userAgent: string | null;
  /** Status answered. */
  status: number;
  fault: FileFault["kind"] | null;
}

/** A running export file server. */
export interface ExportFileServer {
  /** "http://127.0.0.1:PORT" (another port than the API). */
  url: string;
  /** Publishes bytes under `pathname` and returns a signed URL for it, valid `ttlSeconds`. */
  publish(pathname: string, bytes: Uint8Array, ttlSeconds: number): string;
  injectFault(fault: FileFault): void;
  requests: FileRequestLogEntry[];
  close(): Promise<void>;
}

function xmlError(code: string, message: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`;
}

/** Starts the file server on 127.0.0.1 (ephemeral port). */
export async function startExportFileServer(host = "127.0.0.1"): Promise<ExportFileServer> {
  const secret = randomBytes(32);
  const files = new Map<string, Uint8Array>();
  const faults = new FaultQueue<FileFault>();
  const requests: FileRequestLogEntry[] = [];
  let generation = 1;
  let minValidGeneration = 1;

  const sign = (pathname: string, expires: number, gen: number) => createHmac("sha256", secret).update(`${pathname}\n${expires}\n${gen}`).digest("hex");

  /** Why a signed URL is refused (403 body), or null when it is valid. */
  function checkSignature(url: URL): string | null {
    const expires = Number(url.searchParams.get("X-Expires"));
    const gen = Number(url.searchParams.get("X-Generation"));
    const given = Buffer.from(url.searchParams.get("X-Signature") ?? "", "hex");
    const want = Buffer.from(sign(url.pathname, expires, gen), "hex");
    if (given.length !== want.length || !timingSafeEqual(given, want)) {
      return xmlError("SignatureDoesNotMatch", "The request signature we calculated does not match the signature you provided.");
    }
    if (gen < minValidGeneration || Date.now() / 1000 > expires) return xmlError("ExpiredToken", "Invalid argument: the signed URL has expired.");
    return null;
  }

  const httpServer = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const authorization = req.headers.authorization ?? null;
    const entry: FileRequestLogEntry = {
      path: url.pathname,
      method: req.method,
      authorizationSent: authorization !== null,
      authorization,
      userAgent: req.headers["user-agent"] ?? null,
      status: 0,
      fault: null,
    };
    requests.push(entry);
    const reply = (status: number, body: string | Uint8Array, headers: Record<string, string> = {}) => {
      entry.status = status;
      const buf = typeof body === "string" ? Buffer.from(body) : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
      const type = typeof body === "string" ? "application/xml; charset=UTF-8" : "application/octet-stream";
      res.writeHead(status, { "Content-Type": type, "Content-Length": String(buf.length), ...headers });
      res.end(buf);
    };
    if (req.method !== "GET" && req.method !== "HEAD") return reply(405, xmlError("MethodNotAllowed", req.method ?? ""));
    if (authorization !== null) {
      return reply(400, xmlError("InvalidArgument", "A signed URL request must not carry an Authorization header."));
    }
    const fault = faults.take(() => true);
    entry.fault = fault?.kind ?? null;
    if (fault?.kind === "status")
      return reply(fault.status, xmlError("InjectedFault", `HTTP ${fault.status}`), fault.retryAfter ? { "Retry-After": fault.retryAfter } : {});
    if (fault?.kind === "redirect") return reply(302, "", { Location: fault.location });
    if (fault?.kind === "expired") {
      minValidGeneration = generation + 1;
      generation++;
    }
    const refused = checkSignature(url);
    if (refused) return reply(403, refused);
    const bytes = files.get(url.pathname);
    if (!bytes) return reply(404, xmlError("NoSuchKey", "The specified key does not exist."));
    if (fault?.kind === "cut") {
      entry.status = 200;
      res.writeHead(200, { "Content-Type": "application/octet-stream", "Content-Length": String(bytes.byteLength) });
      res.write(Buffer.from(bytes.buffer, bytes.byteOffset, Math.floor(bytes.byteLength / 2)), () => req.socket.destroy());
      return;
    }
    reply(200, bytes);
  });

  await new Promise<void>((resolve, reject) => {
    httpServer.once("error", reject);
    httpServer.listen(0, host, () => resolve());
  });
  const port = (httpServer.address() as AddressInfo).port;
  const base = `http://${host}:${port}`;
  return {
    url: base,
    requests,
    publish(pathname, bytes, ttlSeconds) {
      files.set(pathname, bytes);
      const expires = Math.floor(Date.now() / 1000) + ttlSeconds;
      const sig = sign(pathname, expires, generation);
      return `${base}${pathname}?X-Expires=${expires}&X-Generation=${generation}&X-Signature=${sig}`;
    },
    injectFault(fault) {
      faults.push(fault);
    },
    close() {
      return new Promise<void>((resolve) => {
        httpServer.close(() => resolve());
        httpServer.closeAllConnections();
      });
    },
  };
}
