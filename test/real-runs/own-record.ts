/**
 * The frameworks' own records of real fixture runs (test/fixtures/real-runs/), read independently of
 * the W&B rows: TRL's trainer_state.json `log_history` (what the Trainer itself kept of each log call),
 * and the exact metric dicts verl and OpenRLHF handed to their loggers (own-record.jsonl). Each gives
 * the training records of one round under W&B key names, so a summary cell can be checked against a
 * mean computed from them alone.
 */
import * as fs from "node:fs";
import * as path from "node:path";

/** One round of a fixture case, as its maker wrote case.json. */
export interface FixtureRound {
  round: string;
  wandbRunId: string;
  wandbFile: string;
  tensorboardFiles: string[];
  ownRecord: string;
  /** History records of the .wandb file, counted by wandb's own Python reader (tools/real-runs/count_history.py). */
  historyRecords: number;
  lastStep: number | null;
  exitRecord: boolean;
  tornTail: boolean;
  killedAfterStep?: number | null;
  /** Checkpoint a resumed round started from, e.g. "checkpoint-3" (TRL), "global_step2" (OpenRLHF): its trailing number is the step. */
  resumedFrom?: string | null;
  resume?: "new-run" | "same-id" | null;
}

/** case.json of a fixture case. */
export interface FixtureCase {
  framework: "trl" | "verl" | "openrlhf";
  case: string;
  versions: Record<string, string>;
  command: string;
  options: Record<string, unknown>;
  /** The Hydra overrides the maker composed verl's config with (verl cases). */
  overrides?: string[];
  rounds: FixtureRound[];
  dir: string;
}

/** One training record of the framework's own record: its step and its metrics under W&B key names. */
export interface OwnEntry {
  step: number;
  values: Record<string, number>;
}

/** Every fixture case under `root` (framework/case/case.json), sorted by path; a one-run case.json (no `rounds`) is round R0. */
export function fixtureCases(root: string): FixtureCase[] {
  if (!fs.existsSync(root)) return [];
  const out: FixtureCase[] = [];
  for (const fw of fs.readdirSync(root).sort()) {
    const fwDir = path.join(root, fw);
    if (!fs.statSync(fwDir).isDirectory()) continue;
    for (const name of fs.readdirSync(fwDir).sort()) {
      const file = path.join(fwDir, name, "case.json");
      if (!fs.existsSync(file)) continue;
      const c = JSON.parse(fs.readFileSync(file, "utf8"));
      const rounds: FixtureRound[] = c.rounds ?? [{ round: "R0", ownRecord: "own-record.jsonl", tensorboardFiles: [], ...c }];
      out.push({ ...c, rounds, dir: path.join(fwDir, name) });
    }
  }
  return out;
}

/** transformers' `rewrite_logs` (integrations/integration_utils.py): eval_/test_ prefixes become eval/ and test/, the rest gets train/. */
function trlWandbKey(k: string): string {
  if (k.startsWith("eval_")) return `eval/${k.slice(5)}`;
  if (k.startsWith("test_")) return `test/${k.slice(5)}`;
  return `train/${k}`;
}

/** The Trainer's end-of-training totals: the W&B callback puts them in the run summary, not in history. */
const TRL_TOTALS = new Set(["train_runtime", "train_samples_per_second", "train_steps_per_second", "total_flos", "train_loss", "epoch", "step"]);

/**
 * log_history entries of training logs: not an evaluation (eval_*). The final entry holds the run's
 * totals and, when max_steps is not a multiple of logging_steps, the GRPO means of the steps after the
 * last window (one more logged step, without the totals); an entry of totals alone is no training log.
 */
function trlTrainingEntries(file: string): OwnEntry[] {
  const state = JSON.parse(fs.readFileSync(file, "utf8")) as { log_history: Record<string, number>[] };
  const out: OwnEntry[] = [];
  for (const e of state.log_history) {
    const keys = Object.keys(e).filter((k) => !TRL_TOTALS.has(k));
    if (keys.length === 0 || keys.some((k) => k.startsWith("eval_"))) continue;
    const values: Record<string, number> = {};
    for (const k of keys) if (typeof e[k] === "number") values[trlWandbKey(k)] = e[k];
    out.push({ step: e.step, values });
  }
  return out;
}

/** The step a resumed round started after (its checkpoint's global step); -Infinity for a fresh round. */
function resumedAfter(r: FixtureRound): number {
  const m = /(\d+)$/.exec(r.resumedFrom ?? "");
  return m ? Number(m[1]) : -Infinity;
}

/**
 * verl's and OpenRLHF's own-record.jsonl: `{"step", "data"}` per logger call, the dict the framework
 * handed its logger. verl's Tracking passes the dict to wandb.log as it is; OpenRLHF's logger prefixes
 * training keys with train/. Training entries: verl's hold a key outside val-core/ and val-aux/
 * (validation logs alone before training; fit() merges later validations into the step's dict);
 * OpenRLHF's hold no eval_ key (evaluations are separate calls).
 */
function loggerEntries(c: FixtureCase, file: string): OwnEntry[] {
  const out: OwnEntry[] = [];
  for (const line of fs.readFileSync(file, "utf8").split("\n")) {
    if (line.trim() === "") continue;
    const { step, data } = JSON.parse(line) as { step: number; data: Record<string, unknown> };
    const keys = Object.keys(data);
    const values: Record<string, number> = {};
    const num = (v: unknown) => (typeof v === "number" ? v : v === "NaN" ? NaN : v === "Infinity" ? Infinity : v === "-Infinity" ? -Infinity : undefined);
    if (c.framework === "verl") {
      if (!keys.some((k) => !k.startsWith("val-core/") && !k.startsWith("val-aux/"))) continue;
      for (const k of keys) if (num(data[k]) !== undefined) values[k] = num(data[k])!;
    } else {
      if (keys.some((k) => k.startsWith("eval_"))) continue;
      for (const k of keys) if (num(data[k]) !== undefined) values[`train/${k}`] = num(data[k])!;
    }
    out.push({ step, values });
  }
  return out;
}

/** The training entries a round logged itself (a resumed TRL round's log_history also holds its checkpoint's). */
function roundEntries(c: FixtureCase, r: FixtureRound): OwnEntry[] {
  const file = path.join(c.dir, r.ownRecord);
  const after = resumedAfter(r);
  const entries = c.framework === "trl" ? trlTrainingEntries(file) : loggerEntries(c, file);
  return entries.filter((e) => e.step > after);
}

/**
 * The training records each round keeps once later rounds supersede what they re-logged: a round
 * starting at step s replaces every earlier round's record from s on (what the workspace must do).
 */
export function survivingEntries(c: FixtureCase): Map<string, OwnEntry[]> {
  const per = c.rounds.map((r) => roundEntries(c, r));
  const out = new Map<string, OwnEntry[]>();
  c.rounds.forEach((r, i) => {
    let kept = per[i];
    for (let j = i + 1; j < per.length; j++) {
      const first = per[j].length > 0 ? Math.min(...per[j].map((e) => e.step)) : Infinity;
      kept = kept.filter((e) => e.step < first);
    }
    out.set(r.round, kept);
  });
  return out;
}

/**
 * verl's validation-only entries (every key under val-core/ or val-aux/: a val-before-train row) that
 * survive, per fixture round: a later round supersedes those at or after its first training step.
 * Other frameworks: null (their evaluations are not compared here).
 */
export function verlEvalEntries(c: FixtureCase): Map<string, OwnEntry[]> | null {
  if (c.framework !== "verl") return null;
  const per = c.rounds.map((r) => evalOnlyEntries(path.join(c.dir, r.ownRecord)));
  const firstTrain = c.rounds.map((r) => Math.min(...roundEntries(c, r).map((e) => e.step)));
  const out = new Map<string, OwnEntry[]>();
  c.rounds.forEach((r, i) =>
    out.set(
      r.round,
      per[i].filter((e) => firstTrain.slice(i + 1).every((f) => e.step < f)),
    ),
  );
  return out;
}

/** The entries of a verl own-record.jsonl whose keys are all validation keys, with their numeric values. */
function evalOnlyEntries(file: string): OwnEntry[] {
  const out: OwnEntry[] = [];
  for (const line of fs.readFileSync(file, "utf8").split("\n")) {
    if (line.trim() === "") continue;
    const { step, data } = JSON.parse(line) as { step: number; data: Record<string, unknown> };
    if (!Object.keys(data).every((k) => k.startsWith("val-core/") || k.startsWith("val-aux/"))) continue;
    const values: Record<string, number> = {};
    for (const [k, v] of Object.entries(data)) if (typeof v === "number") values[k] = v;
    out.push({ step, values });
  }
  return out;
}

/**
 * A killed run's own record can outlast its transaction log: wandb-core writes the log a 32 KiB block
 * at a time and a SIGKILL loses the block being filled. Only the entries up to `lastStep` (the last
 * training step the log kept) can be compared.
 */
export function upTo(entries: Map<string, OwnEntry[]>, round: string, lastStep: number): void {
  entries.set(
    round,
    entries.get(round)!.filter((e) => e.step <= lastStep),
  );
}

/** Mean of a key's finite values over entries, or null when no entry has one. */
export function ownMean(entries: readonly OwnEntry[], key: string): number | null {
  let s = 0;
  let n = 0;
  for (const e of entries) {
    const v = e.values[key];
    if (typeof v === "number" && Number.isFinite(v)) {
      s += v;
      n++;
    }
  }
  return n === 0 ? null : s / n;
}
