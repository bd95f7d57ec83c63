/** Peak memory of the current process, for benchmark children that report their own figures. */
import { readFileSync } from "node:fs";

/** Peak resident set size so far (VmHWM from /proc/self/status, kB); null off Linux. */
export function vmHwmKb(): number | null {
  try {
    const m = /^VmHWM:\s+(\d+)\s+kB/m.exec(readFileSync("/proc/self/status", "utf8"));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}
