"""Benchmark side D of the analysis benchmark: the least DuckDB job that writes our two record CSVs.

Usage: analysis_duckdb_minimal.py ARCHIVE_DIR OUT_DIR

The floor the export is measured against (issue 42): DuckDB's JSON reader loads the frozen JSONL,
rows are split into rollout and update records by the same decision table as the full DuckDB side
(analysis_duckdb.kind_sql), rollout rows are grouped into one record per batch, and rollouts.csv
and updates.csv are written by COPY, nothing more: no sha256 check, no step or coverage checks, no
conflict check when a batch's rows disagree (the first value by min), no summaries. N (updates per
batch) is the update rows over the batches, r0 the first batch; both are one aggregate each. Writes
OUT_DIR/exports/{rollouts,updates}.csv (compared with ours cell by cell, as the full side's are) and
prints one JSON line with the seconds of each phase and the peak resident memory (VmHWM, kB). It
writes no summary.json: the parent compares only its CSVs.

DUCKDB_MEMORY_LIMIT (e.g. 800MB; unset: DuckDB's default) holds DuckDB's buffer manager to a bound, to
time it at ours' memory bound of 1 GiB (bench/RESULTS.md); the report then names the limit. Run the
script itself for that: `npm run bench` passes its sides a clean environment.
"""
import json
import os
import re
import sys
import time

T_START = time.perf_counter()

from analysis_duckdb import ROLLOUT_KINDS, copy_record_csvs, ident, kind_sql, lit, typed_scans  # noqa: E402  (bench/, the script's own folder)
from side_report import Phases, print_report  # noqa: E402

import duckdb  # noqa: E402


def load(con, archive_dir):
    """Table `hist` (run index, every key as DOUBLE, the row kind); returns (runs of the manifest, keys)."""
    with open(os.path.join(archive_dir, "manifest.json")) as f:
        runs = json.load(f)["runs"]
    files = [os.path.join(archive_dir, r["file"]) for r in runs]
    keys, scans = typed_scans(con, runs, files)
    con.execute(f"CREATE TABLE hist AS SELECT *, {kind_sql(keys)} AS kind FROM ({scans})")
    return runs, keys


def split(con, keys):
    """Tables `upd` and `rol`: update rows as they are, rollout rows grouped per run and batch."""
    rol_kinds = "(" + ", ".join(lit(k) for k in ROLLOUT_KINDS) + ")"
    n, r0 = con.sql(
        f"""SELECT round((SELECT count(*) FROM hist WHERE kind = 'optimizer-update')
                 / (SELECT count(DISTINCT (run, "rollout/step")) FROM hist WHERE kind IN {rol_kinds}))::BIGINT,
               (SELECT min("rollout/step")::BIGINT FROM hist WHERE kind IN {rol_kinds})"""
    ).fetchall()[0]
    tcols = [c for c in keys if c.startswith("train/")]
    con.execute(
        f"""CREATE TABLE upd AS SELECT run, r.round, r.run_id, t - {n * r0} + 1 AS "update", t AS train_step,
              t // {n} AS rollout, t % {n} AS update_in_rollout, _step, {', '.join(ident(c) for c in tcols)}
            FROM (SELECT *, "train/step"::BIGINT AS t FROM hist WHERE kind = 'optimizer-update') JOIN runs r USING (run)"""
    )
    fcols = [c for c in keys if c.startswith(("rollout/", "perf/"))]
    con.execute(
        f"""CREATE TABLE rol AS SELECT run, any_value(r.round) AS round, any_value(r.run_id) AS run_id,
              "rollout/step"::BIGINT AS rollout, {', '.join(f'min({ident(c)}) AS {ident(c)}' for c in fcols)}
            FROM hist JOIN runs r USING (run) WHERE kind IN {rol_kinds} GROUP BY run, "rollout/step\""""
    )
    return tcols, fcols


def present(con, table, cols):
    """The columns of `table` with at least one value, sorted (the CSV's key columns, as ours writes them)."""
    counts = con.sql(f"SELECT {', '.join(f'count({ident(c)})' for c in cols)} FROM {table}").fetchall()[0]
    return sorted(c for c, k in zip(cols, counts) if k)


def export(con, tcols, fcols, out_dir):
    """rollouts.csv and updates.csv by COPY, the keys each table has a value for, sorted."""
    copy_record_csvs(con, present(con, "rol", fcols), present(con, "upd", tcols), out_dir)


def memory_limit():
    """DUCKDB_MEMORY_LIMIT as DuckDB reads it (a number and a unit), or None when unset; exits naming a bad value."""
    limit = os.environ.get("DUCKDB_MEMORY_LIMIT", "")
    if limit == "":
        return None
    if not re.fullmatch(r"[0-9]+(\.[0-9]+)?(KB|MB|GB|KiB|MiB|GiB)", limit):
        sys.exit(f"invalid DUCKDB_MEMORY_LIMIT: {limit!r} (a number and KB, MB, GB, KiB, MiB or GiB, e.g. 800MB)")
    return limit


def main():
    archive_dir, out_dir = sys.argv[1], sys.argv[2]
    phases = Phases()
    con = duckdb.connect()
    # Outputs are ordered by ORDER BY where order matters, so DuckDB need not keep insertion order.
    con.execute("SET preserve_insertion_order = false")
    limit = memory_limit()
    if limit is not None:
        con.execute(f"SET memory_limit = '{limit}'")
    _runs, keys = load(con, archive_dir)
    phases.lap("load")
    tcols, fcols = split(con, keys)
    phases.lap("align")
    phases.lap("summaries")
    export(con, tcols, fcols, os.path.join(out_dir, "exports"))
    phases.lap("export")
    print_report({
        "side": "duckdb-minimal",
        "duckdb": duckdb.__version__,
        **({"memoryLimit": limit} if limit is not None else {}),
        "rows": con.sql("SELECT count(*) FROM hist").fetchall()[0][0],
        "updates": con.sql("SELECT count(*) FROM upd").fetchall()[0][0],
        "phases": phases.seconds,
        "seconds": phases.total(),
    }, T_START)


if __name__ == "__main__":
    main()
