/**
 * In-memory runs of the test server. History rows are kept as their raw JSON text, sorted by
 * `_step` (stable for equal steps), so a step window is two binary searches and a slice; rows are
 * never re-serialised per request.
 */
import { randomBytes } from "node:crypto";
import { parseExtendedJson, toExtendedJson } from "./extended-json";

/** A history row as given to the store: raw JSON text (served as is) or an object (serialised once). */
export type RowInput = string | Record<string, unknown>;

/** One stored run. */
export interface StoredRun {
  entity: string;
  project: string;
  /** Short run id (W&B field `name`). */
  name: string;
  /** Storage id (W&B field `id`). */
  storageId: string;
  displayName: string | null;
  state: string;
  createdAt: string;
  heartbeatAt: string | null;
  /** Config as a JSON string, values wrapped `{"value": v, "desc": null}` for runs added by tests. */
  config: string;
  /** Summary as sent by a client (UpsertBucket or wandb-summary.json); null = derived from rows. */
  summaryText: string | null;
  tags: string[];
  group: string | null;
  jobType: string | null;
  notes: string | null;
  description: string | null;
  host: string | null;
  commit: string | null;
  sweepName: string | null;
  /** `_step` of each row, ascending. */
  steps: number[];
  /** Raw JSON text of each row, same order as `steps`. */
  texts: string[];
  /** Per history key: type name -> row count (for `historyKeys`). */
  keyTypes: Map<string, Map<string, number>>;
  /** Last logged value per key, in arrival order (derived summary). */
  summary: Record<string, unknown>;
  /** file_stream line index -> row text, to let a re-sent offset replace its line. */
  streamLines: string[];
  /** Creation order, the tie-breaker of run ordering. */
  seq: number;
}

/** W&B-style timestamp: UTC, second precision, no zone suffix (what W&B's GraphQL returns). */
export function wandbTimestamp(date: Date = new Date()): string {
  return date.toISOString().slice(0, 19);
}

/** The W&B-style storage id of a run (base64 of a typed key). */
export function runStorageId(entity: string, project: string, name: string): string {
  return Buffer.from(`Run:v1:${name}:${project}:${entity}`).toString("base64");
}

/** Random short run id like W&B's (8 chars of [a-z0-9]). */
export function generateRunId(): string {
  const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789";
  const bytes = randomBytes(8);
  let id = "";
  for (let i = 0; i < 8; i++) id += alphabet[bytes[i] % alphabet.length];
  return id;
}

/** First index whose step is >= `step` (steps ascending). */
export function lowerBound(steps: number[], step: number): number {
  let lo = 0;
  let hi = steps.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (steps[mid] < step) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** First index whose step is > `step` (steps ascending). */
export function upperBound(steps: number[], step: number): number {
  let lo = 0;
  let hi = steps.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (steps[mid] <= step) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Type name of a history value as shown in `historyKeys` (media objects by their `_type`). */
function valueType(v: unknown): string {
  if (v === null || v === undefined) return "nil";
  if (typeof v === "number") return "number";
  if (typeof v === "string") return "string";
  if (typeof v === "boolean") return "boolean";
  if (Array.isArray(v)) return "list";
  const t = (v as Record<string, unknown>)._type;
  return typeof t === "string" ? t : "map";
}

/** A row normalised for storage: its text, parsed object and step. */
interface PreparedRow {
  text: string;
  obj: Record<string, unknown>;
  step: number;
}

function prepareRow(run: { entity: string; project: string; name: string }, row: RowInput, index: number): PreparedRow {
  const where = () => `run ${run.entity}/${run.project}/${run.name}, row ${index}`;
  let text: string;
  let obj: unknown;
  if (typeof row === "string") {
    text = row;
    try {
      obj = parseExtendedJson(row);
    } catch (e) {
      throw new Error(`${where()}: invalid JSON row text: ${(e as Error).message}`);
    }
  } else {
    obj = row;
    text = toExtendedJson(row);
  }
  if (obj === null || typeof obj !== "object" || Array.isArray(obj)) {
    throw new Error(`${where()}: a history row must be a JSON object`);
  }
  const step = (obj as Record<string, unknown>)._step;
  if (typeof step !== "number" || !Number.isFinite(step)) {
    throw new Error(`${where()}: key _step must be a finite number, got ${JSON.stringify(step)}`);
  }
  return { text, obj: obj as Record<string, unknown>, step };
}

type KeyTypes = Map<string, Map<string, number>>;

/** Adds `delta` to the type counts of each key of a row; with `summary`, also records the values. */
function countKeys(keyTypes: KeyTypes, obj: Record<string, unknown>, delta: number, summary?: Record<string, unknown>): void {
  for (const key in obj) {
    const value = obj[key];
    if (summary) summary[key] = value;
    const type = valueType(value);
    let types = keyTypes.get(key);
    if (!types) {
      types = new Map();
      keyTypes.set(key, types);
    }
    const n = (types.get(type) ?? 0) + delta;
    if (n > 0) types.set(type, n);
    else types.delete(type);
    if (types.size === 0) keyTypes.delete(key);
  }
}

function insertPrepared(run: StoredRun, p: PreparedRow): void {
  const n = run.steps.length;
  if (n === 0 || run.steps[n - 1] <= p.step) {
    run.steps.push(p.step);
    run.texts.push(p.text);
  } else {
    const at = upperBound(run.steps, p.step);
    run.steps.splice(at, 0, p.step);
    run.texts.splice(at, 0, p.text);
  }
  countKeys(run.keyTypes, p.obj, 1, run.summary);
}

/**
 * Appends rows (any step order) to a run. Every row is validated before any is stored; parsed
 * rows are dropped right after their keys are counted, so a million rows do not sit in memory twice.
 */
export function insertRows(run: StoredRun, rows: RowInput[]): string[] {
  const base = run.steps.length;
  const steps: number[] = new Array(rows.length);
  const texts: string[] = new Array(rows.length);
  const keyTypes: KeyTypes = new Map();
  const summary: Record<string, unknown> = {};
  let sorted = true;
  for (let i = 0; i < rows.length; i++) {
    const p = prepareRow(run, rows[i], base + i);
    steps[i] = p.step;
    texts[i] = p.text;
    if (i > 0 && p.step < steps[i - 1]) sorted = false;
    countKeys(keyTypes, p.obj, 1, summary);
  }
  // Commit: merge the staged rows into the sorted arrays (stable: stored rows first on equal steps).
  let order = steps.map((_, i) => i);
  if (!sorted) order = order.sort((a, b) => steps[a] - steps[b] || a - b);
  const n = run.steps.length;
  if (n === 0 || (rows.length > 0 && run.steps[n - 1] <= steps[order[0]])) {
    for (const i of order) {
      run.steps.push(steps[i]);
      run.texts.push(texts[i]);
    }
  } else if (rows.length > 0) {
    const oldSteps = run.steps;
    const oldTexts = run.texts;
    const mergedSteps: number[] = [];
    const mergedTexts: string[] = [];
    let a = 0;
    let b = 0;
    while (a < oldSteps.length || b < order.length) {
      if (b >= order.length || (a < oldSteps.length && oldSteps[a] <= steps[order[b]])) {
        mergedSteps.push(oldSteps[a]);
        mergedTexts.push(oldTexts[a++]);
      } else {
        mergedSteps.push(steps[order[b]]);
        mergedTexts.push(texts[order[b++]]);
      }
    }
    run.steps = mergedSteps;
    run.texts = mergedTexts;
  }
  for (const [key, types] of keyTypes)
    for (const [type, count] of types) {
      let into = run.keyTypes.get(key);
      if (!into) {
        into = new Map();
        run.keyTypes.set(key, into);
      }
      into.set(type, (into.get(type) ?? 0) + count);
    }
  Object.assign(run.summary, summary);
  return texts;
}

/** Removes one stored row (exact text at exact step); used when a file_stream line is re-sent. */
export function removeRow(run: StoredRun, text: string): void {
  const obj = parseExtendedJson(text) as Record<string, unknown>;
  const step = obj._step as number;
  for (let i = lowerBound(run.steps, step); i < run.steps.length && run.steps[i] === step; i++) {
    if (run.texts[i] === text) {
      run.steps.splice(i, 1);
      run.texts.splice(i, 1);
      countKeys(run.keyTypes, obj, -1);
      return;
    }
  }
}

/**
 * Writes file_stream history lines at a line offset, as W&B does: a line index seen before is
 * replaced (a client re-sent it), a new index is appended.
 */
export function writeStreamLines(run: StoredRun, offset: number, lines: string[]): void {
  const prepared = lines.map((l, i) => prepareRow(run, l, offset + i));
  prepared.forEach((p, i) => {
    const index = offset + i;
    const old = run.streamLines[index];
    if (old !== undefined) removeRow(run, old);
    run.streamLines[index] = p.text;
    insertPrepared(run, p);
  });
}

/** The `historyKeys` JSON object of a run: `{"keys": {...}, "lastStep": n}` (no lastStep when empty). */
export function historyKeys(run: StoredRun): Record<string, unknown> {
  const keys: Record<string, unknown> = {};
  for (const [key, types] of run.keyTypes) {
    keys[key] = { typeCounts: [...types].map(([type, count]) => ({ type, count })) };
  }
  const out: Record<string, unknown> = { keys };
  if (run.steps.length > 0) out.lastStep = run.steps[run.steps.length - 1];
  return out;
}

/** Highest `_step` of a run, -1 without history. */
export function lastStep(run: StoredRun): number {
  return run.steps.length > 0 ? run.steps[run.steps.length - 1] : -1;
}

/** The run's summary as a JSON string (client-sent if any, else last value per key). */
export function summaryJson(run: StoredRun): string {
  return run.summaryText ?? toExtendedJson(run.summary);
}

/** Wraps plain config values the way W&B stores them: `{"key": {"value": v, "desc": null}}`. */
export function wrapConfig(config: Record<string, unknown> | undefined): string {
  const wrapped: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(config ?? {})) wrapped[k] = { value: v, desc: null };
  return toExtendedJson(wrapped);
}

/** All runs of the server, keyed by entity/project/name. */
export class RunStore {
  private readonly runs = new Map<string, StoredRun>();
  private seq = 0;

  private static key(entity: string, project: string, name: string): string {
    return `${entity}\u0000${project}\u0000${name}`;
  }

  /** The run, or undefined. */
  get(entity: string, project: string, name: string): StoredRun | undefined {
    return this.runs.get(RunStore.key(entity, project, name));
  }

  /** The run with this storage id, or undefined. */
  getByStorageId(storageId: string): StoredRun | undefined {
    for (const run of this.runs.values()) if (run.storageId === storageId) return run;
    return undefined;
  }

  /** Whether any run lives in this project. */
  hasProject(entity: string, project: string): boolean {
    for (const run of this.runs.values()) if (run.entity === entity && run.project === project) return true;
    return false;
  }

  /** Runs of a project in creation order. */
  projectRuns(entity: string, project: string): StoredRun[] {
    const out: StoredRun[] = [];
    for (const run of this.runs.values()) if (run.entity === entity && run.project === project) out.push(run);
    return out;
  }

  /** Removes a run (no-op when absent). */
  delete(entity: string, project: string, name: string): void {
    this.runs.delete(RunStore.key(entity, project, name));
  }

  /** Creates an empty run (replacing nothing: throws when it exists). */
  create(entity: string, project: string, name: string, fields: Partial<StoredRun> = {}): StoredRun {
    const key = RunStore.key(entity, project, name);
    if (this.runs.has(key)) throw new Error(`run ${entity}/${project}/${name} already exists`);
    const run: StoredRun = {
      entity,
      project,
      name,
      storageId: runStorageId(entity, project, name),
      displayName: null,
      state: "running",
      createdAt: wandbTimestamp(),
      heartbeatAt: null,
      config: "{}",
      summaryText: null,
      tags: [],
      group: null,
      jobType: null,
      notes: null,
      description: null,
      host: null,
      commit: null,
      sweepName: null,
      steps: [],
      texts: [],
      keyTypes: new Map(),
      summary: {},
      streamLines: [],
      seq: this.seq++,
      ...fields,
    };
    if (run.heartbeatAt === null) run.heartbeatAt = run.createdAt;
    this.runs.set(key, run);
    return run;
  }
}
