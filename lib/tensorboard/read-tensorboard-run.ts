/**
 * Reads one TensorBoard run (a log directory, or one event file) into history rows: the event files
 * in file-name order, scalars superseded by the rule of tag-series.ts, one row per step with each tag
 * as a key, `_step` = the event step and `_timestamp` = the wall time (seconds) of the row's latest
 * value; the values a later file re-logged (a restart) as rows of their own before the re-logged
 * steps. Non-scalar summaries are dropped and counted, per tag and per kind.
 */
import * as path from "node:path";

import type { HistoryRow, Reporter } from "../types";
import type { DecodedEvent } from "./event-message";
import { locateEventFiles } from "./locate-event-files";
import { readEventFile, type EventFileInfo } from "./read-event-file";
import { TagSeries, type SupersededCount } from "./tag-series";
import { TensorboardError } from "./tensorboard-error";

/** What a TensorBoard run holds, as far as the archive needs it. */
export interface TensorboardRun {
  /** The files read, in read order. */
  files: EventFileInfo[];
  /**
   * One row per step, steps ascending, except at a restart: the earlier file's re-logged values come
   * first as rows of their own, then the steps go back once to the re-logged ones (TagSeries.rows).
   */
  rows: HistoryRow[];
  /** Highest step with a scalar, -1 without any. */
  lastStep: number;
  /** Wall time (seconds) of the first event, null for a run without events. */
  firstWallTime: number | null;
  /** Scalar values read, before superseding. */
  scalarValues: number;
  /** Non-scalar summaries left out: tag -> values, tags sorted. */
  droppedTags: Record<string, number>;
  /** Non-scalar summaries left out: kind (histogram, image, audio, text, ... or a plugin name) -> values, kinds sorted. */
  droppedKinds: Record<string, number>;
  /** Values a later value of the same tag at the same or an earlier step superseded (tag-series.ts). */
  superseded: SupersededCount[];
  /** Of those, the groups a later file re-logged (a restart): kept in `rows`, each where the steps go back once. */
  restarts: SupersededCount[];
  /**
   * The configs the files carry (hparams session starts, config text summaries), in read order, in
   * memory only; empty when none: the run's flags are then unknown.
   */
  configs: Record<string, unknown>[];
}

/** Options of `readTensorboardRun`. */
export interface ReadTensorboardRunOptions {
  /** Torn tails, superseded values and dropped summaries are reported here. */
  reporter?: Reporter;
  /** Tags of text summaries that hold a config as JSON (the registry's `tensorboard.configText`). */
  configTags?: ReadonlySet<string>;
  signal?: AbortSignal;
}

function sorted(counts: Map<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const key of Array.from(counts.keys()).sort()) out[key] = counts.get(key)!;
  return out;
}

/**
 * Reads a run's event files; throws `TensorboardError` naming file and byte offset for damage
 * inside a file, a record that is not an Event, a negative step, or a tag the archive reserves.
 * @example const run = await readTensorboardRun("runs/exp1"); run.rows[0] // { _step: 0, _timestamp: 1.7e9, "train/loss": 0.69 }
 */
export async function readTensorboardRun(p: string, opts: ReadTensorboardRunOptions = {}): Promise<TensorboardRun> {
  const paths = locateEventFiles(p);
  const series = new TagSeries();
  const droppedTags = new Map<string, number>();
  const droppedKinds = new Map<string, number>();
  const files: EventFileInfo[] = [];
  const configs: Record<string, unknown>[] = [];
  let scalarValues = 0;
  let firstWallTime: number | null = null;
  for (const file of paths) {
    const index = files.length;
    const onEvent = (ev: DecodedEvent, offset: number) => {
      firstWallTime ??= ev.wallTime;
      for (const s of ev.scalars) {
        if (s.tag.startsWith("_")) {
          throw new TensorboardError({
            file,
            offset,
            detail: `tag ${JSON.stringify(s.tag)} starts with "_", which the archive reserves for _step and _timestamp`,
          });
        }
        series.add(s.tag, ev.step, s.value, ev.wallTime, index);
        scalarValues++;
      }
      configs.push(...ev.configs);
      for (const d of ev.dropped) {
        droppedTags.set(d.tag, (droppedTags.get(d.tag) ?? 0) + 1);
        droppedKinds.set(d.kind, (droppedKinds.get(d.kind) ?? 0) + 1);
      }
    };
    files.push(await readEventFile(file, onEvent, opts.signal, opts.configTags));
  }
  const rows = series.rows();
  const run: TensorboardRun = {
    files,
    rows,
    lastStep: rows.reduce((m, r) => Math.max(m, r._step), -1),
    firstWallTime,
    scalarValues,
    droppedTags: sorted(droppedTags),
    droppedKinds: sorted(droppedKinds),
    superseded: series.supersededCounts(),
    restarts: series.restarts(),
    configs,
  };
  reportRun(p, run, opts.reporter ?? {});
  return run;
}

/** Notes on what the read left out or replaced. */
function reportRun(p: string, run: TensorboardRun, reporter: Reporter): void {
  const name = `TensorBoard run ${p}`;
  for (const f of run.files) {
    if (!f.tornTail) continue;
    reporter.warn?.(
      `${name}: the last ${f.tornTail.bytes} bytes of ${f.fileName} (from byte ${f.tornTail.offset}) hold no whole record (${f.tornTail.reason}): the torn end of a killed writer; read up to the last whole record`,
    );
  }
  for (const s of run.superseded) {
    const file = run.files[s.file].fileName;
    const steps = s.fromStep === s.toStep ? `step ${s.fromStep}` : `steps ${s.fromStep}-${s.toStep}`;
    const what =
      s.file === s.by
        ? `${s.values} value(s) of ${file} at ${steps} were logged again later in the same file: the later value is kept`
        : `${run.files[s.by].fileName} re-logged ${steps} of ${file} (a restart from a checkpoint): its ${s.values} earlier value(s) there are frozen before the re-logged ones, and alignment supersedes records by the rule it applies to a W&B run resumed in place (notebook 02, superseded.csv)`;
    reporter.info?.(`${name}: ${what}`);
  }
  const kinds = Object.entries(run.droppedKinds);
  if (kinds.length > 0) {
    reporter.info?.(`${name}: left out ${kinds.map(([k, n]) => `${n} ${k}`).join(", ")} summaries (not scalars)`);
  }
}

/** A run id made of a path's last part: characters other than letters, digits, - and _ become _. */
export function runIdOfPath(p: string): string {
  const base = path.basename(path.resolve(p));
  const id = base.replace(/[^A-Za-z0-9_-]/g, "_").replace(/^[^A-Za-z0-9]+/, "");
  return id || "tensorboard";
}
