"""Benchmark side B of the fetch benchmark: the official W&B Python client reads runs completely.

Usage: fetch_official.py ENTITY/PROJECT RUN_ID [RUN_ID ...]
Env: WANDB_BASE_URL, WANDB_API_KEY (the local test server). Iterates every row of
`wandb.Api().run(path).scan_history()` for each run in turn (the client has no concurrency of its
own) and prints one JSON line: rows per run, seconds of the scans (import and Api() excluded),
seconds including import, and the process's peak resident memory (VmHWM, kB).
"""
import json
import sys
import time

T_START = time.perf_counter()

from side_report import print_report  # noqa: E402  (bench/, the script's own folder)




def main():
    project_path = sys.argv[1]
    run_ids = sys.argv[2:]
    import wandb  # noqa: E402 (timed separately: importing wandb takes seconds)

    api = wandb.Api(timeout=60)
    t0 = time.perf_counter()
    rows = []
    for run_id in run_ids:
        run = api.run(f"{project_path}/{run_id}")
        count = 0
        for _row in run.scan_history(page_size=1000):
            count += 1
        rows.append(count)
    seconds = time.perf_counter() - t0
    print_report({
        "side": "official",
        "wandb": wandb.__version__,
        "rows": rows,
        "seconds": seconds,
    }, T_START)


if __name__ == "__main__":
    main()
