/**
 * The notes of a follow's analyses, each said once: every snapshot is aligned again, and alignment
 * notes what it kept out or read specially (TRL's profiling timers, critic rows, ...) each time, with
 * counts that grow as the run does. A note said again with only its numbers changed tells nothing new.
 */
import type { Reporter } from "../types";

/** A note with its numbers masked: what stays when only the counts change. */
function shapeOf(note: string): string {
  return note.replace(/\d+(?:\.\d+)?/g, "#");
}

/**
 * `reporter` with each note (info line) passed on the first time its shape is seen; warnings and
 * progress pass as they are. Held for the follow's lifetime (a restarted follow says them again).
 * @example const r = notesOnce(reporter); r.info?.("run a: 3 row(s) of timers kept out"); r.info?.("run a: 9 row(s) of timers kept out"); // said once
 */
export function notesOnce(reporter: Reporter): Reporter {
  const said = new Set<string>();
  return {
    ...reporter,
    info: (message) => {
      const shape = shapeOf(message);
      if (said.has(shape)) return;
      said.add(shape);
      reporter.info?.(message);
    },
  };
}
