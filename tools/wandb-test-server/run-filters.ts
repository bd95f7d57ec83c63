/**
 * The Mongo-style `filters` and `order` arguments of `project.runs` / `project.runCount`, over the
 * fields the test server stores. Unsupported operators fail loudly instead of matching everything.
 */
import { parseExtendedJson } from "./extended-json";
import { type StoredRun, summaryJson } from "./run-store";

/** Value of a filter/order field path of a run (`name`, `state`, `config.lr`, `summary_metrics.loss`, ...). */
export function runField(run: StoredRun, path: string): unknown {
  const dot = path.indexOf(".");
  const head = dot < 0 ? path : path.slice(0, dot);
  const rest = dot < 0 ? "" : path.slice(dot + 1);
  switch (head) {
    case "name":
      return run.name;
    case "displayName":
    case "display_name":
      return run.displayName;
    case "state":
      return run.state;
    case "createdAt":
    case "created_at":
      return run.createdAt;
    case "heartbeatAt":
    case "heartbeat_at":
      return run.heartbeatAt;
    case "group":
      return run.group;
    case "jobType":
    case "job_type":
      return run.jobType;
    case "tags":
      return run.tags;
    case "sweep":
    case "sweepName":
      return run.sweepName;
    case "config": {
      const config = parseExtendedJson(run.config) as Record<string, unknown>;
      // `config.lr` and `config.lr.value` both mean the wrapped value.
      const key = rest.endsWith(".value") ? rest.slice(0, -".value".length) : rest;
      const v = config[key];
      return v !== null && typeof v === "object" && "value" in (v as object) ? (v as { value: unknown }).value : v;
    }
    case "summary_metrics":
    case "summaryMetrics":
      return (parseExtendedJson(summaryJson(run)) as Record<string, unknown>)[rest];
    default:
      throw new Error(`unsupported runs filter field: ${path}`);
  }
}

function compare(a: unknown, b: unknown): number {
  if (typeof a === "number" && typeof b === "number") return a - b;
  return String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0;
}

function matchValue(actual: unknown, cond: unknown): boolean {
  const isOps = cond !== null && typeof cond === "object" && !Array.isArray(cond) && Object.keys(cond).some((k) => k.startsWith("$"));
  if (!isOps) {
    // Mongo: a scalar matches an array field when the array contains it.
    if (Array.isArray(actual) && !Array.isArray(cond)) return actual.some((a) => a === cond);
    return JSON.stringify(actual ?? null) === JSON.stringify(cond ?? null);
  }
  return Object.entries(cond as Record<string, unknown>).every(([op, arg]) => {
    switch (op) {
      case "$eq":
        return matchValue(actual, arg);
      case "$ne":
        return !matchValue(actual, arg);
      case "$in":
        return Array.isArray(arg) && arg.some((a) => matchValue(actual, a));
      case "$nin":
        return Array.isArray(arg) && !arg.some((a) => matchValue(actual, a));
      case "$gt":
        return actual != null && compare(actual, arg) > 0;
      case "$gte":
        return actual != null && compare(actual, arg) >= 0;
      case "$lt":
        return actual != null && compare(actual, arg) < 0;
      case "$lte":
        return actual != null && compare(actual, arg) <= 0;
      case "$exists":
        return (actual !== undefined && actual !== null) === Boolean(arg);
      case "$regex":
        return typeof actual === "string" && new RegExp(String(arg)).test(actual);
      default:
        throw new Error(`unsupported runs filter operator: ${op}`);
    }
  });
}

/** Compiles a `filters` JSON string (or object) into a run predicate; empty/absent matches all. */
export function compileRunFilter(filters: unknown): (run: StoredRun) => boolean {
  let spec: unknown = filters;
  if (typeof filters === "string") spec = filters.trim() === "" ? {} : parseExtendedJson(filters);
  if (spec === null || spec === undefined) return () => true;
  if (typeof spec !== "object" || Array.isArray(spec)) throw new Error(`invalid filters: ${JSON.stringify(filters)}`);
  const entries = Object.entries(spec as Record<string, unknown>);
  return (run) =>
    entries.every(([field, cond]) => {
      if (field === "$and") return (cond as unknown[]).every((c) => compileRunFilter(c)(run));
      if (field === "$or") return (cond as unknown[]).some((c) => compileRunFilter(c)(run));
      if (field === "$nor") return !(cond as unknown[]).some((c) => compileRunFilter(c)(run));
      return matchValue(runField(run, field), cond);
    });
}

/** Sorts runs by an `order` string like `+created_at` / `-name` (default `-created_at`, ties by creation). */
export function sortRuns(runs: StoredRun[], order: string | null | undefined): StoredRun[] {
  const m = /^([+-]?)(.+)$/.exec((order ?? "").trim() || "-created_at");
  if (!m) throw new Error(`invalid order: ${order}`);
  const sign = m[1] === "-" ? -1 : 1;
  const field = m[2];
  return runs
    .map((run) => ({ run, v: runField(run, field) }))
    .sort((a, b) => {
      if (a.v == null || b.v == null) {
        if (a.v == null && b.v == null) return a.run.seq - b.run.seq;
        return a.v == null ? 1 : -1;
      }
      return sign * compare(a.v, b.v) || a.run.seq - b.run.seq;
    })
    .map((x) => x.run);
}
