/**
 * Semantic flags: the few config entries of a run that change what a metric means (slime's
 * `use_rollout_logprobs` turns ppo_kl at a batch's first update into the engine mismatch). Each
 * profile declares its allow-list (name, type, what it changes); only those entries, typed, are ever
 * read from a run's config, and meanings with a condition say what holds when a flag is set.
 */
import type { ConceptId } from "./concepts";
import type { FlagValue, RunFlags, RunVersions, VersionBound } from "../types";
import { compareVersions } from "./versions";

// Frozen with the runs, so defined beside the archive's types (lib/types.ts has no registry import).
export type { FlagValue, RunFlags } from "../types";

/** A flag's value type: a boolean, a number, a string from a declared set, or a comma-separated list of such strings (kept as written, trimmed). */
export type FlagType = "bool" | "number" | { oneOf: readonly string[] } | { listOf: readonly string[] };

/** One declared flag of a framework. */
export interface SemanticFlag {
  /** The config entry's name as the framework logs its config: a dot path into nested entries (`algorithm.adv_estimator`). */
  name: string;
  type: FlagType;
  /** The concepts whose meaning it changes. */
  concepts: readonly ConceptId[];
  /** The health checks whose reading it changes. */
  checks: readonly string[];
  /** What it changes, in words. */
  why: string;
  /** Where the framework declares it (file in its repository). */
  source: string;
}

/**
 * A condition on several flags at once (TRL's clip ratios are 0 by construction when
 * gradient_accumulation_steps is a multiple of steps_per_generation x num_iterations): `test` gets the
 * run's values of `flags` (undefined where its config lacks one), `text` says the rule in words.
 */
export interface FlagRule {
  flags: readonly string[];
  text: string;
  test(values: Readonly<Record<string, FlagValue | undefined>>): boolean;
}

/**
 * When a meaning holds: a flag with a value, a rule over several flags, a framework version below a
 * release, or several of these (all must hold). A run whose flags are unknown never meets a flag
 * condition; a run whose version is neither recorded nor proven by its keys may meet a version
 * condition (callers say so, never assume either way).
 */
export interface MeaningCondition {
  flag?: string;
  equals?: FlagValue;
  rule?: FlagRule;
  /** Holds for the recorded version of `package` below `below` (lib/registry/versions.ts). */
  version?: { package: string; below: string };
}

/** A meaning that holds under a condition: a concept's reading rule, a check that does not apply, or a note on a key no concept reads. */
export interface ConditionalMeaning {
  when: MeaningCondition;
  /** The concept whose rule changes, with the rule that then holds. */
  concept?: { id: ConceptId; is: string; isNot: string };
  /** A check that is not applicable then, and why. */
  check?: { name: string; notApplicable: string };
  /** A key no concept reads (exported as logged) and what it then is: noted wherever the key is exported. */
  key?: { name: string; note: string };
  /** Where the change is documented: the framework's source line, issue, pull request or release note. */
  evidence?: string;
}

/** The declared flags found in a config, and the declared names whose value had the wrong type (dropped). */
export interface FlagsRead {
  flags: Record<string, FlagValue>;
  dropped: { name: string; reason: string }[];
}

/**
 * The declared flags of a run's config (a plain object: W&B's `{key: {value}}` entries unwrapped, nested
 * objects, or Python `namespace(...)` reprs as OpenRLHF logs its argument groups). Nothing else is
 * read: a name not declared is never looked at, a declared one of the wrong type is dropped and counted.
 */
export function readFlags(declared: readonly SemanticFlag[], config: Readonly<Record<string, unknown>>): FlagsRead {
  const out: FlagsRead = { flags: {}, dropped: [] };
  for (const f of declared) {
    const raw = lookUp(config, f.name);
    if (raw === undefined || raw === null) continue;
    const value = typed(f.type, raw);
    // The reason names the type found, never the value: nothing of a config but a typed flag is kept.
    if (value === undefined) out.dropped.push({ name: f.name, reason: `expected ${typeText(f.type)}, got ${typeOf(raw)}` });
    else out.flags[f.name] = value;
  }
  return out;
}

/** The flag's value when it has the declared type (a JSON or repr number string is not a number). */
function typed(type: FlagType, raw: unknown): FlagValue | undefined {
  if (type === "bool") return typeof raw === "boolean" ? raw : undefined;
  if (type === "number") return typeof raw === "number" && Number.isFinite(raw) ? raw : undefined;
  if (typeof raw !== "string") return undefined;
  if ("oneOf" in type) return type.oneOf.includes(raw) ? raw : undefined;
  const parts = raw.split(",").map((x) => x.trim());
  return parts.every((x) => type.listOf.includes(x)) ? parts.join(",") : undefined;
}

function typeOf(raw: unknown): string {
  if (Array.isArray(raw)) return "a list";
  if (typeof raw === "string") return "another string";
  return typeof raw === "object" ? "an object" : `a ${typeof raw}`;
}

function typeText(type: FlagType): string {
  if (typeof type === "string") return type;
  return "oneOf" in type ? `one of ${type.oneOf.join(", ")}` : `a comma-separated list of ${type.listOf.join(", ")}`;
}

/** The value at a dot path: whole keys first (a flat config may hold a dotted key), then nested objects and reprs. */
function lookUp(config: Readonly<Record<string, unknown>>, name: string): unknown {
  if (Object.hasOwn(config, name)) return unwrap(config[name]);
  const dot = name.indexOf(".");
  if (dot < 0) return undefined;
  const head = unwrap(config[name.slice(0, dot)]);
  const inner = typeof head === "string" ? namespaceRepr(head) : head;
  if (inner === null || typeof inner !== "object" || Array.isArray(inner)) return undefined;
  return lookUp(inner as Record<string, unknown>, name.slice(dot + 1));
}

/** W&B's GraphQL config wraps each top-level entry as `{ value, desc }`. */
function unwrap(v: unknown): unknown {
  if (v !== null && typeof v === "object" && !Array.isArray(v) && Object.hasOwn(v, "value") && Object.keys(v).every((k) => k === "value" || k === "desc"))
    return (v as { value: unknown }).value;
  return v;
}

/**
 * The keyword arguments of a Python `namespace(a=1, b='x', c=namespace(...))` repr as an object: strings,
 * numbers, True/False/None and nested namespaces; other values (lists, tuples) are skipped. Null when the
 * text is no such repr.
 */
export function namespaceRepr(text: string): Record<string, unknown> | null {
  const r = new ReprCursor(text);
  return r.namespace();
}

/** A cursor over a namespace repr. */
class ReprCursor {
  private pos = 0;
  constructor(private readonly text: string) {}

  namespace(): Record<string, unknown> | null {
    if (!this.text.startsWith("namespace(", this.pos)) return null;
    this.pos += "namespace(".length;
    const out: Record<string, unknown> = {};
    while (this.pos < this.text.length) {
      this.skipSpace();
      if (this.text[this.pos] === ")") {
        this.pos++;
        return out;
      }
      const m = /[A-Za-z_][A-Za-z0-9_]*=/y;
      m.lastIndex = this.pos;
      const name = m.exec(this.text);
      if (name === null) return null;
      this.pos = m.lastIndex;
      const v = this.value();
      if (v === INVALID) return null;
      if (v !== SKIPPED) out[name[0].slice(0, -1)] = v;
      this.skipSpace();
      if (this.text[this.pos] === ",") this.pos++;
    }
    return null;
  }

  private value(): unknown {
    const rest = this.text.slice(this.pos);
    if (rest.startsWith("namespace(")) return this.namespace() ?? INVALID;
    const lit = /^(True|False|None|'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?|inf|nan))/.exec(rest);
    if (lit !== null) {
      this.pos += lit[0].length;
      const t = lit[0];
      if (t === "True" || t === "False") return t === "True";
      if (t === "None") return null;
      if (t[0] === "'" || t[0] === '"') return t.slice(1, -1).replace(/\\(.)/g, "$1");
      return Number(t.replace(/inf$/, "Infinity").replace(/nan$/, "NaN"));
    }
    return this.skipBalanced() ? SKIPPED : INVALID;
  }

  /** Skips a bracketed value ((..), [..], {..}) with its nesting and quoted strings. */
  private skipBalanced(): boolean {
    const close: Record<string, string> = { "(": ")", "[": "]", "{": "}" };
    const stack: string[] = [];
    for (; this.pos < this.text.length; this.pos++) {
      const c = this.text[this.pos];
      if (c === "'" || c === '"') {
        const end = this.text.indexOf(c, this.pos + 1);
        if (end < 0) return false;
        this.pos = end;
      } else if (close[c]) stack.push(close[c]);
      else if (stack.length > 0 && c === stack[stack.length - 1]) {
        stack.pop();
        if (stack.length === 0) {
          this.pos++;
          return true;
        }
      } else if (stack.length === 0) return false;
    }
    return false;
  }

  private skipSpace(): void {
    while (this.text[this.pos] === " ") this.pos++;
  }
}

const INVALID = Symbol("invalid");
const SKIPPED = Symbol("skipped");

/**
 * Flags a user states by hand (`"flags"` of a run in data/runs.json, `--flag RUN:NAME=VALUE`): each
 * must be a declared flag of some framework with a value of its type; throws `invalid flag` naming
 * `where`, the flag and what it must be.
 */
export function statedFlags(declared: readonly SemanticFlag[], raw: unknown, where: string): Record<string, FlagValue> {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) throw new Error(`invalid flag: ${where}: "flags" must be an object of flag name -> value`);
  const out: Record<string, FlagValue> = {};
  for (const [name, value] of Object.entries(raw)) {
    const f = declared.find((d) => d.name === name);
    if (f === undefined) throw new Error(`invalid flag: ${where}: ${name} is no declared flag (lib/registry/profile-*.ts "flags" list them)`);
    const v = typed(f.type, value);
    if (v === undefined) throw new Error(`invalid flag: ${where}: ${name} must be ${typeText(f.type)}, not ${JSON.stringify(value)}`);
    out[name] = v;
  }
  return out;
}

/** Whether a run meets a condition: yes, no, or maybe (its version is not recorded). */
export type Holds = "yes" | "no" | "maybe";

/** What a condition reads of a run: its frozen flags and versions, and the version bounds its logged keys prove. */
export interface ConditionRun {
  flags?: RunFlags;
  versions?: RunVersions;
  versionBounds?: readonly VersionBound[];
}

/** Whether a condition holds in a run (flags unknown: a flag condition never holds). */
export function holdsIn(when: MeaningCondition, run: ConditionRun): Holds {
  if (when.flag !== undefined && run.flags?.[when.flag]?.value !== when.equals) return "no";
  if (when.rule !== undefined && !ruleHolds(when.rule, run.flags)) return "no";
  if (when.version === undefined) return "yes";
  const v = run.versions?.[when.version.package]?.value;
  if (v !== undefined) return compareVersions(v, when.version.below) < 0 ? "yes" : "no";
  return boundHolds(when.version, run.versionBounds ?? []);
}

function ruleHolds(rule: FlagRule, flags: RunFlags | undefined): boolean {
  if (flags === undefined) return false;
  const values: Record<string, FlagValue | undefined> = {};
  for (const f of rule.flags) values[f] = flags[f]?.value;
  return rule.test(values);
}

/** A version condition against what the run's keys prove: settled when a bound decides it, else maybe. */
function boundHolds(version: { package: string; below: string }, bounds: readonly VersionBound[]): Holds {
  for (const b of bounds) {
    if (b.package !== version.package) continue;
    if (b.atLeast !== undefined && compareVersions(b.atLeast, version.below) >= 0) return "no";
    if (b.below !== undefined && compareVersions(b.below, version.below) <= 0) return "yes";
  }
  return "maybe";
}

/** The runs where a meaning's condition holds for certain (a run with flags unknown never does). */
export function runsWhereHolds<R extends ConditionRun>(meaning: ConditionalMeaning, runs: readonly R[]): R[] {
  return runs.filter((r) => holdsIn(meaning.when, r) === "yes");
}

/** The runs where it may hold: the flag part holds, the version is neither recorded nor proven. */
export function runsWhereMayHold<R extends ConditionRun>(meaning: ConditionalMeaning, runs: readonly R[]): R[] {
  return runs.filter((r) => holdsIn(meaning.when, r) === "maybe");
}

/** A condition in words: `use_rollout_logprobs = true`, a rule's text, `verl < 0.4.1`, joined by "and". */
export function conditionText(when: MeaningCondition): string {
  const parts: string[] = [];
  if (when.flag !== undefined) parts.push(`${when.flag} = ${String(when.equals)}`);
  if (when.rule !== undefined) parts.push(when.rule.text);
  if (when.version !== undefined) parts.push(`${when.version.package} < ${when.version.below}`);
  return parts.join(" and ");
}

/**
 * What a run has of the settings a condition reads, in words: each flag with its value (`not set` when
 * its config lacks it or holds None), the package's version (recorded, proven by a key, or not
 * recorded); `flags unknown` when no config was read. Refusals name it on each side.
 * @example settingsText({ flag: "importance_sampling_level", equals: "sequence" }, run) // "importance_sampling_level = token"
 */
export function settingsText(when: MeaningCondition, run: ConditionRun): string {
  const names = [...(when.flag !== undefined ? [when.flag] : []), ...(when.rule?.flags ?? [])];
  const parts: string[] = [];
  if (names.length > 0) {
    if (run.flags === undefined) parts.push("flags unknown: no config was read");
    else for (const n of names) parts.push(run.flags[n] === undefined ? `${n} not set` : `${n} = ${String(run.flags[n].value)}`);
  }
  if (when.version !== undefined) parts.push(versionSetting(when.version.package, run));
  return parts.join(", ");
}

function versionSetting(pkg: string, run: ConditionRun): string {
  const v = run.versions?.[pkg]?.value;
  if (v !== undefined) return `${pkg} ${v}`;
  const proven = (run.versionBounds ?? []).filter((b) => b.package === pkg);
  if (proven.length === 0) return `${pkg} version not recorded`;
  return proven.map((b) => `${pkg} ${b.atLeast !== undefined ? `>= ${b.atLeast}` : `< ${b.below}`} (it logs ${b.key})`).join(", ");
}
