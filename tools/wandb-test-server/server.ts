/**
 * Local W&B-compatible test server: `POST /graphql` (real GraphQL executor over the schema in
 * schema.ts) and `POST /files/{entity}/{project}/{run}/file_stream` (what @wandb/sdk logs through),
 * Basic-auth checked, with injectable faults (faults.ts) and a request log. Binds 127.0.0.1 on an
 * ephemeral port.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { executeSync, type GraphQLSchema } from "graphql";
import { type ExportFileServer, type FileRequestLogEntry, startExportFileServer } from "./export-file-server";
import { applyFaultBefore, type Fault, type FileFault, FaultQueue, PendingDelays, sendTruncated, takeRequestFault, takeShortPage } from "./faults";
import { type CompiledDocument, DocumentCache } from "./graphql-documents";
import { parseJsonBody, readBody, sendJson } from "./http-io";
import { buildRunExport, DEFAULT_PARQUET_EXPORTS, LIVE_LISTINGS, type LiveListing, type ParquetExportConfig, type RunExport } from "./parquet-exports";
import { insertRows, lastStep, type RowInput, RunStore, type StoredRun, wandbTimestamp, wrapConfig, writeStreamLines } from "./run-store";
import { buildWandbSchema, type ResolverContext, rootValue } from "./schema";

export type { Fault } from "./faults";

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
  /** Additive: drops the rows after `toStep`, as W&B's rewind (`resume_from`) does before the run logs on from there. */
  rewindRun(entity: string, project: string, runId: string, toStep: number): void;
  /** Additive: removes the run (the API then answers as for a run that never existed). */
  deleteRun(entity: string, project: string, runId: string): void;
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
  /**
   * Additive: the most /graphql requests of one operation being answered at once since the server
   * started or `resetPeaks` (a client's concurrency, as the server sees it).
   */
  peakInFlight(operationName: string): number;
  resetPeaks(): void;
  close(): Promise<void>;
}

/** Default API key: obviously fake, 40 characters. */
export const DEFAULT_TEST_API_KEY = "local-test-key-".padEnd(40, "0");

/** Default entity of the viewer (what clients use when they give no entity). */
export const DEFAULT_VIEWER_ENTITY = "test-entity";

/** Options of `startWandbTestServer`. */
interface ServerOptions {
  apiKey?: string;
  port?: number;
  host?: string;
  viewerEntity?: string;
}

/** A /graphql request body as read: the parsed body (null unless JSON), its variables and its compiled query. */
interface GraphqlRequest {
  body: { query?: unknown; variables?: unknown; operationName?: unknown } | null;
  variables: unknown;
  compiled: CompiledDocument | null;
  operationName: string | null;
}

/** A file_stream request body. */
interface FileStreamBody {
  files?: Record<string, { offset?: number; content?: string[] }>;
  complete?: boolean;
  exitcode?: number | null;
}

/** The server behind `startWandbTestServer`: runs, faults and request log of one API port plus its export file port. */
class LocalWandbServer implements WandbTestServer {
  url = "";
  readonly apiKey: string;
  readonly requests: RequestLogEntry[] = [];
  onRequest: ((entry: RequestLogEntry) => void) | null = null;
  readonly fileUrl: string;
  readonly fileRequests: FileRequestLogEntry[];
  private readonly viewerEntity: string;
  private readonly expectedAuth: string;
  private readonly schema: GraphQLSchema = buildWandbSchema();
  private readonly documents = new DocumentCache(this.schema);
  private readonly store = new RunStore();
  private readonly faults = new FaultQueue<Fault>();
  private readonly delays = new PendingDelays();
  /** /graphql requests being answered, and the most at once, per operation name. */
  private readonly inFlight = new Map<string, { now: number; peak: number }>();
  private closed = false;
  private exportConfig: ParquetExportConfig = { ...DEFAULT_PARQUET_EXPORTS };
  /** Built files per run, rebuilt when the run's rows or the export settings change. */
  private readonly exportCache = new WeakMap<StoredRun, { key: string; built: RunExport }>();
  private readonly httpServer: http.Server;

  constructor(
    opts: ServerOptions,
    private readonly fileServer: ExportFileServer,
  ) {
    this.apiKey = opts.apiKey ?? DEFAULT_TEST_API_KEY;
    this.viewerEntity = opts.viewerEntity ?? DEFAULT_VIEWER_ENTITY;
    this.expectedAuth = `Basic ${Buffer.from(`api:${this.apiKey}`).toString("base64")}`;
    this.fileUrl = fileServer.url;
    this.fileRequests = fileServer.requests;
    this.httpServer = http.createServer((req, res) => {
      this.route(req, res).catch((e: Error) => sendJson(res, 500, { errors: [{ message: `test server error: ${e.message}` }] }));
    });
  }

  /** Binds the API port and sets `url`; on failure closes the file port too. */
  async listen(port: number, host: string): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.httpServer.once("error", reject);
      this.httpServer.listen(port, host, () => resolve());
    }).catch(async (e) => {
      await this.fileServer.close();
      throw e;
    });
    const address = this.httpServer.address() as AddressInfo;
    const hostForUrl = address.family === "IPv6" ? `[${address.address}]` : address.address;
    this.url = `http://${hostForUrl}:${address.port}`;
  }

  // ---- the test-facing API

  addRun(spec: AddRunSpec): void {
    if (this.store.get(spec.entity, spec.project, spec.runId)) {
      throw new Error(`run ${spec.entity}/${spec.project}/${spec.runId} already exists`);
    }
    const run = this.store.create(spec.entity, spec.project, spec.runId, {
      state: spec.state ?? "finished",
      displayName: spec.displayName ?? spec.runId,
      ...(spec.createdAt !== undefined ? { createdAt: spec.createdAt } : {}),
      config: wrapConfig(spec.config),
    });
    try {
      insertRows(run, spec.rows as RowInput[]);
    } catch (e) {
      // insertRows validates every row before storing any: drop the empty run, keep no half state.
      this.store.delete(spec.entity, spec.project, spec.runId);
      throw e;
    }
  }

  appendRows(entity: string, project: string, runId: string, rows: Array<string | Record<string, unknown>>): void {
    const run = this.mustGet(entity, project, runId);
    insertRows(run, rows as RowInput[]);
    run.heartbeatAt = wandbTimestamp();
  }

  setState(entity: string, project: string, runId: string, state: string): void {
    this.mustGet(entity, project, runId).state = state;
  }

  deleteRun(entity: string, project: string, runId: string): void {
    this.mustGet(entity, project, runId);
    this.store.delete(entity, project, runId);
  }

  rewindRun(entity: string, project: string, runId: string, toStep: number): void {
    const run = this.mustGet(entity, project, runId);
    const kept = run.texts.filter((_, i) => run.steps[i] <= toStep);
    run.steps = [];
    run.texts = [];
    run.keyTypes = new Map();
    run.summary = {};
    insertRows(run, kept);
    run.heartbeatAt = wandbTimestamp();
  }

  getRun(entity: string, project: string, runId: string): { state: string; rows: string[]; lastStep: number } | undefined {
    const run = this.store.get(entity, project, runId);
    return run ? { state: run.state, rows: run.texts.slice(), lastStep: lastStep(run) } : undefined;
  }

  injectFault(fault: Fault): void {
    this.faults.push(fault);
  }

  clearFaults(): void {
    this.faults.clear();
  }

  setParquetExports(config: Partial<ParquetExportConfig>): void {
    const next = { ...this.exportConfig, ...config };
    for (const field of ["lagSteps", "filesPerRun", "rowGroupSize", "urlTtlSeconds"] as const) {
      if (!Number.isInteger(next[field]) || next[field] < (field === "lagSteps" ? 0 : 1)) throw new Error(`invalid ${field}: ${next[field]}`);
    }
    if (LIVE_LISTINGS.indexOf(next.liveListing) < 0) throw new Error(`invalid liveListing: ${next.liveListing}`);
    this.exportConfig = next;
  }

  injectFileFault(fault: FileFault): void {
    this.fileServer.injectFault(fault);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.delays.releaseAll();
    await Promise.all([
      new Promise<void>((resolve) => {
        this.httpServer.close(() => resolve());
        this.httpServer.closeAllConnections();
      }),
      this.fileServer.close(),
    ]);
  }

  // ---- requests

  private async route(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const raw = await readBody(req);
    const path = new URL(req.url ?? "/", "http://127.0.0.1").pathname;
    const authOk = req.headers.authorization === this.expectedAuth;
    if (path === "/graphql" && req.method === "POST") return this.handleGraphql(req, res, raw, authOk);
    const m = /^\/files\/([^/]+)\/([^/]+)\/([^/]+)\/file_stream$/.exec(path);
    if (m && req.method === "POST") {
      return this.handleFileStream(req, res, raw, authOk, path, m.slice(1).map(decodeURIComponent));
    }
    this.log({ path, operationName: null, variables: null, authOk, method: req.method, userAgent: req.headers["user-agent"] ?? null, fault: null });
    sendJson(res, 404, { error: `not found: ${req.method} ${path}` });
  }

  private log(entry: RequestLogEntry): void {
    this.requests.push(entry);
    if (this.onRequest) this.onRequest(entry);
  }

  /** The body, variables (a JSON string parsed), compiled query and operation name of a /graphql request. */
  private readGraphqlRequest(raw: Buffer): GraphqlRequest {
    const body = parseJsonBody<GraphqlRequest["body"]>(raw);
    let variables: unknown = body?.variables ?? null;
    if (typeof variables === "string") {
      try {
        variables = JSON.parse(variables);
      } catch {
        /* left as a string: the executor reports it */
      }
    }
    const query = typeof body?.query === "string" ? body.query : null;
    const compiled = query !== null ? this.documents.compile(query) : null;
    const operationName = typeof body?.operationName === "string" && body.operationName ? body.operationName : (compiled?.firstOperationName ?? null);
    return { body, variables, compiled, operationName };
  }

  peakInFlight(operationName: string): number {
    return this.inFlight.get(operationName)?.peak ?? 0;
  }

  resetPeaks(): void {
    for (const count of this.inFlight.values()) count.peak = count.now;
  }

  /** Counts the request as being answered until its response ends (or its socket closes). */
  private countInFlight(operationName: string | null, res: http.ServerResponse): void {
    const name = operationName ?? "";
    let count = this.inFlight.get(name);
    if (count === undefined) {
      count = { now: 0, peak: 0 };
      this.inFlight.set(name, count);
    }
    const c = count;
    c.now++;
    c.peak = Math.max(c.peak, c.now);
    res.once("close", () => c.now--);
  }

  private async handleGraphql(req: http.IncomingMessage, res: http.ServerResponse, raw: Buffer, authOk: boolean): Promise<void> {
    const request = this.readGraphqlRequest(raw);
    this.countInFlight(request.operationName, res);
    const entry: RequestLogEntry = {
      path: "/graphql",
      operationName: request.operationName,
      variables: request.variables,
      authOk,
      method: req.method,
      userAgent: req.headers["user-agent"] ?? null,
      fault: null,
    };
    this.log(entry);
    const fault = takeRequestFault(this.faults, request.operationName);
    entry.fault = fault?.kind ?? null;
    const send = (status: number, body: unknown, headers?: Record<string, string>) => sendJson(res, status, body, headers);
    if ((await applyFaultBefore(fault, req, send, this.delays, () => !this.closed && !res.destroyed)) === "answered") return;
    if (!authOk) return send(401, { errors: [{ message: "invalid or missing API key (expected Basic auth api:<key>)" }] });
    if (request.body === null || typeof request.body !== "object") return send(400, { errors: [{ message: "request body must be a JSON object" }] });
    const payload = Buffer.from(JSON.stringify(this.execute(request)));
    if (fault?.kind === "truncate") return sendTruncated(req, res, payload);
    send(200, payload.toString("utf8"));
  }

  /** The GraphQL result of a request whose body is a JSON object. */
  private execute({ body, variables, compiled }: GraphqlRequest): unknown {
    if (compiled === null) return { errors: [{ message: "Must provide query string." }] };
    if (!compiled.document) return { errors: compiled.errors };
    const ctx: ResolverContext = {
      store: this.store,
      viewerEntity: this.viewerEntity,
      takeShortPage: () => takeShortPage(this.faults),
      exportOf: (run) => this.exportOf(run),
    };
    return executeSync({
      schema: this.schema,
      document: compiled.document,
      rootValue,
      contextValue: ctx,
      variableValues: (variables as Record<string, unknown> | null) ?? undefined,
      operationName: typeof body?.operationName === "string" && body.operationName ? body.operationName : undefined,
    });
  }

  private handleFileStream(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    raw: Buffer,
    authOk: boolean,
    path: string,
    [entity, project, runId]: string[],
  ) {
    const body = parseJsonBody<FileStreamBody>(raw);
    this.log({ path, operationName: null, variables: body, authOk, method: req.method, userAgent: req.headers["user-agent"] ?? null, fault: null });
    if (!authOk) return sendJson(res, 401, { error: "invalid or missing API key" });
    if (body === null || typeof body !== "object") return sendJson(res, 400, { error: "request body must be a JSON object" });
    const run = this.store.get(entity, project, runId);
    if (!run) return sendJson(res, 404, { error: `run not found: ${entity}/${project}/${runId}` });
    try {
      for (const [file, chunk] of Object.entries(body.files ?? {})) {
        const content = chunk?.content ?? [];
        if (file === "wandb-history.jsonl") writeStreamLines(run, chunk.offset ?? run.streamLines.length, content);
        else if (file === "wandb-summary.json" && content.length > 0) run.summaryText = content[content.length - 1];
        // Other files (output.log, wandb-events.jsonl) are accepted and dropped.
      }
    } catch (e) {
      return sendJson(res, 400, { error: (e as Error).message });
    }
    if (body.complete === true) run.state = body.exitcode == null || body.exitcode === 0 ? "finished" : "failed";
    run.heartbeatAt = wandbTimestamp();
    sendJson(res, 200, { exitcode: null, limits: {} });
  }

  // ---- parquet exports and runs

  /** Signed URLs of the run's exported files and their row count (none while exports are off). */
  private exportOf(run: StoredRun): { urls: string[]; exportedRows: number; liveListing: LiveListing } {
    const config = this.exportConfig;
    if (!config.enabled) return { urls: [], exportedRows: 0, liveListing: config.liveListing };
    const key = `${run.steps.length}|${run.texts[run.texts.length - 1] ?? ""}|${config.lagSteps}|${config.filesPerRun}|${config.rowGroupSize}`;
    let cached = this.exportCache.get(run);
    if (!cached || cached.key !== key) {
      cached = { key, built: buildRunExport(run, config) };
      this.exportCache.set(run, cached);
    }
    const dir = `/wandb-exports/${[run.entity, run.project, run.name].map(encodeURIComponent).join("/")}`;
    // URLs are signed afresh on every query, as W&B hands out short-lived signed URLs.
    const urls = cached.built.files.map((bytes, i) =>
      this.fileServer.publish(`${dir}/${encodeURIComponent(run.name)}_${i}.runhistory.parquet`, bytes, config.urlTtlSeconds),
    );
    return { urls, exportedRows: cached.built.exportedRows, liveListing: config.liveListing };
  }

  private mustGet(entity: string, project: string, runId: string): StoredRun {
    const run = this.store.get(entity, project, runId);
    if (!run) throw new Error(`run not found: ${entity}/${project}/${runId}`);
    return run;
  }
}

/** Starts a server on 127.0.0.1 (ephemeral port unless given). */
export async function startWandbTestServer(opts: ServerOptions = {}): Promise<WandbTestServer> {
  const host = opts.host ?? "127.0.0.1";
  const server = new LocalWandbServer(opts, await startExportFileServer(host));
  await server.listen(opts.port ?? 0, host);
  return server;
}
