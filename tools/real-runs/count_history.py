"""Counts the history records of W&B transaction logs with wandb's own Python reader, independently
of the workspace's TypeScript reader: the makers store the counts in each fixture's case.json and the
conformance tests compare them with what the workspace froze.

    .venv/bin/python tools/real-runs/count_history.py FILE.wandb [...]   # prints one JSON line per file

wandb 0.31 no longer ships the Python reader (wandb-core, in Go, reads the logs), so this runs in the
project's .venv, whose wandb 0.21.0 still has `wandb.sdk.internal.datastore` (npm test sets it up).
A torn tail (a killed run's last, partly flushed block) ends the scan: what came before it counts.
"""

import json
import os
import subprocess
import sys


def counted_in(path: str, python: str) -> dict:
    """The counts of one log, read by `python` (a maker's own venv has wandb 0.31: it calls this)."""
    out = subprocess.run([python, "-W", "ignore", os.path.abspath(__file__), str(path)], capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def count(path: str) -> dict:
    from wandb.proto import wandb_internal_pb2 as pb
    from wandb.sdk.internal import datastore

    ds = datastore.DataStore()
    ds.open_for_scan(path)
    records, last, kinds, torn = 0, None, {}, False
    while True:
        try:
            data = ds.scan_data()
        except AssertionError:
            torn = True
            break
        if data is None:
            break
        r = pb.Record()
        r.ParseFromString(data)
        kind = r.WhichOneof("record_type")
        kinds[kind] = kinds.get(kind, 0) + 1
        if kind == "history":
            records += 1
            for item in r.history.item:
                if (item.key or "/".join(item.nested_key)) == "_step":
                    last = json.loads(item.value_json)
    return {"historyRecords": records, "lastStep": last, "exitRecord": kinds.get("exit", 0) > 0, "tornTail": torn}


if __name__ == "__main__":
    for p in sys.argv[1:]:
        print(json.dumps(count(p)))
