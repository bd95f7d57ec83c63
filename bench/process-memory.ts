/** Peak memory of the current process, for benchmark children that report their own figures. */
import { readFileSync } from "node:fs";

/**
 * What every benchmark child adds to its report line: seconds since the process started, CPU of every
 * thread (user + system, workers included) and the peak memory.
 */
function ownFigures(): { processSeconds: number; cpuSeconds: number; peakRssKb: number | null } {
  const cpu = process.cpuUsage();
  return { processSeconds: process.uptime(), cpuSeconds: (cpu.user + cpu.system) / 1e6, peakRssKb: vmHwmKb() };
}

/** Prints a benchmark child's report line: `fields` and its own figures, as one JSON line on stdout. */
export function writeReportLine(fields: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify({ ...fields, ...ownFigures() })}\n`);
}

/** Peak resident set size so far (VmHWM from /proc/self/status, kB); null off Linux. */
export function vmHwmKb(): number | null {
  try {
    const m = /^VmHWM:\s+(\d+)\s+kB/m.exec(readFileSync("/proc/self/status", "utf8"));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}
