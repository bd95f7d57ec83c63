"""
What every Python side of the benchmarks reports (bench/analysis_pandas.py, analysis_duckdb.py,
fetch_official.py, fetch_lean.py): seconds per phase, peak RSS, and the one JSON line on stdout the
TypeScript parent reads. Standard library only, so the lean reader stays stdlib-only.
"""
import json
import time


def vm_hwm_kb():
    """Peak resident set size of this process so far (Linux /proc), None elsewhere."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return None


class Phases:
    """Seconds per named phase, each lap measured from the previous one."""

    def __init__(self):
        self.start = self._t = time.perf_counter()
        self.seconds = {}

    def lap(self, name):
        now = time.perf_counter()
        self.seconds[name] = now - self._t
        self._t = now

    def total(self):
        """Seconds since the phases began."""
        return time.perf_counter() - self.start


def print_report(fields, t_start):
    """The side's JSON line: its fields, then processSeconds (since `t_start`, taken before the heavy imports), cpuSeconds (user + system of every thread) and peakRssKb."""
    print(json.dumps({**fields, "processSeconds": time.perf_counter() - t_start, "cpuSeconds": time.process_time(), "peakRssKb": vm_hwm_kb()}))
