/**
 * A tool's answer as a short readable text for a terminal (`npm run query` without --json): the
 * manifest it came from first, then one aligned table. The JSON answer is the complete one.
 */
import type { JsonCell } from "./json-cell";
import type { CompareAnswer } from "./tool-compare";
import type { ConceptsAnswer } from "./tool-concepts";
import type { HealthAnswer } from "./tool-health";
import type { HistoryAnswer } from "./tool-history";
import type { ArchiveEntry } from "./tool-runs";
import type { SummaryAnswer } from "./tool-summary";

/** Columns padded to their widest cell, two spaces apart. */
export function textTable(columns: readonly string[], rows: readonly (readonly JsonCell[])[]): string {
  const text = (c: JsonCell) => (c === null ? "" : String(c));
  const widths = columns.map((h, i) => Math.max(h.length, ...rows.map((r) => text(r[i]).length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]))
      .join("  ")
      .trimEnd();
  return [line(columns), ...rows.map((r) => line(r.map(text)))].join("\n");
}

function runsText(a: { archives: ArchiveEntry[] }): string {
  return a.archives
    .map((x) => {
      const head = `archive ${x.archive} (${x.framework}, manifest sha256 ${x.manifestSha256})${x.mappingHolds ? "" : " - axis mapping does not hold"}`;
      return `${head}\n${textTable(
        ["run", "round", "state", "rows", "last step", "file sha256"],
        x.runs.map((r) => [r.runId, r.round, r.state, r.rows, r.lastStep, r.sha256]),
      )}`;
    })
    .join("\n\n");
}

function conceptsText(a: ConceptsAnswer): string {
  const head = a.archive === null ? `framework ${a.framework}` : `archive ${a.archive} (${a.framework}, manifest sha256 ${a.manifestSha256})`;
  const rows = a.concepts.map((c) => [c.id, c.key ?? "(not logged)", c.unit, c.direction]);
  return `${head}\n${textTable(["concept", "key", "unit", "better"], rows)}${a.holdingInArchive.map((n) => `\n- ${n}`).join("")}`;
}

/** The summary turned on its side: a line per column, a column per round (summary.csv is wide). */
function summaryText(a: SummaryAnswer): string {
  const head = `archive ${a.archive} (${a.framework}, manifest sha256 ${a.manifestSha256}), axis ${a.axis.name}${a.axis.width === null ? "" : ` width ${a.axis.width}`}`;
  const rows = a.columns.slice(1).map((c, j) => [c, ...a.rows.map((r) => r[j + 1])]);
  return `${head}\n${textTable(["column", ...a.rows.map((r) => String(r[0]))], rows)}${a.notes.map((n) => `\n- ${n}`).join("")}`;
}

function historyText(a: HistoryAnswer): string {
  const keys = [...new Set(a.rows.flatMap((r) => Object.keys(r.values)))];
  const head = `run ${a.run} of ${a.archive}: ${a.file} lines ${a.lines.first}-${a.lines.last} of ${a.fileLines} (sha256 ${a.fileSha256}; manifest ${a.manifestSha256})`;
  const more = a.nextCursor === null ? "" : `\nmore rows: --cursor ${a.nextCursor}`;
  return `${head}\n${textTable(
    ["line", ...keys],
    a.rows.map((r) => [r.line, ...keys.map((k) => r.values[k] ?? null)]),
  )}${more}`;
}

function healthText(a: HealthAnswer): string {
  const rows = a.checks.map((c) => [c.check, c.status, c.flags.length, c.measured?.recall ?? null, c.measured?.falseAlarmRate ?? null]);
  const flags = a.checks.flatMap((c) => c.flags.map((f) => `\n- ${c.check} ${f.round} ${f.unit} ${f.first}..${f.last}: ${f.key} = ${f.value ?? "(absent)"}`));
  return `archive ${a.archive} (manifest sha256 ${a.manifestSha256}): ${a.flagCount} flag(s)\n${textTable(["check", "status", "flags", "recall", "false alarms/value"], rows)}${flags.join("")}`;
}

function compareText(a: CompareAnswer): string {
  const keep = ["arm", "concept", "scope", "n", "mean", "iqm", "iqm_ci_low", "iqm_ci_high"];
  const at = keep.map((c) => a.compare.columns.indexOf(c));
  const head = a.archives.map((x) => `${x.archive} ${x.manifestSha256}`).join("\n");
  const refused = [...a.refused, ...a.refusedAgainstReference].map((r) => `\n- refused ${r.concept}: ${r.reason}`);
  return `${head}\n${textTable(
    keep,
    a.compare.rows.map((r) => at.map((i) => r[i])),
  )}${refused.join("")}`;
}

/** The readable text of a tool's answer. */
export function answerText(tool: string, answer: object): string {
  switch (tool) {
    case "runs":
      return runsText(answer as { archives: ArchiveEntry[] });
    case "concepts":
      return conceptsText(answer as ConceptsAnswer);
    case "summary":
      return summaryText(answer as SummaryAnswer);
    case "history":
      return historyText(answer as HistoryAnswer);
    case "health":
      return healthText(answer as HealthAnswer);
    case "compare":
      return compareText(answer as CompareAnswer);
    default:
      return JSON.stringify(answer, null, 2);
  }
}
