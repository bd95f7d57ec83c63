/**
 * The GraphQL schema of the test server: the subset of W&B's schema that history readers and the
 * two official clients use, with W&B's scalar conventions. Client tags in the SDL:
 *   [py]     official Python client wandb==0.21.0 public API (Api(), api.run(), run.scan_history(), api.runs())
 *   [js]     @wandb/sdk@0.5.1 (wandb.init / log / finish)
 *   [reader] the workspace history reader (docs: Run, Runs, HistoryPage)
 */
import { buildSchema, GraphQLError, type GraphQLScalarType, type GraphQLSchema, Kind, type ValueNode, valueFromASTUntyped } from "graphql";
import { createHash } from "node:crypto";
import { parseExtendedJson, toExtendedJson } from "./extended-json";
import { compileRunFilter, sortRuns } from "./run-filters";
import { generateRunId, historyKeys, lowerBound, type RunStore, type StoredRun, summaryJson, upperBound, wandbTimestamp } from "./run-store";
import { type LiveListing, listedLiveRows } from "./parquet-exports";

/** The schema in SDL. Fields nobody sends are left out on purpose. */
export const SCHEMA_SDL = /* GraphQL */ `
"Any JSON value, served as a JSON value (W&B: historyKeys, sampledHistory, cliVersionInfo)."
scalar JSON
"A JSON document carried as a string (W&B: config, summaryMetrics, each history row)."
scalar JSONString
"64-bit integer step; accepts ints and numeric strings."
scalar Int64
"W&B-style UTC timestamp without zone, e.g. 2024-05-01T12:00:00."
scalar DateTime

type Query {
  "[js] Viewer (default entity at init); [py] Viewer (default entity, Api.viewer)."
  viewer: User
  "[reader] Run/Runs/HistoryPage; [py] Run, Runs, RunHistoryKeys, HistoryPage, SampledHistoryPage, RunState."
  project(name: String!, entityName: String): Project
  "[js] RunUploadUrls (legacy name of project; defined by the SDK, not called by log/finish)."
  model(name: String!, entityName: String): Project
  "[py] ServerInfo (RetryingClient.server_info / version_supported); newer clients: serverInfo.features."
  serverInfo: ServerInfo
}

type Mutation {
  "[js] UpsertBucket (wandb.init creates the run); [py] UpsertBucket (Run.create, Run.update)."
  upsertBucket(input: UpsertBucketInput!): UpsertBucketPayload
}

"[js][py] UpsertBucket input."
input UpsertBucketInput {
  id: String
  name: String
  groupName: String
  modelName: String
  entityName: String
  description: String
  displayName: String
  notes: String
  commit: String
  config: JSONString
  host: String
  debug: Boolean
  jobProgram: String
  jobRepo: String
  jobType: String
  state: String
  sweep: String
  tags: [String!]
  summaryMetrics: JSONString
}

type UpsertBucketPayload {
  "[js] bucket { id name displayName description config sweepName project { id name entity { id name } } }"
  bucket: Run
  "[js][py]"
  inserted: Boolean
}

type User {
  "[js][py]"
  id: ID!
  "[py] Run.user"
  name: String
  "[py] Run.user, Viewer"
  username: String
  "[js][py] Viewer: the default entity"
  entity: String
  "[py] Viewer"
  email: String
  "[py] Viewer"
  admin: Boolean
  "[js][py] Viewer"
  flags: JSONString
  "[py] Viewer"
  apiKeys: ApiKeyConnection
  "[js][py] Viewer"
  teams: EntityConnection
}

type ApiKeyConnection { edges: [ApiKeyEdge!]! }
type ApiKeyEdge { node: ApiKey }
type ApiKey { id: ID! name: String! description: String }
type EntityConnection { edges: [EntityEdge!]! }
type EntityEdge { node: Entity }
"[js] UpsertBucket bucket.project.entity"
type Entity { id: ID! name: String! }

type ServerInfo {
  "[py] ServerInfo"
  cliVersionInfo: JSON
  "[py] ServerInfo"
  latestLocalVersionInfo: LocalVersionInfo
  "newer Python clients: ServerFeaturesQuery; empty = no optional features"
  features: [ServerFeature]
}
type LocalVersionInfo { outOfDate: Boolean! latestVersionString: String! versionOnThisInstanceString: String! }
type ServerFeature { name: String! isEnabled: Boolean! }

type Project {
  "[js] UpsertBucket bucket.project"
  id: ID!
  "[py] Runs"
  internalId: ID!
  "[js][py]"
  name: String!
  entityName: String!
  "[js] UpsertBucket bucket.project.entity"
  entity: Entity
  "[py] Runs"
  readOnly: Boolean
  createdAt: DateTime
  "[py] Runs"
  runCount(filters: JSONString): Int!
  "[reader][py] Runs: filters is a Mongo-style JSON string, order like +created_at, default first 50"
  runs(filters: JSONString, after: String, first: Int, order: String): RunConnection
  "[reader][py] null when the run does not exist"
  run(name: String!): Run
  "[js] RunUploadUrls: model(...).bucket(name:, desc:)"
  bucket(name: String!, desc: String): Run
}

type RunConnection {
  edges: [RunEdge!]!
  pageInfo: PageInfo!
  totalCount: Int
}
type RunEdge { node: Run cursor: String! }
type PageInfo { endCursor: String hasNextPage: Boolean! startCursor: String hasPreviousPage: Boolean! }

type Run {
  "[reader][py][js] storage id"
  id: ID!
  "[py] added to Run/Runs queries when the ProbeRunInput introspection lists it"
  projectId: ID!
  "[reader][py][js] short run id (as in URLs)"
  name: String!
  "[reader][py][js]"
  displayName: String
  "[reader][py] running | finished | crashed | failed | killed | preempted"
  state: String
  "[reader][py]"
  createdAt: DateTime
  "[reader][py]"
  heartbeatAt: DateTime
  updatedAt: DateTime
  "[reader][py] rows the server holds"
  historyLineCount: Int
  "[reader][py] RunHistoryKeys: JSON object {keys: {...}, lastStep: n}; no lastStep without history"
  historyKeys(format: String): JSON
  "[reader][py]"
  tags: [String!]
  "[reader][py]"
  group: String
  "[reader][py]"
  jobType: String
  "[reader][py][js]"
  sweepName: String
  "[reader][py][js] JSON string, values wrapped {value, desc}"
  config: JSONString
  "[reader][py] JSON string"
  summaryMetrics: JSONString
  "[py]"
  systemMetrics: JSONString
  "[py][js]"
  description: String
  "[py]"
  notes: String
  "[py]"
  commit: String
  host: String
  "[py]"
  readOnly: Boolean
  "[py] RunFragment user { name username }"
  user: User
  "[js] UpsertBucket bucket.project"
  project: Project
  """
  [reader][py] HistoryPage: with a window, every row with minStep <= _step < maxStep, stored text as is
  (samples is then the page size, not a cap); without a window, at most samples rows (default 500),
  evenly sampled, like W&B's run.history().
  """
  history(minStep: Int64, maxStep: Int64, samples: Int): [JSONString!]
  "[py] RunFullHistory(stream=system): system metrics, none here"
  events(samples: Int): [JSONString!]
  "[py] SampledHistoryPage / RunSampledHistory: per spec, rows holding ALL spec keys, maxStep inclusive"
  sampledHistory(specs: [JSONString!]!): [JSON]
  """
  [py 0.27.1+][reader] RunParquetHistory: signed URLs of the exported parquet files, and for each row
  not exported yet (the live tail) its liveKeys (wandb-core asks ["_step"]); with exports disabled
  (the default) no files and every row live. setParquetExports({ liveListing }) lists all live rows,
  only the first, or none.
  """
  parquetHistory(liveKeys: [String!]!): ParquetHistory!
  "[js] RunUploadUrls"
  files(names: [String], after: String, first: Int): FileConnection
}

type ParquetHistory { parquetUrls: [String!]! liveData: [JSON!]! }
type FileConnection { uploadHeaders: [String!] edges: [FileEdge!]! }
type FileEdge { node: File }
type File { name: String! url(upload: Boolean): String updatedAt: DateTime }
`;

/** What resolvers get from the server for one request. */
export interface ResolverContext {
  store: RunStore;
  /** Entity of the authenticated user (default entity of clients). */
  viewerEntity: string;
  /** Rows to drop from the next windowed history answer (short-page fault), 0 for none. */
  takeShortPage(): number;
  /** Signed URLs of the run's exported files and how many rows they hold (none when exports are off). */
  exportOf(run: StoredRun): { urls: string[]; exportedRows: number; liveListing: LiveListing };
}

// ---- scalars ---------------------------------------------------------------------------------

function int64(value: unknown): number {
  if (typeof value === "number" && Number.isSafeInteger(value)) return value;
  if (typeof value === "string" && /^-?\d+$/.test(value.trim())) {
    const n = Number(value.trim());
    if (Number.isSafeInteger(n)) return n;
  }
  throw new GraphQLError(`Int64 cannot represent value: ${JSON.stringify(value)}`);
}

function int64Literal(ast: ValueNode): number {
  if (ast.kind === Kind.INT || ast.kind === Kind.STRING) return int64(ast.kind === Kind.INT ? Number(ast.value) : ast.value);
  throw new GraphQLError(`Int64 cannot represent a non-integer literal`);
}

function jsonStringIn(value: unknown): string {
  return typeof value === "string" ? value : toExtendedJson(value);
}

function installScalars(schema: GraphQLSchema): void {
  const set = (name: string, impl: Partial<Pick<GraphQLScalarType, "serialize" | "parseValue" | "parseLiteral">>) =>
    Object.assign(schema.getType(name) as GraphQLScalarType, impl);
  set("Int64", { serialize: (v) => int64(v), parseValue: int64, parseLiteral: int64Literal });
  set("JSONString", {
    serialize: jsonStringIn,
    parseValue: jsonStringIn,
    parseLiteral: (ast, vars) => jsonStringIn(valueFromASTUntyped(ast, vars)),
  });
  set("JSON", {
    serialize: (v) => v,
    parseValue: (v) => v,
    parseLiteral: (ast, vars) => valueFromASTUntyped(ast, vars),
  });
  set("DateTime", {
    serialize: (v) => (v instanceof Date ? wandbTimestamp(v) : String(v)),
    parseValue: (v) => String(v),
    parseLiteral: (ast) => (ast.kind === Kind.STRING ? ast.value : null),
  });
}

// ---- object resolvers (graphql-js default resolver reads properties / calls methods) ---------

function evenSample<T>(items: T[], samples: number): T[] {
  if (samples <= 0) return [];
  if (items.length <= samples) return items;
  if (samples === 1) return [items[items.length - 1]];
  const out: T[] = [];
  for (let i = 0; i < samples; i++) out.push(items[Math.round((i * (items.length - 1)) / (samples - 1))]);
  return out;
}

function numericId(text: string): string {
  return String(parseInt(createHash("sha1").update(text).digest("hex").slice(0, 8), 16));
}

function viewerNode(entity: string): Record<string, unknown> {
  return {
    id: Buffer.from(`User:${entity}`).toString("base64"),
    name: entity,
    username: entity,
    entity,
    email: `${entity}@example.invalid`,
    admin: false,
    flags: "{}",
    apiKeys: { edges: [] },
    teams: { edges: [] },
  };
}

class RunNode {
  constructor(
    private readonly run: StoredRun,
    private readonly store: RunStore,
  ) {}
  get id() {
    return this.run.storageId;
  }
  get projectId() {
    return numericId(`${this.run.entity}/${this.run.project}`);
  }
  get name() {
    return this.run.name;
  }
  get displayName() {
    return this.run.displayName;
  }
  get state() {
    return this.run.state;
  }
  get createdAt() {
    return this.run.createdAt;
  }
  get heartbeatAt() {
    return this.run.heartbeatAt;
  }
  get updatedAt() {
    return this.run.heartbeatAt;
  }
  get historyLineCount() {
    return this.run.steps.length;
  }
  historyKeys() {
    return historyKeys(this.run);
  }
  get tags() {
    return this.run.tags;
  }
  get group() {
    return this.run.group;
  }
  get jobType() {
    return this.run.jobType;
  }
  get sweepName() {
    return this.run.sweepName;
  }
  get config() {
    return this.run.config;
  }
  summaryMetrics() {
    return summaryJson(this.run);
  }
  get systemMetrics() {
    return "{}";
  }
  get description() {
    return this.run.description;
  }
  get notes() {
    return this.run.notes;
  }
  get commit() {
    return this.run.commit;
  }
  get host() {
    return this.run.host;
  }
  get readOnly() {
    return false;
  }
  get user() {
    return viewerNode(this.run.entity);
  }
  get project() {
    return new ProjectNode(this.run.entity, this.run.project, this.store);
  }

  history(args: { minStep?: number | null; maxStep?: number | null; samples?: number | null }, ctx: ResolverContext) {
    const { steps, texts } = this.run;
    const windowed = args.minStep != null || args.maxStep != null;
    if (!windowed) return evenSample(texts, args.samples ?? 500);
    const lo = args.minStep != null ? lowerBound(steps, args.minStep) : 0;
    let hi = args.maxStep != null ? lowerBound(steps, args.maxStep) : steps.length;
    if (hi < lo) hi = lo;
    const drop = ctx.takeShortPage();
    return texts.slice(lo, Math.max(lo, hi - drop));
  }

  events() {
    return [];
  }

  sampledHistory(args: { specs: string[] }) {
    return args.specs.map((specText) => {
      const spec = parseExtendedJson(specText) as { keys?: string[]; minStep?: number; maxStep?: number; samples?: number };
      const keys = spec.keys ?? [];
      const lo = spec.minStep != null ? lowerBound(this.run.steps, spec.minStep) : 0;
      const hi = spec.maxStep != null ? upperBound(this.run.steps, spec.maxStep) : this.run.steps.length;
      const rows: Record<string, unknown>[] = [];
      for (let i = lo; i < hi; i++) {
        const row = parseExtendedJson(this.run.texts[i]) as Record<string, unknown>;
        if (!keys.every((k) => row[k] !== undefined)) continue;
        const projected: Record<string, unknown> = {};
        for (const k of keys) projected[k] = row[k];
        rows.push(projected);
      }
      return evenSample(rows, spec.samples ?? 500);
    });
  }

  parquetHistory(args: { liveKeys: string[] }, ctx: ResolverContext) {
    const { urls, exportedRows, liveListing } = ctx.exportOf(this.run);
    const liveData = listedLiveRows(this.run.texts.slice(exportedRows), liveListing).map((t) => {
      const row = parseExtendedJson(t) as Record<string, unknown>;
      if (args.liveKeys.length === 0) return row;
      const projected: Record<string, unknown> = {};
      for (const k of args.liveKeys) if (row[k] !== undefined) projected[k] = row[k];
      return projected;
    });
    return { parquetUrls: urls, liveData };
  }

  files(args: { names?: (string | null)[] | null }) {
    return {
      uploadHeaders: [],
      edges: (args.names ?? []).filter((n): n is string => n != null).map((name) => ({ node: { name, url: null, updatedAt: null } })),
    };
  }
}

function encodeCursor(index: number): string {
  return Buffer.from(`cursor:${index}`).toString("base64");
}

function decodeCursor(cursor: string): number {
  const m = /^cursor:(\d+)$/.exec(Buffer.from(cursor, "base64").toString("utf8"));
  if (!m) throw new GraphQLError(`invalid cursor: ${cursor}`);
  return Number(m[1]);
}

class ProjectNode {
  constructor(
    private readonly entityName_: string,
    private readonly name_: string,
    private readonly store: RunStore,
  ) {}
  get id() {
    return Buffer.from(`Project:v1:${this.name_}:${this.entityName_}`).toString("base64");
  }
  get internalId() {
    return numericId(`${this.entityName_}/${this.name_}`);
  }
  get name() {
    return this.name_;
  }
  get entityName() {
    return this.entityName_;
  }
  get entity() {
    return { id: Buffer.from(`Entity:${this.entityName_}`).toString("base64"), name: this.entityName_ };
  }
  get readOnly() {
    return false;
  }
  get createdAt() {
    const runs = this.store.projectRuns(this.entityName_, this.name_);
    return runs.length ? runs.map((r) => r.createdAt).sort()[0] : null;
  }
  private filtered(filters: unknown): StoredRun[] {
    let pred: (r: StoredRun) => boolean;
    try {
      pred = compileRunFilter(filters);
      return this.store.projectRuns(this.entityName_, this.name_).filter(pred);
    } catch (e) {
      throw new GraphQLError((e as Error).message);
    }
  }
  runCount(args: { filters?: string | null }) {
    return this.filtered(args.filters).length;
  }
  runs(args: { filters?: string | null; after?: string | null; first?: number | null; order?: string | null }) {
    const all = sortRuns(this.filtered(args.filters), args.order);
    const start = args.after ? decodeCursor(args.after) + 1 : 0;
    const first = args.first ?? 50;
    if (first < 0) throw new GraphQLError(`invalid first: ${first}`);
    const page = all.slice(start, start + first);
    const edges = page.map((run, i) => ({ node: new RunNode(run, this.store), cursor: encodeCursor(start + i) }));
    return {
      edges,
      totalCount: all.length,
      pageInfo: {
        startCursor: edges.length ? edges[0].cursor : null,
        endCursor: edges.length ? edges[edges.length - 1].cursor : null,
        hasNextPage: start + page.length < all.length,
        hasPreviousPage: start > 0,
      },
    };
  }
  run(args: { name: string }) {
    const run = this.store.get(this.entityName_, this.name_, args.name);
    return run ? new RunNode(run, this.store) : null;
  }
  bucket(args: { name: string }) {
    return this.run(args);
  }
}

interface UpsertInput {
  id?: string | null;
  name?: string | null;
  groupName?: string | null;
  modelName?: string | null;
  entityName?: string | null;
  description?: string | null;
  displayName?: string | null;
  notes?: string | null;
  commit?: string | null;
  config?: string | null;
  host?: string | null;
  jobType?: string | null;
  state?: string | null;
  tags?: string[] | null;
  summaryMetrics?: string | null;
}

function upsertBucket(input: UpsertInput, ctx: ResolverContext) {
  const store = ctx.store;
  let run: StoredRun | undefined;
  if (input.id) {
    run = store.getByStorageId(input.id);
    if (!run) throw new GraphQLError(`run not found for id: ${input.id}`);
  }
  const entity = input.entityName || run?.entity || ctx.viewerEntity;
  const project = input.modelName || run?.project || "uncategorized";
  const name = input.name || run?.name || generateRunId();
  run = run ?? store.get(entity, project, name);
  const inserted = run === undefined;
  if (!run) run = store.create(entity, project, name, { displayName: input.displayName || name });
  if (input.displayName != null) run.displayName = input.displayName;
  if (input.description != null) run.description = input.description;
  if (input.notes != null) run.notes = input.notes;
  // Stored as sent: the Python SDK sends wrapped values, @wandb/sdk sends plain ones.
  if (input.config != null) run.config = input.config;
  if (input.tags != null) run.tags = input.tags;
  if (input.groupName != null) run.group = input.groupName;
  if (input.jobType != null) run.jobType = input.jobType;
  if (input.state != null) run.state = input.state;
  if (input.host != null) run.host = input.host;
  if (input.commit != null) run.commit = input.commit;
  if (input.summaryMetrics != null) run.summaryText = input.summaryMetrics;
  run.heartbeatAt = wandbTimestamp();
  return { bucket: new RunNode(run, store), inserted };
}

/** Root value: top-level Query and Mutation fields. */
export const rootValue = {
  viewer: (_args: unknown, ctx: ResolverContext) => viewerNode(ctx.viewerEntity),
  project: (args: { name: string; entityName?: string | null }, ctx: ResolverContext) => {
    const entity = args.entityName || ctx.viewerEntity;
    // Like W&B: an unknown project is null; a known project with an unknown run gives run: null.
    return ctx.store.hasProject(entity, args.name) ? new ProjectNode(entity, args.name, ctx.store) : null;
  },
  model: (args: { name: string; entityName?: string | null }, ctx: ResolverContext) => rootValue.project(args, ctx),
  serverInfo: () => ({
    cliVersionInfo: { max_cli_version: "0.21.0", min_cli_version: "0.10.0" },
    latestLocalVersionInfo: { outOfDate: false, latestVersionString: "0.0.0-test", versionOnThisInstanceString: "0.0.0-test" },
    features: [],
  }),
  upsertBucket: (args: { input: UpsertInput }, ctx: ResolverContext) => upsertBucket(args.input, ctx),
};

/** Builds the executable schema (SDL + W&B scalars). */
export function buildWandbSchema(): GraphQLSchema {
  const schema = buildSchema(SCHEMA_SDL);
  installScalars(schema);
  return schema;
}
