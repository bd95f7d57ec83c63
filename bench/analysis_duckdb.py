"""Benchmark side C of the analysis benchmark: the same job written as DuckDB SQL.

Usage: analysis_duckdb.py ARCHIVE_DIR OUT_DIR

Reads the same frozen archive as bench/analysis-ours.ts with DuckDB's own JSON reader and does the
job of issue 20 ("read the frozen JSONL, split rollout and update records, per-round means, write the
two CSVs") at the scope of analysis_pandas.py: sha256 check -> classify rows by their keys (the
decision table of lib/align/slime/classify-row.ts) -> infer N and r0 -> update records and rollout records
(rollout rows merged per rollout/step; conflicts and coverage counted as analysis_pandas.py counts
them) -> per-round means (finite values only; NaN/Inf excluded and counted; a key not logged is
missing, never 0), ppo_kl by position, zero-grad-norm updates, time breakdown -> rollouts.csv and
updates.csv written by COPY.
Python only builds the SQL text from the key names and reads back small aggregates; every pass over
the rows runs inside DuckDB. Not done here (the pandas side does it): summary.csv. Writes
OUT_DIR/summary.json in the shape of bench/summary-json.ts, OUT_DIR/exports/{rollouts,updates}.csv,
and prints one JSON line with the seconds of each phase and the peak resident memory (VmHWM, kB).

The frozen files hold NaN/Infinity/-Infinity as the JSON strings "NaN"/"Infinity"/"-Infinity"
(lib/values/frozen-row.ts); every key is read as DOUBLE, and DuckDB's JSON reader casts those
strings to the non-finite doubles. A key absent from a row is NULL: "not logged", unlike NaN.
"""
import hashlib
import json
import math
import os
import sys
import time

T_START = time.perf_counter()

from side_report import Phases, print_report  # noqa: E402  (bench/, the script's own folder)

import duckdb  # noqa: E402

ROLLOUT_KINDS = ("rollout-manager", "trainer-rollout", "trainer-perf")
ROLLOUT_SIDE_PREFIXES = ("rollout/response_len/", "rollout/zero_std/", "rollout/dynamic_filter/")
ROLLOUT_SIDE_KEYS = {"rollout/truncated_ratio", "rollout/repetition_frac"}
# Fields of the policy (update records) and rollout (rollout records) tables, as in analysis_pandas.py.
POLICY_UPDATE_FIELDS = {
    "entropy": "train/entropy_loss",
    "clipfrac": "train/pg_clipfrac",
    "gradNorm": "train/grad_norm",
    "logprobGap": "train/train_rollout_logprob_abs_diff",
}
ROLLOUT_FIELDS = {
    "responseLen": "rollout/response_len/mean",
    "truncated": "rollout/truncated_ratio",
    "rolloutTime": "perf/rollout_time",
    "actorTokPerS": "perf/actor_train_tok_per_s",
    "reward": "rollout/raw_reward",
}
PPO_KL = "train/ppo_kl"




def ident(name):
    """A key as a quoted SQL identifier."""
    return '"' + name.replace('"', '""') + '"'


def lit(text):
    """A string as an SQL literal."""
    return "'" + text.replace("'", "''") + "'"


def any_present(cols):
    """SQL: at least one of the keys is logged in the row."""
    return "(" + " OR ".join(f"{ident(c)} IS NOT NULL" for c in cols) + ")" if cols else "FALSE"


# ---------------------------------------------------------------------------------------------
# Load


def verify_file(path, run):
    """sha256 and size of one frozen file against the manifest (streamed: the file is not kept)."""
    h = hashlib.sha256()
    size = 0
    with open(path, "rb") as f:
        while True:
            chunk = f.read(1 << 20)
            if not chunk:
                break
            h.update(chunk)
            size += len(chunk)
            last = chunk
    if h.hexdigest() != run["sha256"]:
        raise ValueError(f"archive file {path}: sha256 mismatch (expected {run['sha256']}, actual {h.hexdigest()})")
    if size != run["bytes"]:
        raise ValueError(f"archive file {path}: {size} bytes, manifest says {run['bytes']}")
    if size and not last.endswith(b"\n"):
        raise ValueError(f"archive file {path}: truncated (no final newline)")


def typed_scans(con, runs, files):
    """Table `runs` (run index, round, run id), every key of the files, sorted, and the SQL that reads
    them all with every key as DOUBLE and a `run` column (also the minimal side's load)."""
    con.execute("CREATE TABLE runs (run INTEGER, round VARCHAR, run_id VARCHAR)")
    con.executemany("INSERT INTO runs VALUES (?, ?, ?)", [(i, r["round"], r["runId"]) for i, r in enumerate(runs)])
    # The key set is open (slime logs keys per step), so one pass lists the keys; the typed read then
    # takes every key as DOUBLE (auto-detection would make the keys holding "NaN" text columns).
    file_list = "[" + ", ".join(lit(f) for f in files) + "]"
    keys = sorted(k for (k,) in con.sql(f"SELECT DISTINCT unnest(json_keys(json)) FROM read_ndjson_objects({file_list})").fetchall())
    columns = "{" + ", ".join(f"{lit(k)}: 'DOUBLE'" for k in keys) + "}"
    scans = " UNION ALL ".join(
        f"SELECT {i} AS run, * FROM read_json({lit(f)}, format = 'newline_delimited', records = true, columns = {columns})"
        for i, f in enumerate(files)
    )
    return keys, scans


def load(con, archive_dir):
    """Table `raw` (run index, then every key as DOUBLE) and table `runs`; returns (manifest, keys)."""
    with open(os.path.join(archive_dir, "manifest.json")) as f:
        manifest = json.load(f)
    runs = manifest["runs"]
    files = [os.path.join(archive_dir, r["file"]) for r in runs]
    for path, run in zip(files, runs):
        verify_file(path, run)
    keys, scans = typed_scans(con, runs, files)
    if "_step" not in keys:
        raise ValueError(f"archive {archive_dir}: no _step key")
    con.execute(f"CREATE TABLE raw AS {scans}")
    counts = dict(con.sql("SELECT run, count(*) FROM raw GROUP BY run").fetchall())
    for i, run in enumerate(runs):
        if counts.get(i, 0) != run["historyEvents"]:
            raise ValueError(f"archive file {files[i]}: holds {counts.get(i, 0)} rows, manifest says historyEvents {run['historyEvents']}")
    return manifest, keys


# ---------------------------------------------------------------------------------------------
# Align


def kind_sql(keys):
    """Row kind by the decision table of lib/align/slime/classify-row.ts, first matching rule wins."""
    train = [c for c in keys if c.startswith("train/")]
    critic = any_present([c for c in train if c.startswith("train/critic-")])
    train_metric = any_present([c for c in train if c != "train/step" and not c.startswith("train/critic-")])
    perf = any_present([c for c in keys if c.startswith("perf/")])
    rollout_metric = any_present([c for c in keys if c.startswith("rollout/") and c != "rollout/step"])
    rollout_side = any_present([c for c in keys if c in ROLLOUT_SIDE_KEYS or c.startswith(ROLLOUT_SIDE_PREFIXES)])
    turn_or_pass = any_present([c for c in keys if c.startswith(("multi_turn/", "passrate/"))])

    def has(c):
        return any_present([c] if c in keys else [])

    return f"""CASE
      WHEN {has('eval/step')} THEN 'eval'
      WHEN {critic} THEN 'critic-update'
      WHEN {train_metric} AND {has('train/step')} THEN 'optimizer-update'
      WHEN NOT {has('rollout/step')} THEN 'other'
      WHEN {has('perf/rollout_time')} OR {rollout_side} OR ({perf} AND {rollout_metric}) THEN 'rollout-manager'
      WHEN {perf} THEN 'trainer-perf'
      WHEN {rollout_metric} OR {turn_or_pass} THEN 'trainer-rollout'
      ELSE 'other' END"""


def check_steps(con, kinds, key):
    """The step key of these rows must be a non-negative integer (as the library requires)."""
    bad = con.sql(
        f"SELECT r.run_id, {ident(key)} FROM hist JOIN runs r USING (run) WHERE kind IN {kinds} "
        f"AND NOT coalesce({ident(key)} >= 0 AND {ident(key)} = floor({ident(key)}), FALSE) LIMIT 1"
    ).fetchall()
    if bad:
        raise ValueError(f"run {bad[0][0]}: {key} = {bad[0][1]} is not a non-negative integer")


def candidates(stats):
    """Candidate N from each run's step ranges and first/last ordered evidence (infer-axis-mapping.ts)."""
    cand = set()
    for s in stats:
        est = []
        if s["nT"] and s["nR"]:
            est += [s["nT"] / s["nR"], (s["maxT"] + 1) / (s["maxR"] + 1), (s["maxT"] - s["minT"] + 1) / (s["maxR"] - s["minR"] + 1)]
            if s["minR"] > 0:
                est.append(s["minT"] / s["minR"])
        if s["firstA"] is not None:
            est += [s["firstT"] / s["firstA"], s["lastT"] / s["lastA"]]
        for x in est:
            if math.isfinite(x) and x > 0:
                r = round(x)
                cand.update(c for c in (math.floor(x), math.ceil(x), r - 1, r, r + 1) if c >= 1)
    return sorted(cand)


def choose_n(con):
    """N by fewest order contradictions, then fewest gaps (the rule of infer-axis-mapping.ts)."""
    rows = con.sql(
        """SELECT s.run, s.nT, s.minT, s.maxT, coalesce(r.nR, 0), r.minR, r.maxR,
             arg_min(e.t, e.step) FILTER (WHERE e.a > 0), arg_min(e.a, e.step) FILTER (WHERE e.a > 0),
             arg_max(e.t, e.step) FILTER (WHERE e.a > 0), arg_max(e.a, e.step) FILTER (WHERE e.a > 0)
           FROM (SELECT run, count(*) AS nT, min(t) AS minT, max(t) AS maxT FROM tset GROUP BY run) s
           LEFT JOIN (SELECT run, count(*) AS nR, min(r) AS minR, max(r) AS maxR FROM rset GROUP BY run) r USING (run)
           LEFT JOIN ev e ON e.run = s.run
           GROUP BY ALL ORDER BY s.run"""
    ).fetchall()
    names = ["run", "nT", "minT", "maxT", "nR", "minR", "maxR", "firstT", "firstA", "lastT", "lastA"]
    stats = [dict(zip(names, r)) for r in rows]
    cand = candidates(stats)
    if not cand:
        raise ValueError("cannot infer N: no run has both optimizer-update rows and rollout rows")
    values = ", ".join(f"({c})" for c in cand)
    scored = con.sql(
        f"""WITH c(n) AS (VALUES {values}),
           o AS (SELECT n, count(*) FILTER (WHERE floor(e.t / n) != e.a) AS contra FROM c, ev e GROUP BY n),
           m AS (SELECT n, count(r.r) AS mapped FROM c, tset t LEFT JOIN rset r ON r.run = t.run AND r.r = floor(t.t / c.n) GROUP BY n),
           sz AS (SELECT (SELECT count(*) FROM tset) AS nT, (SELECT count(*) FROM rset WHERE run IN (SELECT run FROM tset)) AS nR)
           SELECT c.n, coalesce(o.contra, 0), sz.nT + c.n * sz.nR - 2 * coalesce(m.mapped, 0)
           FROM c LEFT JOIN o USING (n) LEFT JOIN m USING (n), sz"""
    ).fetchall()
    contra, _gaps, n = min((int(o), int(g), int(n)) for n, o, g in scored)
    if contra > 0:
        raise ValueError(f"N (updates per rollout batch) changes within a run (N = {n})")
    # r0: the first rollout of any run, or the batch of the first update when that comes earlier.
    r0_rollouts = con.sql("SELECT min(r) FROM rset").fetchall()[0][0]
    r0 = min([math.floor(s["minT"] / n) for s in stats] + ([r0_rollouts] if r0_rollouts is not None else []))
    return n, int(r0)


def align(con, keys):
    """Tables `upd` (update records) and `rol` (rollout records); returns N, r0 and counts."""
    con.execute(f"CREATE VIEW hist AS SELECT *, {kind_sql(keys)} AS kind FROM raw")
    kinds = dict(((r, k), c) for r, k, c in con.sql("SELECT run, kind, count(*) FROM hist GROUP BY ALL").fetchall())
    rol_kinds = "(" + ", ".join(lit(k) for k in ROLLOUT_KINDS) + ")"
    if "train/step" in keys:
        check_steps(con, "('optimizer-update')", "train/step")
    if "rollout/step" in keys:
        check_steps(con, rol_kinds, "rollout/step")
    con.execute(
        "CREATE TEMP TABLE tset AS SELECT DISTINCT run, \"train/step\"::BIGINT AS t FROM hist WHERE kind = 'optimizer-update'"
        if "train/step" in keys
        else "CREATE TEMP TABLE tset (run INTEGER, t BIGINT)"
    )
    con.execute(
        f'CREATE TEMP TABLE rset AS SELECT DISTINCT run, "rollout/step"::BIGINT AS r FROM hist WHERE kind IN {rol_kinds}'
        if "rollout/step" in keys
        else "CREATE TEMP TABLE rset (run INTEGER, r BIGINT)"
    )
    # Trainer row order as evidence: the nearest trainer-rollout row before an update and the nearest
    # trainer-perf row after it must name the same rollout (a run with critic updates gives none).
    per_run = []
    for run in sorted({r for r, _ in kinds}):
        has_tr, has_tp = kinds.get((run, "trainer-rollout"), 0) > 0, kinds.get((run, "trainer-perf"), 0) > 0
        if kinds.get((run, "critic-update"), 0) > 0:
            a = "NULL"
        elif not has_tp:
            a = "prev_tr"
        elif not has_tr:
            a = "next_tp"
        else:
            a = "CASE WHEN prev_tr = next_tp THEN prev_tr END"
        per_run.append(f"WHEN {run} THEN {a}")
    if "train/step" in keys and "rollout/step" in keys and per_run:
        con.execute(
            f"""CREATE TEMP TABLE ev AS SELECT run, step, t, a FROM (
                  SELECT run, _step AS step, "train/step" AS t, CASE run {' '.join(per_run)} END AS a, kind FROM (
                    SELECT run, _step, kind, "train/step",
                      last_value(CASE WHEN kind = 'trainer-rollout' THEN "rollout/step" END IGNORE NULLS)
                        OVER (PARTITION BY run ORDER BY _step ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS prev_tr,
                      first_value(CASE WHEN kind = 'trainer-perf' THEN "rollout/step" END IGNORE NULLS)
                        OVER (PARTITION BY run ORDER BY _step ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) AS next_tp
                    FROM hist WHERE kind IN ('optimizer-update', 'trainer-rollout', 'trainer-perf')))
                WHERE kind = 'optimizer-update' AND a IS NOT NULL"""
        )
    else:
        con.execute("CREATE TEMP TABLE ev (run INTEGER, step DOUBLE, t DOUBLE, a DOUBLE)")
    n, r0 = choose_n(con)

    # Update records: train/* keys of optimizer-update rows.
    tcols = [c for c in keys if c.startswith("train/")]
    con.execute(
        f"""CREATE TABLE upd AS SELECT run, r.round, r.run_id, t - {n * r0} + 1 AS "update", t AS train_step,
              t // {n} AS rollout, t % {n} AS update_in_rollout, _step, {', '.join(ident(c) for c in tcols)}
            FROM (SELECT *, "train/step"::BIGINT AS t FROM hist WHERE kind = 'optimizer-update') JOIN runs r USING (run)"""
    )
    # Rollout records: rows of the three rollout kinds merged per rollout/step; each key's first
    # logged value in row order; two different values of one key in one batch drop it (NaN = NaN).
    # Without a conflict every logged value of a key in the batch is equal, so the first is the min.
    fcols = [c for c in keys if c.startswith(("rollout/", "perf/"))]
    conflict = lambda c: f"min({ident(c)}) IS DISTINCT FROM max({ident(c)})"  # noqa: E731
    merged = ", ".join(f"CASE WHEN {conflict(c)} THEN NULL ELSE min({ident(c)}) END AS {ident(c)}" for c in fcols)
    # Conflicts count over every rollout-side family, also those not exported (multi_turn/, passrate/).
    ccols = [c for c in keys if c.startswith(("rollout/", "perf/", "multi_turn/", "passrate/"))]
    conflicts = " + ".join(f"({conflict(c)})::INTEGER" for c in ccols) or "0"
    con.execute(
        f"""CREATE TABLE rol AS SELECT run, any_value(r.round) AS round, any_value(r.run_id) AS run_id,
              "rollout/step"::BIGINT AS rollout, {merged}, {conflicts} AS conflicts
            FROM hist JOIN runs r USING (run) WHERE kind IN {rol_kinds} GROUP BY run, "rollout/step\""""
    )
    evals = sum(c for (_, k), c in kinds.items() if k == "eval")
    issues = coverage_issues(con, keys, n, rol_kinds)
    return {"n": n, "r0": r0, "evals": evals, "issues": issues, "tcols": tcols, "fcols": fcols}


def coverage_issues(con, keys, n, rol_kinds):
    """Issues the library reports, counted as analysis_pandas.py counts them (one per finding)."""
    issues = con.sql("SELECT coalesce(sum(conflicts), 0) FROM rol").fetchall()[0][0]
    # Unclassified rows: one issue per distinct key set in a run (bookkeeping keys "_*" ignored).
    own = [c for c in keys if not c.startswith("_")]
    if own:
        sig = " || ".join(f"({ident(c)} IS NOT NULL)::INTEGER::VARCHAR" for c in own)
        issues += con.sql(
            f"SELECT count(*) FROM (SELECT DISTINCT run, {sig} AS sig FROM hist WHERE kind = 'other') WHERE contains(sig, '1')"
        ).fetchall()[0][0]
    # Two rows of one slot in one batch (manager, perf, trainer rollout rows by family).
    metric = any_present([c for c in keys if c.startswith("rollout/") and c != "rollout/step"])
    turn = any_present([c for c in keys if c.startswith("multi_turn/")])
    passrate = any_present([c for c in keys if c.startswith("passrate/")])
    slot = f"CASE kind WHEN 'rollout-manager' THEN 1 WHEN 'trainer-perf' THEN 2 ELSE 8 + {metric}::INTEGER + 2 * {turn}::INTEGER + 4 * {passrate}::INTEGER END"
    if "rollout/step" in keys:
        issues += con.sql(
            f'SELECT count(*) FROM (SELECT run, "rollout/step", {slot} FROM hist WHERE kind IN {rol_kinds} GROUP BY ALL HAVING count(*) > 1)'
        ).fetchall()[0][0]
    # Duplicate updates: one train/step logged twice in a run.
    if "train/step" in keys:
        issues += con.sql(
            "SELECT count(*) FROM (SELECT run, \"train/step\" FROM hist WHERE kind = 'optimizer-update' GROUP BY ALL HAVING count(*) > 1)"
        ).fetchall()[0][0]
    # Batches a run owns (by rollout rows or updates): holes between them, missing update slots (one
    # per stretch of consecutive missing slots), batches with updates but no rollout row.
    con.execute(f"CREATE TEMP TABLE owned AS SELECT DISTINCT run, r FROM (SELECT run, r FROM rset UNION ALL SELECT run, t // {n} FROM tset)")
    con.execute(
        f"""CREATE TEMP TABLE slots AS SELECT o.run, o.r, j.range AS j, t.t IS NOT NULL AS have
            FROM owned o CROSS JOIN range({n}) j LEFT JOIN tset t ON t.run = o.run AND t.t = o.r * {n} + j.range"""
    )
    holes, missing, orphan = con.sql(
        """SELECT
             (SELECT count(*) FROM (SELECT r - lag(r) OVER (PARTITION BY run ORDER BY r) AS d FROM owned) WHERE d > 1),
             (SELECT count(*) FROM (SELECT have, j, lag(have) OVER (PARTITION BY run, r ORDER BY j) AS prev FROM slots)
                WHERE NOT have AND (j = 0 OR prev)),
             (SELECT count(*) FROM (SELECT run, r FROM slots GROUP BY run, r HAVING bool_or(have)) s
                WHERE NOT EXISTS (SELECT 1 FROM rset x WHERE x.run = s.run AND x.r = s.r))"""
    ).fetchall()[0]
    issues += holes + missing + orphan
    # Runs in manifest order must continue each other: no gap, no overlap; a run owning nothing is one.
    spans = dict((run, (lo, hi)) for run, lo, hi in con.sql("SELECT run, min(r), max(r) FROM owned GROUP BY run").fetchall())
    max_prev = None
    for (run,) in con.sql("SELECT run FROM runs ORDER BY run").fetchall():
        if run not in spans:
            issues += 1
            continue
        lo, hi = spans[run]
        if max_prev is not None and (lo > max_prev + 1 or lo <= max_prev):
            issues += 1
        max_prev = hi if max_prev is None else max(max_prev, hi)
    return int(issues)


# ---------------------------------------------------------------------------------------------
# Summaries


def mean_exprs(col, present_cols, where="TRUE"):
    """SQL of [mean, n, nonFinite, missing] of one key (finite values only; absent key: all missing)."""
    if col not in present_cols:
        return [f"NULL::DOUBLE", "0", "0", f"count(*) FILTER (WHERE {where})"]
    c = ident(col)
    fin = f"{where} AND isfinite({c})"
    return [
        f"fsum({c}) FILTER (WHERE {fin}) / nullif(count(*) FILTER (WHERE {fin}), 0)",
        f"count(*) FILTER (WHERE {fin})",
        f"count(*) FILTER (WHERE {where} AND {c} IS NOT NULL AND NOT isfinite({c}))",
        f"count(*) FILTER (WHERE {where} AND {c} IS NULL)",
    ]


def grouped(con, table, specs, labels, by="round"):
    """Label (and "all") -> name -> value, from one GROUPING SETS query; specs: name -> SQL list."""
    names = list(specs)
    exprs = [e for name in names for e in specs[name]]
    rows = con.sql(
        f"SELECT {by}, GROUPING({by}) AS total, count(*), {', '.join(exprs)} FROM {table} GROUP BY GROUPING SETS (({by}), ())"
    ).fetchall()
    empty = {name: [None, 0, 0, 0] for name in names}
    out = {lab: dict(empty, count=0) for lab in labels}
    for row in rows:
        lab = "all" if row[1] else row[0]
        vals, i = {"count": int(row[2])}, 3
        for name in names:
            k = len(specs[name])
            t = list(row[i : i + k])
            vals[name] = [None if t[0] is None else float(t[0]), int(t[1]), int(t[2]), int(t[3])]
            i += k
        out[lab] = vals
    out.setdefault("all", dict(empty, count=0))
    return out


def summaries(con, a, labels):
    n = a["n"]
    upd_present = {c for c, k in zip(a["tcols"], con.sql(f"SELECT {', '.join(f'count({ident(c)})' for c in a['tcols'])} FROM upd").fetchall()[0]) if k}
    rol_present = {c for c, k in zip(a["fcols"], con.sql(f"SELECT {', '.join(f'count({ident(c)})' for c in a['fcols'])} FROM rol").fetchall()[0]) if k}
    a["upd_present"], a["rol_present"] = upd_present, rol_present

    specs = {f: mean_exprs(k, upd_present) for f, k in POLICY_UPDATE_FIELDS.items()}
    specs["ppoKlFirst"] = mean_exprs(PPO_KL, upd_present, "update_in_rollout = 0")
    specs["ppoKlLater"] = mean_exprs(PPO_KL, upd_present, "update_in_rollout != 0")
    u = grouped(con, "upd", specs, labels)
    timers = sorted(c for c in rol_present if c.startswith("perf/") and c.endswith("_time"))
    rspecs = {f: mean_exprs(k, rol_present) for f, k in ROLLOUT_FIELDS.items()}
    rspecs.update({t: mean_exprs(t, rol_present) for t in timers})
    r = grouped(con, "rol", rspecs, labels)

    policy, rollout, trows = {}, {}, {}
    for lab in labels + ["all"]:
        policy[lab] = {"updates": u[lab]["count"], "rollouts": r[lab]["count"], "actorTokPerS": r[lab]["actorTokPerS"]}
        policy[lab].update({f: u[lab][f] for f in list(POLICY_UPDATE_FIELDS) + ["ppoKlFirst", "ppoKlLater"]})
        rollout[lab] = {"rollouts": r[lab]["count"], **{f: r[lab][f] for f in ROLLOUT_FIELDS}}
        means = {t: r[lab][t] for t in timers}
        total = [m[0] for m in means.values()]
        trows[lab] = {"total": float(sum(total)) if total and all(m is not None for m in total) else None, "means": means}

    kl = {lab: [[None, 0, 0, 0] for _ in range(n)] for lab in labels + ["all"]}
    ex = mean_exprs(PPO_KL, upd_present)
    for row in con.sql(
        f"""SELECT round, GROUPING(round), update_in_rollout, {', '.join(ex)} FROM upd
            GROUP BY GROUPING SETS ((round, update_in_rollout), (update_in_rollout))"""
    ).fetchall():
        lab = "all" if row[1] else row[0]
        kl[lab][int(row[2])] = [None if row[3] is None else float(row[3]), int(row[4]), int(row[5]), int(row[6])]

    zero = {lab: [] for lab in labels}
    zero["all"] = []
    if "train/grad_norm" in upd_present:
        for lab, upd_no in con.sql('SELECT round, "update" FROM upd WHERE "train/grad_norm" = 0 ORDER BY "update"').fetchall():
            zero[lab].append(int(upd_no))
            zero["all"].append(int(upd_no))
        for lab in zero:
            zero[lab].sort()

    trainer = [t for t in timers if t != "perf/rollout_time"]
    missing_perf = con.sql(f"SELECT count(*) FILTER (WHERE NOT {any_present(trainer)}) FROM rol").fetchall()[0][0] if trainer else 0
    counts = con.sql("SELECT (SELECT count(*) FROM upd), (SELECT count(*) FROM rol)").fetchall()[0]
    return {
        "n": n,
        "r0": a["r0"],
        "records": {"updates": int(counts[0]), "rollouts": int(counts[1]), "evals": a["evals"], "issues": a["issues"]},
        "policy": policy,
        "rollout": rollout,
        "ppoKlByPosition": kl,
        "zeroGradNorm": zero,
        "time": {"keys": timers, "rows": trows, "missingTrainerPerf": int(missing_perf)},
    }


# ---------------------------------------------------------------------------------------------
# Export


def export(con, a, out_dir):
    copy_record_csvs(con, sorted(a["rol_present"]), sorted(a["upd_present"]), out_dir)


def copy_record_csvs(con, rkeys, ukeys, out_dir):
    """rollouts.csv and updates.csv by COPY from tables `rol` and `upd`: meta columns, then the logged
    keys (`rkeys`, `ukeys`) in the order given (also the minimal side's export)."""
    os.makedirs(out_dir, exist_ok=True)
    jobs = [
        ("rollouts.csv", "round, run_id, rollout", rkeys, "rol", "rollout, run"),
        ("updates.csv", 'round, run_id, "update", train_step, rollout, update_in_rollout', ukeys, "upd", '"update", run, _step'),
    ]
    for name, meta, keys, table, order in jobs:
        cols = ", ".join([meta] + [ident(k) for k in keys])
        path = os.path.join(out_dir, name)
        con.execute(f"COPY (SELECT {cols} FROM {table} ORDER BY {order}) TO {lit(path)} (FORMAT csv, HEADER true)")


# ---------------------------------------------------------------------------------------------


def main():
    archive_dir, out_dir = sys.argv[1], sys.argv[2]
    phases = Phases()

    con = duckdb.connect()
    # Rows are ordered by _step where order matters, so DuckDB need not keep insertion order.
    con.execute("SET preserve_insertion_order = false")
    manifest, keys = load(con, archive_dir)
    phases.lap("load")
    a = align(con, keys)
    phases.lap("align")
    labels = list(dict.fromkeys(r["round"] for r in manifest["runs"]))
    summary = summaries(con, a, labels)
    phases.lap("summaries")
    export(con, a, os.path.join(out_dir, "exports"))
    phases.lap("export")
    seconds = phases.total()
    with open(os.path.join(out_dir, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
        f.write("\n")
    print_report({
        "side": "duckdb",
        "duckdb": duckdb.__version__,
        "rows": con.sql("SELECT count(*) FROM raw").fetchall()[0][0],
        "updates": summary["records"]["updates"],
        "phases": phases.seconds,
        "seconds": seconds,
    }, T_START)


if __name__ == "__main__":
    main()
