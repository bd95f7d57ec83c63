/**
 * Independent expectations of the MCP tests, read straight from files: CSV cells as the export wrote
 * them (parsed by papaparse, numbers by Number()), frozen history lines by JSON.parse, sha256 of bytes.
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";

import * as Papa from "papaparse";

/** sha256 hex of a file's bytes. */
export function fileSha256(file: string): string {
  return createHash("sha256").update(fs.readFileSync(file)).digest("hex");
}

/** A CSV file as header and rows of raw text cells. */
export function csvFile(file: string): { columns: string[]; rows: string[][] } {
  const parsed = Papa.parse<string[]>(fs.readFileSync(file, "utf8").trimEnd(), { header: false });
  const [columns, ...rows] = parsed.data;
  return { columns, rows };
}

/**
 * A CSV cell as the tools send it: empty -> null; the CSV spellings of non-finite numbers -> the
 * frozen files' strings; a number -> Number (the export prints numbers in their shortest exact form);
 * else the text.
 */
export function cellOfCsv(text: string, column: string, textColumns: readonly string[]): number | string | null {
  if (text === "") return null;
  if (textColumns.includes(column)) return text;
  if (text === "NaN") return "NaN";
  if (text === "Inf") return "Infinity";
  if (text === "-Inf") return "-Infinity";
  const n = Number(text);
  return Number.isNaN(n) ? text : n;
}

/** The lines of a frozen history file, each parsed. */
export function frozenLines(file: string): Record<string, number | string>[] {
  return fs
    .readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as Record<string, number | string>);
}
