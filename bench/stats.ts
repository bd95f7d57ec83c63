/** Small statistics and formatting helpers of the benchmarks. */

/** Median of a non-empty list (mean of the two middle values for an even length). */
export function median(xs: readonly number[]): number {
  if (xs.length === 0) throw new Error("median of an empty list");
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** "min-max" of a list, for spread columns. */
export function spread(xs: readonly number[], digits = 2): string {
  return `${fmt(Math.min(...xs), digits)}-${fmt(Math.max(...xs), digits)}`;
}

/** Fixed digits. */
export function fmt(x: number, digits = 2): string {
  return x.toFixed(digits);
}

/** Integer with thousands separators. */
export function int(x: number): string {
  return Math.round(x).toLocaleString("en-US");
}

/** kB as MiB text. */
export function mib(kb: number | null | undefined): string {
  return kb == null ? "n/a" : (kb / 1024).toFixed(0);
}

/** 10^k label for row counts that are powers of ten. */
export function sci(n: number): string {
  const k = Math.log10(n);
  return Number.isInteger(k) ? `10^${k}` : int(n);
}

/** A Markdown table from a header and rows. */
export function mdTable(header: string[], rows: (string | number)[][]): string {
  const line = (cells: (string | number)[]) => `| ${cells.join(" | ")} |`;
  return [line(header), line(header.map(() => "---")), ...rows.map(line)].join("\n");
}
