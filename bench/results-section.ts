/**
 * Sections of bench/RESULTS.md that another benchmark writes (bench/tensorboard-bench.ts), between
 * markers, so that `npm run bench` rewriting the file keeps them.
 */
import { existsSync, readFileSync } from "node:fs";

/** Markers of the TensorBoard read benchmark's section. */
export const TENSORBOARD_MARKERS = {
  start: "<!-- tensorboard-bench:start (npx tsx bench/tensorboard-bench.ts) -->",
  end: "<!-- tensorboard-bench:end -->",
} as const;

/** The marked section of `text` (markers included), or null. */
function sectionOf(text: string): string | null {
  const a = text.indexOf(TENSORBOARD_MARKERS.start);
  const b = text.indexOf(TENSORBOARD_MARKERS.end);
  return a < 0 || b < a ? null : text.slice(a, b + TENSORBOARD_MARKERS.end.length);
}

/** `text` with the section replaced by `section` (markers added), or with it appended when `text` has none. */
export function withSection(text: string, section: string): string {
  const block = `${TENSORBOARD_MARKERS.start}\n${section}\n${TENSORBOARD_MARKERS.end}`;
  const old = sectionOf(text);
  return old === null ? `${text.trimEnd()}\n\n${block}\n` : text.replace(old, () => block);
}

/** `rendered` with the section the file at `file` holds now, if any (what `npm run bench` must not drop). */
export function keepingSection(rendered: string, file: string): string {
  const old = existsSync(file) ? sectionOf(readFileSync(file, "utf8")) : null;
  return old === null ? rendered : `${rendered.trimEnd()}\n\n${old}\n`;
}
