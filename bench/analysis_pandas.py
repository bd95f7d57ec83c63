"""Benchmark side B of the analysis benchmark: the same analysis written with pandas.

Usage: analysis_pandas.py ARCHIVE_DIR OUT_DIR

Reads the same frozen archive as bench/analysis-ours.ts and computes the same outputs the same way
(the rules of lib/align and lib/diagnostics, vectorised): load with sha256 check -> classify rows by
their keys -> infer N and r0 -> update and rollout records (rollout rows merged per rollout/step,
conflicts and coverage checked) -> per-round means (finite values only; NaN/Inf excluded and
counted; a key not logged is missing, never 0) -> ppo_kl by position, zero-grad-norm updates, time
breakdown -> rollouts.csv, updates.csv, summary.csv and a manifest with their sha256.
Writes OUT_DIR/summary.json in the shape of bench/summary-json.ts and OUT_DIR/exports/*.csv, and
prints one JSON line with the seconds of each phase and the peak resident memory (VmHWM, kB).

A value logged as NaN and a key not logged are different things in the exports ("NaN" vs empty
cell), so the loader keeps a "present" mask next to the float values.
"""
import hashlib
import json
import math
import os
import sys
import time

T_START = time.perf_counter()

from side_report import Phases, print_report  # noqa: E402  (bench/, the script's own folder)

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

NON_FINITE = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}
ROLLOUT_SIDE_PREFIXES = ("rollout/response_len/", "rollout/zero_std/", "rollout/dynamic_filter/")
ROLLOUT_SIDE_KEYS = {"rollout/truncated_ratio", "rollout/repetition_frac"}
KEYS = {
    "entropy": "train/entropy_loss",
    "clipfrac": "train/pg_clipfrac",
    "gradNorm": "train/grad_norm",
    "logprobGap": "train/train_rollout_logprob_abs_diff",
    "ppoKl": "train/ppo_kl",
    "actorTokPerS": "perf/actor_train_tok_per_s",
    "responseLen": "rollout/response_len/mean",
    "truncated": "rollout/truncated_ratio",
    "rolloutTime": "perf/rollout_time",
}
SUMMARY_COLUMNS = [
    "round", "run_id", "state", "history_events", "rollouts", "updates",
    "entropy_mean", "clipfrac_mean", "grad_norm_mean", "actor_tok_per_s_mean",
    "response_len_mean", "truncated_ratio_mean", "rollout_time_mean", "logprob_abs_diff_mean",
    "ppo_kl_first_update_mean", "ppo_kl_later_updates_mean", "zero_grad_norm_updates",
]




# ---------------------------------------------------------------------------------------------
# Load


def load_run(archive_dir, run):
    """Rows of one frozen file as (values float DataFrame, present bool DataFrame)."""
    path = os.path.join(archive_dir, run["file"])
    with open(path, "rb") as f:
        raw = f.read()
    digest = hashlib.sha256(raw).hexdigest()
    if digest != run["sha256"]:
        raise ValueError(f"archive file {path}: sha256 mismatch (expected {run['sha256']}, actual {digest})")
    if len(raw) != run["bytes"]:
        raise ValueError(f"archive file {path}: {len(raw)} bytes, manifest says {run['bytes']}")
    text = raw.decode("utf8")
    del raw
    if text and not text.endswith("\n"):
        raise ValueError(f"archive file {path}: truncated (no final newline)")
    # One json.loads over the whole file as an array: faster than a call per line or read_json.
    records = json.loads("[" + text[:-1].replace("\n", ",") + "]") if text else []
    del text
    df = pd.DataFrame(records)
    del records
    if len(df) != run["historyEvents"]:
        raise ValueError(f"archive file {path}: holds {len(df)} rows, manifest says historyEvents {run['historyEvents']}")
    present = df.notna()
    for col in df.columns:
        if df[col].dtype == object:
            # Only the marker strings may be text; anything else makes to_numeric raise.
            try:
                df[col] = pd.to_numeric(df[col].replace(NON_FINITE), errors="raise").astype("float64")
            except (ValueError, TypeError) as e:
                raise ValueError(f"archive file {path} key {json.dumps(col)}: not numeric ({e})") from None
    steps = df["_step"].to_numpy()
    if not (np.all(steps == np.floor(steps)) and np.all(np.diff(steps) > 0)):
        raise ValueError(f"archive file {path}: _step is not a strictly increasing integer")
    return df.astype("float64"), present


def load_archive(archive_dir):
    with open(os.path.join(archive_dir, "manifest.json")) as f:
        manifest = json.load(f)
    runs = []
    for run in manifest["runs"]:
        values, present = load_run(archive_dir, run)
        runs.append({"meta": run, "values": values, "present": present})
    return manifest, runs


# ---------------------------------------------------------------------------------------------
# Align


def any_present(present, cols):
    cols = [c for c in cols if c in present.columns]
    if not cols:
        return np.zeros(len(present), dtype=bool)
    return present[cols].to_numpy().any(axis=1)


def has(present, col):
    return present[col].to_numpy() if col in present.columns else np.zeros(len(present), dtype=bool)


def classify(present):
    """Row kinds by the decision table of lib/align/slime/classify-row.ts, first matching rule wins."""
    cols = list(present.columns)
    train = [c for c in cols if c.startswith("train/")]
    critic = any_present(present, [c for c in train if c.startswith("train/critic-")])
    train_metric = any_present(present, [c for c in train if c != "train/step" and not c.startswith("train/critic-")])
    perf = any_present(present, [c for c in cols if c.startswith("perf/")])
    rollout_metric = any_present(present, [c for c in cols if c.startswith("rollout/") and c != "rollout/step"])
    rollout_side = any_present(
        present, [c for c in cols if c in ROLLOUT_SIDE_KEYS or c.startswith(ROLLOUT_SIDE_PREFIXES)]
    )
    turn_or_pass = any_present(present, [c for c in cols if c.startswith(("multi_turn/", "passrate/"))])
    rollout_step = has(present, "rollout/step")
    return np.select(
        [
            has(present, "eval/step"),
            critic,
            train_metric & has(present, "train/step"),
            ~rollout_step,
            has(present, "perf/rollout_time") | rollout_side | (perf & rollout_metric),
            perf,
            rollout_metric | turn_or_pass,
        ],
        ["eval", "critic-update", "optimizer-update", "other", "rollout-manager", "trainer-perf", "trainer-rollout"],
        default="other",
    )


def step_values(values, kinds, kind_mask, key, run_id):
    v = values[key].to_numpy()[kind_mask]
    bad = ~((v >= 0) & (v == np.floor(v)))
    if bad.any():
        raise ValueError(f"run {run_id}: {key} = {v[np.argmax(bad)]} is not a non-negative integer")
    return v


def choose_n(evidence):
    """N by the rule of lib/align/slime/infer-axis-mapping.ts: fewest order contradictions, then fewest gaps."""
    cand = set()
    for e in evidence:
        T, R = e["T"], e["R"]
        est = []
        if len(T) and len(R):
            est += [len(T) / len(R), (T[-1] + 1) / (R[-1] + 1), (T[-1] - T[0] + 1) / (R[-1] - R[0] + 1)]
            if R[0] > 0:
                est.append(T[0] / R[0])
        pos = np.nonzero(e["evA"] > 0)[0]
        if len(pos):
            est += [e["evT"][pos[0]] / e["evA"][pos[0]], e["evT"][pos[-1]] / e["evA"][pos[-1]]]
        for x in est:
            if math.isfinite(x) and x > 0:
                r = round(x)
                cand.update(c for c in (math.floor(x), math.ceil(x), r - 1, r, r + 1) if c >= 1)
    best = None
    for n in sorted(cand):
        order = sum(int(np.count_nonzero(np.floor(e["evT"] / n) != e["evA"])) for e in evidence)
        gaps = 0
        for e in evidence:
            mapped = np.count_nonzero(np.isin(np.floor(e["T"] / n), e["R"]))
            gaps += len(e["T"]) + n * len(e["R"]) - 2 * mapped
        if best is None or (order, gaps) < best[:2]:
            best = (order, gaps, n)
    if best is None:
        raise ValueError("cannot infer N: no run has both optimizer-update rows and rollout rows")
    if best[0] > 0:
        raise ValueError(f"N (updates per rollout batch) changes within a run (N = {best[2]})")
    return best[2]


def align(runs):
    for run in runs:
        kinds = classify(run["present"])
        run["kinds"] = kinds
        rid = run["meta"]["runId"]
        upd = kinds == "optimizer-update"
        rol = np.isin(kinds, ["rollout-manager", "trainer-rollout", "trainer-perf"])
        run["upd"], run["rol"], run["eval"] = upd, rol, kinds == "eval"
        t = step_values(run["values"], kinds, upd, "train/step", rid) if upd.any() else np.array([])
        r = step_values(run["values"], kinds, rol, "rollout/step", rid) if rol.any() else np.array([])
        # Trainer row order as evidence: the nearest trainer-rollout row before an update and the
        # nearest trainer-perf row after it must name the same rollout.
        rstep = run["values"]["rollout/step"] if "rollout/step" in run["values"] else pd.Series(np.nan, index=run["values"].index)
        prev_tr = rstep.where(kinds == "trainer-rollout").ffill().to_numpy()[upd]
        next_tp = rstep.where(kinds == "trainer-perf").bfill().to_numpy()[upd]
        has_tr, has_tp = (kinds == "trainer-rollout").any(), (kinds == "trainer-perf").any()
        if (kinds == "critic-update").any():
            a = np.full(len(t), np.nan)
        elif not has_tp:
            a = prev_tr
        elif not has_tr:
            a = next_tp
        else:
            a = np.where(prev_tr == next_tp, prev_tr, np.nan)
        ok = ~np.isnan(a)
        run["evidence"] = {"T": np.unique(t), "R": np.unique(r), "evT": t[ok], "evA": a[ok]}
        run["t"], run["r"] = t, r
    n = choose_n([run["evidence"] for run in runs if len(run["evidence"]["T"])])
    r0 = min(min([run["evidence"]["R"][0] for run in runs if len(run["evidence"]["R"])], default=math.inf),
             min([math.floor(run["evidence"]["T"][0] / n) for run in runs if len(run["evidence"]["T"])], default=math.inf))
    r0 = int(r0)

    update_frames, rollout_frames = [], []
    issues = 0
    evals = 0
    max_prev = -math.inf
    for run in runs:
        meta, values, present = run["meta"], run["values"], run["present"]
        rid, rnd = meta["runId"], meta["round"]
        evals += int(run["eval"].sum())
        # Unclassified rows: one issue per distinct key set (bookkeeping keys "_*" ignored).
        other = present.loc[run["kinds"] == "other", [c for c in present.columns if not c.startswith("_")]].to_numpy()
        other = other[other.any(axis=1)]
        if len(other):
            issues += len(np.unique(other, axis=0))
        # Updates: train/* keys of optimizer-update rows, sorted by train/step (stable).
        tcols = [c for c in values.columns if c.startswith("train/")]
        u = values.loc[run["upd"], tcols]
        up = present.loc[run["upd"], tcols]
        t = run["t"].astype(np.int64)
        order = np.argsort(t, kind="stable")
        u, up, t = u.iloc[order].reset_index(drop=True), up.iloc[order].reset_index(drop=True), t[order]
        meta_cols = pd.DataFrame({"round": rnd, "run_id": rid, "update": t - n * r0 + 1, "train_step": t,
                                  "rollout": t // n, "update_in_rollout": t % n})
        update_frames.append((meta_cols, u, up))
        # Rollouts: rows of the three rollout kinds merged per rollout/step; first value of each key.
        fcols = [c for c in values.columns if c.startswith(("rollout/", "perf/", "multi_turn/", "passrate/"))]
        rv = values.loc[run["rol"], fcols]
        rp = present.loc[run["rol"], fcols]
        key = run["r"].astype(np.int64)
        g = rv.groupby(key, sort=True)
        merged = g.first()
        merged_present = rp.groupby(key, sort=True).any()
        # Conflicts: two different values of one key in one rollout batch (NaN equals NaN).
        n_val = g.count()
        n_present = rp.groupby(key, sort=True).sum()
        conflict = (g.max() != g.min()) & (n_val > 1) | ((n_present > n_val) & (n_val > 0))
        n_conf = int(conflict.to_numpy().sum())
        if n_conf:
            issues += n_conf
            merged = merged.mask(conflict)
            merged_present = merged_present & ~conflict
        # Duplicate slots: more than one row of one slot per batch (manager, perf, and trainer rollout
        # rows by family: slime logs rollout/*, multi_turn/* and passrate/* as separate rows).
        kinds_r = run["kinds"][run["rol"]]
        fam = (any_present(rp, [c for c in fcols if c.startswith("rollout/") and c != "rollout/step"]) * 1
               + any_present(rp, [c for c in fcols if c.startswith("multi_turn/")]) * 2
               + any_present(rp, [c for c in fcols if c.startswith("passrate/")]) * 4)
        slot = np.where(kinds_r == "rollout-manager", 1, np.where(kinds_r == "trainer-perf", 2, 8 + fam))
        dup = pd.DataFrame({"r": key, "slot": slot}).groupby(["r", "slot"]).size()
        issues += int((dup > 1).sum())
        rollout_ids = merged.index.to_numpy()
        rollout_frames.append((pd.DataFrame({"round": rnd, "run_id": rid, "rollout": rollout_ids}), merged.reset_index(drop=True),
                               merged_present.reset_index(drop=True)))
        # Coverage: duplicates, holes, missing update slots, updates without rollout, gaps/overlaps.
        issues += int(np.count_nonzero(np.unique(t, return_counts=True)[1] > 1))
        tu = np.unique(t)
        owned = np.union1d(rollout_ids, tu // n)
        if len(owned) == 0:
            issues += 1
        issues += int(np.count_nonzero(np.diff(owned) > 1))
        slots = (owned[:, None] * n + np.arange(n)[None, :])
        have = np.isin(slots, tu)
        # One missing-update issue per run of consecutive missing slots inside a batch.
        starts = ~have & np.concatenate([np.ones((len(owned), 1), bool), have[:, :-1]], axis=1)
        issues += int(starts.sum())
        issues += int(np.count_nonzero(~np.isin(owned, rollout_ids) & have.any(axis=1)))
        if len(owned):
            if max_prev != -math.inf and (owned[0] > max_prev + 1 or owned[0] <= max_prev):
                issues += 1
            max_prev = max(max_prev, owned[-1])
    return {"n": n, "r0": r0, "updates": update_frames, "rollouts": rollout_frames, "evals": evals, "issues": issues}


def stack(frames):
    meta = pd.concat([f[0] for f in frames], ignore_index=True)
    values = pd.concat([f[1] for f in frames], ignore_index=True)
    present = pd.concat([f[2] for f in frames], ignore_index=True).fillna(False).astype(bool)
    return meta, values, present


# ---------------------------------------------------------------------------------------------
# Summaries


def mean_tuples(values, present, col, groups, labels):
    """[mean, n, nonFinite, missing] per group label and for "all" (finite values only)."""
    if col in values.columns:
        v = values[col].to_numpy()
        p = present[col].to_numpy()
    else:
        v = np.full(len(values), np.nan)
        p = np.zeros(len(values), dtype=bool)
    finite = np.isfinite(v)
    frame = pd.DataFrame({"g": groups, "v": np.where(finite, v, np.nan), "fin": finite, "nf": p & ~finite, "miss": ~p})
    agg = frame.groupby("g", sort=False).agg(mean=("v", "mean"), n=("fin", "sum"), nf=("nf", "sum"), miss=("miss", "sum"))
    out = {}
    for label in labels:
        if label in agg.index:
            r = agg.loc[label]
            out[label] = [None if r["n"] == 0 else float(r["mean"]), int(r["n"]), int(r["nf"]), int(r["miss"])]
        else:
            out[label] = [None, 0, 0, 0]
    nfin = int(finite.sum())
    out["all"] = [float(frame["v"].mean()) if nfin else None, nfin, int((p & ~finite).sum()), int((~p).sum())]
    return out


def summaries(aligned, rounds):
    um, uv, up = aligned["upd"]
    rm, rv, rp = aligned["rol"]
    ug, rg = um["round"].to_numpy(), rm["round"].to_numpy()
    n_upd = um.groupby("round", sort=False).size()
    n_rol = rm.groupby("round", sort=False).size()
    labels = list(rounds)

    policy = {lab: {"updates": int(n_upd.get(lab, 0)), "rollouts": int(n_rol.get(lab, 0))} for lab in labels}
    policy["all"] = {"updates": len(um), "rollouts": len(rm)}
    for field in ("entropy", "clipfrac", "gradNorm", "logprobGap"):
        for lab, t in mean_tuples(uv, up, KEYS[field], ug, labels).items():
            policy[lab][field] = t
    for lab, t in mean_tuples(rv, rp, KEYS["actorTokPerS"], rg, labels).items():
        policy[lab]["actorTokPerS"] = t
    first = um["update_in_rollout"].to_numpy() == 0
    for field, mask in (("ppoKlFirst", first), ("ppoKlLater", ~first)):
        res = mean_tuples(uv[mask], up[mask], KEYS["ppoKl"], ug[mask], labels)
        for lab, t in res.items():
            policy[lab][field] = t

    rollout = {lab: {"rollouts": int(n_rol.get(lab, 0))} for lab in labels}
    rollout["all"] = {"rollouts": len(rm)}
    for field in ("responseLen", "truncated", "rolloutTime", "actorTokPerS"):
        for lab, t in mean_tuples(rv, rp, KEYS[field], rg, labels).items():
            rollout[lab][field] = t

    pos = um["update_in_rollout"].to_numpy()
    kl = {lab: [] for lab in labels + ["all"]}
    for p in range(aligned["n"]):
        m = pos == p
        for lab, t in mean_tuples(uv[m], up[m], KEYS["ppoKl"], ug[m], labels).items():
            kl[lab].append(t)

    g = uv["train/grad_norm"].to_numpy() if "train/grad_norm" in uv.columns else np.full(len(uv), np.nan)
    zero_mask = g == 0
    zeros = pd.DataFrame({"round": ug[zero_mask], "update": um["update"].to_numpy()[zero_mask]})
    zero = {lab: sorted(int(x) for x in zeros.loc[zeros["round"] == lab, "update"]) for lab in labels}
    zero["all"] = sorted(int(x) for x in zeros["update"])

    timers = sorted(c for c in rv.columns if c.startswith("perf/") and c.endswith("_time") and rp[c].any())
    trows = {}
    for c in timers:
        for lab, t in mean_tuples(rv, rp, c, rg, labels).items():
            trows.setdefault(lab, {"total": None, "means": {}})["means"][c] = t
    for lab in labels + ["all"]:
        row = trows.setdefault(lab, {"total": None, "means": {}})
        means = [row["means"][c][0] for c in timers]
        row["total"] = float(sum(means)) if means and all(m is not None for m in means) else None
    trainer = [c for c in timers if c != "perf/rollout_time"]
    missing_perf = int((~rp[trainer].to_numpy().any(axis=1)).sum()) if trainer else 0

    return {
        "n": aligned["n"],
        "r0": aligned["r0"],
        "records": {"updates": len(um), "rollouts": len(rm), "evals": aligned["evals"], "issues": aligned["issues"]},
        "policy": policy,
        "rollout": rollout,
        "ppoKlByPosition": kl,
        "zeroGradNorm": zero,
        "time": {"keys": timers, "rows": trows, "missingTrainerPerf": missing_perf},
    }


# ---------------------------------------------------------------------------------------------
# Export


def cells(values, present):
    """Export cells: empty = not logged, NaN/Inf/-Inf for logged non-finite values, else the number."""
    out = values.copy()
    for c in values.columns:
        v = values[c].to_numpy()
        p = present[c].to_numpy()
        nonfinite = p & ~np.isfinite(v)
        if nonfinite.any():
            s = pd.Series(v).map(repr).to_numpy(dtype=object)
            s[~p] = ""
            s[p & np.isnan(v)] = "NaN"
            s[p & (v == np.inf)] = "Inf"
            s[p & (v == -np.inf)] = "-Inf"
            out[c] = s
    return out


def write_csv(frame, path):
    frame.to_csv(path, index=False, na_rep="", lineterminator="\n")
    with open(path, "rb") as f:
        data = f.read()
    return {"name": os.path.basename(path), "sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data), "rows": len(frame),
            "columns": list(frame.columns)}


def export(aligned, summary, manifest, rounds, out_dir):
    os.makedirs(out_dir, exist_ok=True)
    files = []
    rm, rv, rp = aligned["rol"]
    keys = sorted(c for c in rv.columns if c.startswith(("rollout/", "perf/")) and rp[c].any())
    order = np.argsort(rm["rollout"].to_numpy(), kind="stable")
    table = pd.concat([rm, cells(rv[keys], rp[keys])], axis=1).iloc[order]
    files.append(write_csv(table, os.path.join(out_dir, "rollouts.csv")))

    um, uv, up = aligned["upd"]
    keys = sorted(c for c in uv.columns if up[c].any())
    order = np.argsort(um["update"].to_numpy(), kind="stable")
    table = pd.concat([um, cells(uv[keys], up[keys])], axis=1).iloc[order]
    files.append(write_csv(table, os.path.join(out_dir, "updates.csv")))

    runs = manifest["runs"]
    rows = []
    for lab in list(rounds) + ["all"]:
        p, r = summary["policy"][lab], summary["rollout"][lab]
        mine = runs if lab == "all" else [x for x in runs if x["round"] == lab]
        zero = summary["zeroGradNorm"][lab]
        rows.append([
            lab,
            None if lab == "all" else "+".join(x["runId"] for x in mine),
            None if lab == "all" else "+".join(x["state"] for x in mine),
            sum(x["historyEvents"] for x in mine),
            p["rollouts"], p["updates"],
            p["entropy"][0], p["clipfrac"][0], p["gradNorm"][0], p["actorTokPerS"][0],
            r["responseLen"][0], r["truncated"][0], r["rolloutTime"][0], p["logprobGap"][0],
            p["ppoKlFirst"][0], p["ppoKlLater"][0],
            " ".join(str(x) for x in zero) if zero else None,
        ])
    files.append(write_csv(pd.DataFrame(rows, columns=SUMMARY_COLUMNS), os.path.join(out_dir, "summary.csv")))
    with open(os.path.join(out_dir, "manifest.json"), "w") as f:
        json.dump({"kind": "pandas-bench-exports", "axes": {"n": aligned["n"], "r0": aligned["r0"]}, "files": files}, f, indent=2)
        f.write("\n")


# ---------------------------------------------------------------------------------------------


def main():
    archive_dir, out_dir = sys.argv[1], sys.argv[2]
    phases = Phases()

    manifest, runs = load_archive(archive_dir)
    phases.lap("load")
    a = align(runs)
    a["upd"] = stack(a.pop("updates"))
    a["rol"] = stack(a.pop("rollouts"))
    rounds = [r["meta"]["round"] for r in runs]
    rows = sum(len(r["values"]) for r in runs)
    del runs
    phases.lap("align")
    summary = summaries(a, rounds)
    phases.lap("summaries")
    export(a, summary, manifest, rounds, os.path.join(out_dir, "exports"))
    phases.lap("export")
    seconds = phases.total()
    with open(os.path.join(out_dir, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
        f.write("\n")
    print_report({
        "side": "pandas",
        "pandas": pd.__version__,
        "numpy": np.__version__,
        "rows": rows,
        "updates": summary["records"]["updates"],
        "phases": phases.seconds,
        "seconds": seconds,
    }, T_START)


if __name__ == "__main__":
    main()
