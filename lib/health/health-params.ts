/**
 * Thresholds of the health checks: the declared defaults, overridden by an optional `health` object
 * in data/runs.json, overridden by environment variables. Every value is checked against its
 * parameter's bounds; errors read `invalid <option>: <value> (<what is allowed>)`.
 *
 * | where          | form                                                   | example                                    |
 * |----------------|--------------------------------------------------------|--------------------------------------------|
 * | data/runs.json | `"health": { "<check>": { "<param>": <number> } }`     | `"health": { "truncation_surge": { "min_fraction": 0.4 } }` |
 * | environment    | `HEALTH_<CHECK>_<PARAM>` (upper case), a decimal number | `HEALTH_TRUNCATION_SURGE_MIN_FRACTION=0.4` |
 */
import * as fs from "node:fs";

import type { HealthCheck, HealthCheckParams, HealthParamSpec } from "./health-check";
import { HEALTH_CHECKS } from "./health-checks";

/** Parameter values of every check: check name -> parameter name -> value. */
export type HealthParams = Record<string, HealthCheckParams>;

/** Where a parameter's value came from. */
export type HealthParamSource = "default" | "runs.json" | "environment";

/** One parameter as printed beside the results. */
export interface HealthParamRow {
  check: string;
  param: string;
  value: number;
  default: number;
  source: HealthParamSource;
  /** The environment variable that sets it. */
  env: string;
  doc: string;
}

/** Resolved parameters, with where each value came from. */
export interface HealthSettings {
  params: HealthParams;
  rows: HealthParamRow[];
}

/** Environment variable of a parameter, e.g. `HEALTH_TRUNCATION_SURGE_MIN_FRACTION`. */
export function healthEnvName(check: string, param: string): string {
  return `HEALTH_${check}_${param}`.toUpperCase();
}

/** The defaults of every check. */
export function defaultHealthParams(checks: readonly HealthCheck[] = HEALTH_CHECKS): HealthParams {
  const out: HealthParams = {};
  for (const c of checks) {
    out[c.name] = {};
    for (const s of c.params) out[c.name][s.name] = s.default;
  }
  return out;
}

/** What a parameter allows, in words, e.g. "an integer >= 2" or "a number from 0 to 1". */
export function allowedText(s: HealthParamSpec): string {
  const kind = s.integer ? "an integer" : "a number";
  if (s.max !== undefined) return `${kind} ${s.minInclusive ? "from" : "above"} ${s.min} ${s.minInclusive ? "to" : "and at most"} ${s.max}`;
  return `${kind} ${s.minInclusive ? ">=" : ">"} ${s.min}`;
}

/** True when `v` is a value the parameter allows. */
export function isAllowed(s: HealthParamSpec, v: number): boolean {
  if (!Number.isFinite(v)) return false;
  if (s.integer && !Number.isInteger(v)) return false;
  if (s.minInclusive ? v < s.min : v <= s.min) return false;
  return s.max === undefined || v <= s.max;
}

const DECIMAL = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/** Options of {@link resolveHealthParams}. */
export interface ResolveHealthOptions {
  /** Environment to read `HEALTH_*` variables from. Default: none (defaults and `health` only). */
  env?: Record<string, string | undefined>;
  /** The `health` object of data/runs.json (undefined = none). */
  health?: unknown;
  /** Where `health` came from, for error messages. Default "runs.json". */
  healthSource?: string;
}

/**
 * Defaults, then `health` (runs.json), then `HEALTH_*` environment variables. Throws
 * `invalid <option>: <value> (<allowed>)` on a bad value, an unknown check or parameter.
 * @example resolveHealthParams({ env: { HEALTH_ZERO_GRAD_NORM_STREAK_MIN_LENGTH: "4" } }).params.zero_grad_norm_streak.min_length // 4
 */
export function resolveHealthParams(opts: ResolveHealthOptions = {}): HealthSettings {
  const where = opts.healthSource ?? "runs.json";
  const params = defaultHealthParams();
  const sources: Record<string, HealthParamSource> = {};
  const fromConfig = configValues(opts.health, where);
  for (const c of HEALTH_CHECKS) {
    for (const s of c.params) {
      const id = `${c.name}.${s.name}`;
      if (id in fromConfig) {
        const v = fromConfig[id];
        if (typeof v !== "number" || !isAllowed(s, v)) throw new Error(`invalid health.${id}: ${JSON.stringify(v)} (${allowedText(s)}) in ${where}`);
        params[c.name][s.name] = v;
        sources[id] = "runs.json";
      }
      const envName = healthEnvName(c.name, s.name);
      const text = opts.env?.[envName];
      if (text !== undefined && text !== "") {
        const v = DECIMAL.test(text.trim()) ? Number(text.trim()) : NaN;
        if (!isAllowed(s, v)) throw new Error(`invalid ${envName}: ${text} (${allowedText(s)})`);
        params[c.name][s.name] = v;
        sources[id] = "environment";
      }
    }
  }
  const rows: HealthParamRow[] = [];
  for (const c of HEALTH_CHECKS) {
    for (const s of c.params) {
      const id = `${c.name}.${s.name}`;
      rows.push({
        check: c.name,
        param: s.name,
        value: params[c.name][s.name],
        default: s.default,
        source: sources[id] ?? "default",
        env: healthEnvName(c.name, s.name),
        doc: s.doc,
      });
    }
  }
  return { params, rows };
}

/** The `health` object flattened to `check.param -> value`; throws on unknown checks or parameters. */
function configValues(health: unknown, where: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (health === undefined) return out;
  if (health === null || typeof health !== "object" || Array.isArray(health)) {
    throw new Error(`invalid health: ${JSON.stringify(health)} (an object { "<check>": { "<param>": <number> } }) in ${where}`);
  }
  for (const [check, values] of Object.entries(health as Record<string, unknown>)) {
    const spec = HEALTH_CHECKS.find((c) => c.name === check);
    if (!spec) throw new Error(`invalid health.${check}: unknown check (known: ${HEALTH_CHECKS.map((c) => c.name).join(", ")}) in ${where}`);
    if (values === null || typeof values !== "object" || Array.isArray(values)) {
      throw new Error(`invalid health.${check}: ${JSON.stringify(values)} (an object of parameters) in ${where}`);
    }
    for (const [param, v] of Object.entries(values as Record<string, unknown>)) {
      if (!spec.params.some((s) => s.name === param)) {
        const known = spec.params.map((s) => s.name).join(", ") || "none";
        throw new Error(`invalid health.${check}.${param}: unknown parameter (parameters of ${check}: ${known}) in ${where}`);
      }
      out[`${check}.${param}`] = v;
    }
  }
  return out;
}

/**
 * The `health` object of a runs config file; undefined when the file does not exist or has none.
 * Throws `invalid runs config: <file>: ...` when the file is not a JSON object.
 */
export function readHealthConfig(file: string): unknown {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new Error(`invalid runs config: ${file}: cannot read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new Error(`invalid runs config: ${file}: not valid JSON (${(e as Error).message})`);
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) throw new Error(`invalid runs config: ${file}: not a JSON object`);
  return (parsed as Record<string, unknown>).health;
}

/**
 * Parameters for a workspace: defaults, the `health` object of `runsConfigFile` (if the file exists),
 * then `HEALTH_*` variables of `env`.
 * @example healthSettings(process.env, ws.params.runsConfig)
 */
export function healthSettings(env: Record<string, string | undefined>, runsConfigFile: string, shownFile: string = runsConfigFile): HealthSettings {
  return resolveHealthParams({ env, health: readHealthConfig(runsConfigFile), healthSource: shownFile });
}
