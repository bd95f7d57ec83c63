/**
 * Injectable faults of the test server: what a fault is (the /graphql ones and the export file
 * port's), the queue that hands them to requests in order, the stalls a `delay` fault holds open,
 * and how a /graphql fault changes the answer (status, reset, delay, truncate).
 */
import type http from "node:http";

/** A fault applied to the next matching /graphql request(s) (`count` defaults to 1). */
export type Fault =
  | { kind: "status"; status: number; retryAfter?: string; count?: number; operationName?: string }
  | { kind: "delay"; ms: number; count?: number; operationName?: string }
  | { kind: "reset"; count?: number; operationName?: string }
  | { kind: "truncate"; count?: number; operationName?: string }
  | { kind: "short-page"; drop: number; count?: number };

/** A fault of the next matching file download(s) (`count` defaults to 1). */
export type FileFault =
  | { kind: "status"; status: number; retryAfter?: string; count?: number }
  | { kind: "cut"; count?: number }
  | { kind: "expired"; count?: number }
  | { kind: "redirect"; location: string; count?: number };

/** Faults waiting for requests, in queue order; each is used up after `count` requests. */
export class FaultQueue<F extends { count?: number }> {
  private readonly queued: { fault: F; remaining: number }[] = [];

  push(fault: F): void {
    this.queued.push({ fault, remaining: fault.count ?? 1 });
  }

  /** Drops every fault not used up yet. */
  clear(): void {
    this.queued.length = 0;
  }

  /** The first queued fault that `matches`, counted as used once; null when none does. */
  take(matches: (fault: F) => boolean): F | null {
    const i = this.queued.findIndex((q) => matches(q.fault));
    if (i < 0) return null;
    const q = this.queued[i];
    if (--q.remaining <= 0) this.queued.splice(i, 1);
    return q.fault;
  }
}

/** The next /graphql fault for a request named `operationName` (short pages are taken by the history resolver). */
export function takeRequestFault(queue: FaultQueue<Fault>, operationName: string | null): Fault | null {
  return queue.take((f) => f.kind !== "short-page" && (f.operationName === undefined || f.operationName === operationName));
}

/** Rows the next windowed history answer drops (a `short-page` fault), 0 when none is queued. */
export function takeShortPage(queue: FaultQueue<Fault>): number {
  const fault = queue.take((f) => f.kind === "short-page");
  return fault?.kind === "short-page" ? fault.drop : 0;
}

/** The stalls of `delay` faults, all released at once when the server closes. */
export class PendingDelays {
  private readonly pending = new Set<() => void>();

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.pending.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.pending.add(done);
    });
  }

  releaseAll(): void {
    for (const done of [...this.pending]) done();
  }
}

/** How a fault is answered before the request is served: "answered" (status sent or socket reset) or "serve". */
export async function applyFaultBefore(
  fault: Fault | null,
  req: http.IncomingMessage,
  send: (status: number, body: unknown, headers?: Record<string, string>) => void,
  delays: PendingDelays,
  stillOpen: () => boolean,
): Promise<"answered" | "serve"> {
  if (fault?.kind === "status") {
    const headers: Record<string, string> = fault.retryAfter !== undefined ? { "Retry-After": fault.retryAfter } : {};
    send(fault.status, { errors: [{ message: `injected fault: HTTP ${fault.status}` }] }, headers);
    return "answered";
  }
  if (fault?.kind === "reset") {
    req.socket.destroy();
    return "answered";
  }
  if (fault?.kind === "delay") {
    await delays.sleep(fault.ms);
    if (!stillOpen()) return "answered";
  }
  return "serve";
}

/** A `truncate` fault's answer: promise the whole body, send half of it, then drop the connection. */
export function sendTruncated(req: http.IncomingMessage, res: http.ServerResponse, payload: Buffer): void {
  res.writeHead(200, { "Content-Type": "application/json; charset=utf-8", "Content-Length": String(payload.length) });
  res.write(payload.subarray(0, Math.floor(payload.length / 2)), () => req.socket.destroy());
}
