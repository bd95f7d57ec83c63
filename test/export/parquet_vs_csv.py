"""Reads Parquet exports back with DuckDB (an engine independent of the writer) and compares every
cell with the CSV: empty cell = null, NaN/Inf/-Inf = the IEEE values, numbers exactly, types strict
(VARCHAR round/run_id, BIGINT axis columns, DOUBLE the rest).

Usage: parquet_vs_csv.py CSV PARQUET_FILE_OR_GLOB flat|hive
Prints one JSON object: rows, columns ([name, DuckDB type] in file order), createdBy (distinct values),
mismatches (the first 20 as [row, column, expected, actual]) and mismatchCount.
"""
import csv
import json
import math
import sys

import duckdb

STRINGS = {"round", "run_id"}
INTEGERS = {"rollout", "update", "train_step", "update_in_rollout"}
NON_FINITE = {"NaN": math.nan, "Inf": math.inf, "-Inf": -math.inf}


def expected(column, text):
    if text == "":
        return None
    if column in STRINGS:
        return text
    if column in INTEGERS:
        return int(text)
    return NON_FINITE[text] if text in NON_FINITE else float(text)


def same(a, b):
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return type(a) is type(b) and a == b


def show(v):
    return repr(v) if isinstance(v, float) else v


def main(csv_path, parquet, layout):
    with open(csv_path, newline="", encoding="utf-8") as f:
        reader = csv.reader(f)
        header = next(reader)
        want = [[expected(c, t) for c, t in zip(header, row)] for row in reader]
    literal = "'" + parquet.replace("'", "''") + "'"
    hive = "true" if layout == "hive" else "false"
    query = f"SELECT * FROM read_parquet({literal}, hive_partitioning = {hive}, filename = true, file_row_number = true)"
    con = duckdb.connect()
    types = {name: t for name, t, *_ in con.execute(f"DESCRIBE {query}").fetchall()}
    cursor = con.execute(query)
    names = [d[0] for d in cursor.description]
    got = cursor.fetchall()
    # File order: the CSV's round order (hive: one file per round), then the row inside the file.
    round_order = {}
    for row in want:
        round_order.setdefault(row[header.index("round")], len(round_order))
    r, n = names.index("round"), names.index("file_row_number")
    got.sort(key=lambda row: (round_order.get(row[r], len(round_order)), row[n]))
    at = {name: i for i, name in enumerate(names)}
    mismatches = []
    count = 0
    if len(got) != len(want):
        count += 1
        mismatches.append(["rows", None, len(want), len(got)])
    for i, (w, g) in enumerate(zip(want, got)):
        for j, column in enumerate(header):
            actual = g[at[column]] if column in at else "(no such column)"
            if not same(w[j], actual):
                count += 1
                if len(mismatches) < 20:
                    mismatches.append([i + 1, column, show(w[j]), show(actual)])
    created = [row[0] for row in con.execute(f"SELECT DISTINCT created_by FROM parquet_file_metadata({literal}) ORDER BY 1").fetchall()]
    columns = [[name, types[name]] for name in names if name not in ("filename", "file_row_number")]
    print(json.dumps({"rows": len(got), "columns": columns, "createdBy": created, "mismatches": mismatches, "mismatchCount": count}))


if __name__ == "__main__":
    main(*sys.argv[1:4])
