/**
 * Local W&B-compatible test server: `POST /graphql` (real GraphQL executor over the schema in
 * schema.ts) and `POST /files/{entity}/{project}/{run}/file_stream` (what @wandb/sdk logs through),
 * Basic-auth checked, with injectable faults and a request log. Binds 127.0.0.1 on an ephemeral port.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { type DocumentNode, executeSync, type GraphQLError, type GraphQLSchema, Kind, parse, validate } from "graphql";
import { buildWandbSchema, type ResolverContext, rootValue } from "./schema";
import { insertRows, lastStep, type RowInput, RunStore, type StoredRun, wandbTimestamp, wrapConfig, writeStreamLines } from "./run-store";
import { startExportFileServer, type ExportFileServer, type FileFault, type FileRequestLogEntry } from "./export-file-server";
import { buildRunExport, DEFAULT_PARQUET_EXPORTS, type ParquetExportConfig, type RunExport } from "./parquet-exports";

/** A fault applied to the next matching /graphql request(s) (`count` defaults to 1). */
export type Fault =
  | { kind: "status"; status: number; retryAfter?: string; count?: number; operationName?: string }
  | { kind: "delay"; ms: number; count?: number; operationName?: string }
  | { kind: "reset"; count?: number; operationName?: string }
  | { kind: "truncate"; count?: number; operationName?: string }
  | { kind: "short-page"; drop: number; count?: number };

/** A run for `addRun`; string rows are raw JSON text served as is, object rows are serialised once. */
export interface AddRunSpec {
  entity: string;
  project: string;
  runId: string;
  /** Default "finished". */
  state?: string;
  /** Default: the run id. */
  displayName?: string;
  /** Default: now, W&B style (UTC, no zone). */
  createdAt?: string;
  /** Plain values; stored wrapped `{"key": {"value": v, "desc": null}}` like W&B. */
  config?: Record<string, unknown>;
  rows: Array<string | Record<string, unknown>>;
}

/** One logged request. For file_stream requests `variables` is the parsed request body. */
export interface RequestLogEntry {
  path: string;
  operationName: string | null;
  variables: unknown;
  authOk: boolean;
  /** Additive: HTTP method, User-Agent header, and the fault applied to this request (if any). */
  method?: string;
  userAgent?: string | null;
  fault?: Fault["kind"] | null;
}

/** A running test server. */
export interface WandbTestServer {
  /** "http://127.0.0.1:PORT", no trailing slash. */
  url: string;
  apiKey: string;
  addRun(spec: AddRunSpec): void;
  appendRows(entity: string, project: string, runId: string, rows: Array<string | Record<string, unknown>>): void;
  setState(entity: string, project: string, runId: string, state: string): void;
  getRun(entity: string, project: string, runId: string): { state: string; rows: string[]; lastStep: number } | undefined;
  injectFault(fault: Fault): void;
  /** Drops the /graphql faults not used up yet (a test that stopped early leaves none behind). */
  clearFaults(): void;
  requests: RequestLogEntry[];
  /** Additive: exported parquet history (off by default), served from a second port (`fileUrl`). */
  setParquetExports(config: Partial<ParquetExportConfig>): void;
  /** "http://127.0.0.1:PORT" of the export file server (another port than `url`). */
  fileUrl: string;
  /** Faults of the next file download(s): status, cut body, expired URL. */
  injectFileFault(fault: FileFault): void;
  /** Every request to the export file server. */
  fileRequests: FileRequestLogEntry[];
  /** Additive: called synchronously for each logged request before it is answered (e.g. to append rows mid-scan). */
  onRequest: ((entry: RequestLogEntry) => void) | null;
  close(): Promise<void>;
}

/** Default API key: obviously fake, 40 characters. */
export const DEFAULT_TEST_API_KEY = "local-test-key-".padEnd(40, "0");

/** Default entity of the viewer (what clients use when they give no entity). */
export const DEFAULT_VIEWER_ENTITY = "test-entity";

const MAX_BODY_BYTES = 512 * 1024 * 1024;
const DOC_CACHE_MAX = 200;

interface CachedDocument {
  document: DocumentNode | null;
  errors: readonly GraphQLError[];
  /** Name of the only/first named operation (Python client sends no operationName field). */
  firstOperationName: string | null;
}

interface QueuedFault {
  fault: Fault;
  remaining: number;
}

function readBody(req: http.IncomingMessage): Promise<Buffer> {
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

/** Starts a server on 127.0.0.1 (ephemeral port unless given). */
export async function startWandbTestServer(opts: { apiKey?: string; port?: number; host?: string; viewerEntity?: string } = {}): Promise<WandbTestServer> {
  const apiKey = opts.apiKey ?? DEFAULT_TEST_API_KEY;
  const viewerEntity = opts.viewerEntity ?? DEFAULT_VIEWER_ENTITY;
  const expectedAuth = `Basic ${Buffer.from(`api:${apiKey}`).toString("base64")}`;
  const schema: GraphQLSchema = buildWandbSchema();
  const store = new RunStore();
  const faults: QueuedFault[] = [];
  const requests: RequestLogEntry[] = [];
  const docCache = new Map<string, CachedDocument>();
  const pendingDelays = new Set<() => void>();
  let closed = false;
  const fileServer: ExportFileServer = await startExportFileServer(opts.host ?? "127.0.0.1");
  let exportConfig: ParquetExportConfig = { ...DEFAULT_PARQUET_EXPORTS };
  // Built files per run, rebuilt when the run's rows or the export settings change.
  const exportCache = new WeakMap<StoredRun, { key: string; built: RunExport }>();

  function exportOf(run: StoredRun): { urls: string[]; exportedRows: number } {
    if (!exportConfig.enabled) return { urls: [], exportedRows: 0 };
    const key = `${run.steps.length}|${run.texts[run.texts.length - 1] ?? ""}|${exportConfig.lagSteps}|${exportConfig.filesPerRun}|${exportConfig.rowGroupSize}`;
    let cached = exportCache.get(run);
    if (!cached || cached.key !== key) {
      cached = { key, built: buildRunExport(run, exportConfig) };
      exportCache.set(run, cached);
    }
    const dir = `/wandb-exports/${[run.entity, run.project, run.name].map(encodeURIComponent).join("/")}`;
    // URLs are signed afresh on every query, as W&B hands out short-lived signed URLs.
    const urls = cached.built.files.map((bytes, i) =>
      fileServer.publish(`${dir}/${encodeURIComponent(run.name)}_${i}.runhistory.parquet`, bytes, exportConfig.urlTtlSeconds),
    );
    return { urls, exportedRows: cached.built.exportedRows };
  }

  function takeFault(operationName: string | null): Fault | null {
    const i = faults.findIndex((q) => q.fault.kind !== "short-page" && (q.fault.operationName === undefined || q.fault.operationName === operationName));
    if (i < 0) return null;
    const q = faults[i];
    if (--q.remaining <= 0) faults.splice(i, 1);
    return q.fault;
  }

  function takeShortPage(): number {
    const i = faults.findIndex((q) => q.fault.kind === "short-page");
    if (i < 0) return 0;
    const q = faults[i];
    if (--q.remaining <= 0) faults.splice(i, 1);
    return (q.fault as Extract<Fault, { kind: "short-page" }>).drop;
  }

  function compile(query: string): CachedDocument {
    const hit = docCache.get(query);
    if (hit) return hit;
    let entry: CachedDocument;
    try {
      const document = parse(query);
      const errors = validate(schema, document);
      const op = document.definitions.find((d) => d.kind === Kind.OPERATION_DEFINITION && d.name);
      const firstOperationName = op && op.kind === Kind.OPERATION_DEFINITION ? (op.name?.value ?? null) : null;
      entry = { document: errors.length ? null : document, errors, firstOperationName };
    } catch (e) {
      entry = { document: null, errors: [e as GraphQLError], firstOperationName: null };
    }
    if (docCache.size >= DOC_CACHE_MAX) docCache.delete(docCache.keys().next().value as string);
    docCache.set(query, entry);
    return entry;
  }

  function sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        pendingDelays.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      pendingDelays.add(done);
    });
  }

  function send(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    if (res.destroyed || res.headersSent) return;
    const buf = Buffer.from(typeof body === "string" ? body : JSON.stringify(body));
    res.writeHead(status, { "Content-Type": "application/json; charset=utf-8", "Content-Length": String(buf.length), ...headers });
    res.end(buf);
  }

  function log(entry: RequestLogEntry): void {
    requests.push(entry);
    if (server_.onRequest) server_.onRequest(entry);
  }

  async function handleGraphql(req: http.IncomingMessage, res: http.ServerResponse, raw: Buffer, authOk: boolean) {
    let body: { query?: unknown; variables?: unknown; operationName?: unknown } | null = null;
    try {
      body = JSON.parse(raw.toString("utf8"));
    } catch {
      body = null;
    }
    let variables: unknown = body?.variables ?? null;
    if (typeof variables === "string") {
      try {
        variables = JSON.parse(variables);
      } catch {
        /* left as a string: the executor reports it */
      }
    }
    const query = typeof body?.query === "string" ? body.query : null;
    const compiled = query !== null ? compile(query) : null;
    const operationName = typeof body?.operationName === "string" && body.operationName ? body.operationName : (compiled?.firstOperationName ?? null);
    const entry: RequestLogEntry = {
      path: "/graphql",
      operationName,
      variables,
      authOk,
      method: req.method,
      userAgent: req.headers["user-agent"] ?? null,
      fault: null,
    };
    log(entry);

    const fault = takeFault(operationName);
    entry.fault = fault?.kind ?? null;
    if (fault?.kind === "status") {
      const headers: Record<string, string> = fault.retryAfter !== undefined ? { "Retry-After": fault.retryAfter } : {};
      send(res, fault.status, { errors: [{ message: `injected fault: HTTP ${fault.status}` }] }, headers);
      return;
    }
    if (fault?.kind === "reset") {
      req.socket.destroy();
      return;
    }
    if (fault?.kind === "delay") {
      await sleep(fault.ms);
      if (closed || res.destroyed) return;
    }

    if (!authOk) {
      send(res, 401, { errors: [{ message: "invalid or missing API key (expected Basic auth api:<key>)" }] });
      return;
    }
    let result: unknown;
    if (body === null || typeof body !== "object") {
      send(res, 400, { errors: [{ message: "request body must be a JSON object" }] });
      return;
    }
    if (compiled === null) {
      result = { errors: [{ message: "Must provide query string." }] };
    } else if (!compiled.document) {
      result = { errors: compiled.errors };
    } else {
      const ctx: ResolverContext = { store, viewerEntity, takeShortPage, exportOf };
      result = executeSync({
        schema,
        document: compiled.document,
        rootValue,
        contextValue: ctx,
        variableValues: (variables as Record<string, unknown> | null) ?? undefined,
        operationName: typeof body.operationName === "string" && body.operationName ? body.operationName : undefined,
      });
    }
    const payload = Buffer.from(JSON.stringify(result));
    if (fault?.kind === "truncate") {
      // Promise the whole body, send half of it, then drop the connection.
      res.writeHead(200, { "Content-Type": "application/json; charset=utf-8", "Content-Length": String(payload.length) });
      res.write(payload.subarray(0, Math.floor(payload.length / 2)), () => req.socket.destroy());
      return;
    }
    send(res, 200, payload.toString("utf8"));
  }

  function handleFileStream(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    raw: Buffer,
    authOk: boolean,
    path: string,
    [entity, project, runId]: string[],
  ) {
    let body: {
      files?: Record<string, { offset?: number; content?: string[] }>;
      complete?: boolean;
      exitcode?: number | null;
    } | null = null;
    try {
      body = JSON.parse(raw.toString("utf8"));
    } catch {
      body = null;
    }
    log({ path, operationName: null, variables: body, authOk, method: req.method, userAgent: req.headers["user-agent"] ?? null, fault: null });
    if (!authOk) return send(res, 401, { error: "invalid or missing API key" });
    if (body === null || typeof body !== "object") return send(res, 400, { error: "request body must be a JSON object" });
    const run = store.get(entity, project, runId);
    if (!run) return send(res, 404, { error: `run not found: ${entity}/${project}/${runId}` });
    try {
      for (const [file, chunk] of Object.entries(body.files ?? {})) {
        const content = chunk?.content ?? [];
        if (file === "wandb-history.jsonl") writeStreamLines(run, chunk.offset ?? run.streamLines.length, content);
        else if (file === "wandb-summary.json" && content.length > 0) run.summaryText = content[content.length - 1];
        // Other files (output.log, wandb-events.jsonl) are accepted and dropped.
      }
    } catch (e) {
      return send(res, 400, { error: (e as Error).message });
    }
    if (body.complete === true) run.state = body.exitcode == null || body.exitcode === 0 ? "finished" : "failed";
    run.heartbeatAt = wandbTimestamp();
    send(res, 200, { exitcode: null, limits: {} });
  }

  const httpServer = http.createServer((req, res) => {
    (async () => {
      const raw = await readBody(req);
      const path = new URL(req.url ?? "/", "http://127.0.0.1").pathname;
      const authOk = req.headers.authorization === expectedAuth;
      if (path === "/graphql" && req.method === "POST") return handleGraphql(req, res, raw, authOk);
      const m = /^\/files\/([^/]+)\/([^/]+)\/([^/]+)\/file_stream$/.exec(path);
      if (m && req.method === "POST") {
        return handleFileStream(req, res, raw, authOk, path, m.slice(1).map(decodeURIComponent));
      }
      log({ path, operationName: null, variables: null, authOk, method: req.method, userAgent: req.headers["user-agent"] ?? null, fault: null });
      send(res, 404, { error: `not found: ${req.method} ${path}` });
    })().catch((e: Error) => send(res, 500, { errors: [{ message: `test server error: ${e.message}` }] }));
  });

  await new Promise<void>((resolve, reject) => {
    httpServer.once("error", reject);
    httpServer.listen(opts.port ?? 0, opts.host ?? "127.0.0.1", () => resolve());
  }).catch(async (e) => {
    await fileServer.close();
    throw e;
  });
  const address = httpServer.address() as AddressInfo;
  const hostForUrl = address.family === "IPv6" ? `[${address.address}]` : address.address;

  function mustGet(entity: string, project: string, runId: string) {
    const run = store.get(entity, project, runId);
    if (!run) throw new Error(`run not found: ${entity}/${project}/${runId}`);
    return run;
  }

  const server_: WandbTestServer = {
    url: `http://${hostForUrl}:${address.port}`,
    apiKey,
    requests,
    onRequest: null,
    fileUrl: fileServer.url,
    fileRequests: fileServer.requests,
    setParquetExports(config) {
      const next = { ...exportConfig, ...config };
      for (const field of ["lagSteps", "filesPerRun", "rowGroupSize", "urlTtlSeconds"] as const) {
        if (!Number.isInteger(next[field]) || next[field] < (field === "lagSteps" ? 0 : 1)) throw new Error(`invalid ${field}: ${next[field]}`);
      }
      exportConfig = next;
    },
    injectFileFault(fault) {
      fileServer.injectFault(fault);
    },
    addRun(spec) {
      if (store.get(spec.entity, spec.project, spec.runId)) {
        throw new Error(`run ${spec.entity}/${spec.project}/${spec.runId} already exists`);
      }
      const run = store.create(spec.entity, spec.project, spec.runId, {
        state: spec.state ?? "finished",
        displayName: spec.displayName ?? spec.runId,
        ...(spec.createdAt !== undefined ? { createdAt: spec.createdAt } : {}),
        config: wrapConfig(spec.config),
      });
      try {
        insertRows(run, spec.rows as RowInput[]);
      } catch (e) {
        // insertRows validates every row before storing any: drop the empty run, keep no half state.
        store.delete(spec.entity, spec.project, spec.runId);
        throw e;
      }
    },
    appendRows(entity, project, runId, rows) {
      const run = mustGet(entity, project, runId);
      insertRows(run, rows as RowInput[]);
      run.heartbeatAt = wandbTimestamp();
    },
    setState(entity, project, runId, state) {
      mustGet(entity, project, runId).state = state;
    },
    getRun(entity, project, runId) {
      const run = store.get(entity, project, runId);
      return run ? { state: run.state, rows: run.texts.slice(), lastStep: lastStep(run) } : undefined;
    },
    injectFault(fault) {
      faults.push({ fault, remaining: fault.count ?? 1 });
    },
    clearFaults() {
      faults.length = 0;
    },
    async close() {
      closed = true;
      for (const done of [...pendingDelays]) done();
      await Promise.all([
        new Promise<void>((resolve) => {
          httpServer.close(() => resolve());
          httpServer.closeAllConnections();
        }),
        fileServer.close(),
      ]);
    },
  };
  return server_;
}
