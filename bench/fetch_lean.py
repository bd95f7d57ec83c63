"""Benchmark side: a lean sequential reader of the HistoryPage protocol in plain Python (the floor).

Usage: fetch_lean.py ENTITY/PROJECT OUT_DIR RUN_ID [RUN_ID ...]
Env: WANDB_BASE_URL, WANDB_API_KEY. Standard library only, one run after another, one request at a
time: the Run query for lastStep and historyLineCount, then HistoryPage windows of 1000 steps; every
row is parsed (json.loads reads bare NaN/Infinity) to check that `_step` increases, and its text is
written as served to OUT_DIR/RUN_ID.jsonl while hashing (sha256), then fsynced. No retries, no
canonical form, no manifest: the least a complete reader of this protocol does. Prints one JSON line
like fetch_official.py.
"""
import base64
import hashlib
import json
import os
import sys
import time
import urllib.request

T_START = time.perf_counter()

from side_report import print_report  # noqa: E402  (bench/, the script's own folder)

RUN_QUERY = """query Run($project: String!, $entity: String!, $name: String!) {
  project(name: $project, entityName: $entity) { run(name: $name) { historyLineCount historyKeys } }
}"""
HISTORY_PAGE_QUERY = """query HistoryPage($entity: String!, $project: String!, $run: String!, $minStep: Int64!, $maxStep: Int64!, $pageSize: Int!) {
  project(name: $project, entityName: $entity) { run(name: $run) { history(minStep: $minStep, maxStep: $maxStep, samples: $pageSize) } }
}"""




def main():
    project_path, out_dir, run_ids = sys.argv[1], sys.argv[2], sys.argv[3:]
    entity, project = project_path.split("/")
    url = os.environ["WANDB_BASE_URL"].rstrip("/") + "/graphql"
    auth = "Basic " + base64.b64encode(("api:" + os.environ["WANDB_API_KEY"]).encode()).decode()
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))

    def query(op, text, variables):
        body = json.dumps({"query": text, "variables": variables, "operationName": op}).encode()
        req = urllib.request.Request(url, data=body, headers={"Content-Type": "application/json", "Authorization": auth})
        with opener.open(req, timeout=60) as res:
            return json.loads(res.read())["data"]

    os.makedirs(out_dir, exist_ok=True)
    t0 = time.perf_counter()
    rows = []
    for run_id in run_ids:
        meta = query("Run", RUN_QUERY, {"entity": entity, "project": project, "name": run_id})["project"]["run"]
        last_step = meta["historyKeys"].get("lastStep", -1)
        digest = hashlib.sha256()
        count = 0
        prev = -1
        with open(os.path.join(out_dir, run_id + ".jsonl"), "wb") as f:
            for offset in range(0, last_step + 1, 1000):
                variables = {"entity": entity, "project": project, "run": run_id, "minStep": offset,
                             "maxStep": min(offset + 1000, last_step + 1), "pageSize": 1000}
                page = query("HistoryPage", HISTORY_PAGE_QUERY, variables)["project"]["run"]["history"]
                chunk = []
                for text in page:
                    step = json.loads(text)["_step"]
                    if step <= prev:
                        raise SystemExit("step %s follows %s in run %s" % (step, prev, run_id))
                    prev = step
                    chunk.append(text)
                data = ("\n".join(chunk) + "\n").encode() if chunk else b""
                digest.update(data)
                f.write(data)
                count += len(chunk)
            f.flush()
            os.fsync(f.fileno())
        if count != meta["historyLineCount"]:
            raise SystemExit("run %s: %d rows, server holds %d" % (run_id, count, meta["historyLineCount"]))
        rows.append(count)
    print_report({
        "side": "lean",
        "rows": rows,
        "seconds": time.perf_counter() - t0,
    }, T_START)


if __name__ == "__main__":
    main()
