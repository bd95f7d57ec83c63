#!/usr/bin/env python3
"""A labelled corpus of REAL verl runs with injected failures (issue 37): test/fixtures/real-runs/faults/verl/.

    /tmp/verl-venv/bin/python tools/real-runs/verl/make_verl_faults.py                     # the committed corpus
    /tmp/verl-venv/bin/python tools/real-runs/verl/make_verl_faults.py --only verl-healthy-s1 verl-grad-spike-s1-k8
    /tmp/verl-venv/bin/python tools/real-runs/verl/make_verl_faults.py --heldout --out "$HELDOUT_DIR/verl"  # a folder outside the repository

Every run is verl 0.9.1's V0 trainer, `RayPPOTrainer.fit()`, unmodified, on CPU, with the machinery of
make_verl.py (CPU platform, in-process worker group, `TinyRolloutClient` sampling from a copy of the actor,
`WeightSync` copying the actor's weights into that copy after every update, verl's reward loop calling
`compute_score` below). A fault is switched on at verl's global step k (the `step` verl passes to
`Tracking.log`); every logged row is still the dict verl built. Healthy twins run the same setting with no fault.

Faults (`FAULTS` below; README.md beside the corpus says the same):
  mismatch          WeightSync skipped from the sync that feeds step k's rollout (variant "stale"), or the copy
                    perturbed with small Gaussian noise after each sync from then on (variant "noise")
  learning_stopped  compute_score returns 0.0 for every response from step k
  length_runaway    compute_score pays for length from step k (words / response_length)
  length_collapse   compute_score pays for near-empty answers from step k (1 / (1 + words))
  entropy_collapse  the actor's learning rate x30 from step k (optimizer param groups and the scheduler's base lrs)
  non_finite        compute_score returns NaN for responses with an odd number of words from step k
  grad_spike        the actor's loss multiplied by 1e3 at step k only (the gradient norm verl logs is pre-clip)
  kl_drift          in setting verl-grpo-kl (a KL loss to verl's reference worker): the actor's learning rate x40
                    from step k, so the policy drifts from the reference (actor/kl_loss)

Each run: its own child process (wandb and torch.distributed are process-global), `--child SPEC`.
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))
import make_verl as mv  # noqa: E402  (beside this file)

REPO = mv.REPO
OUT_ROOT = REPO / "test" / "fixtures" / "real-runs" / "faults" / "verl"
MAKER = "tools/real-runs/verl/make_verl_faults.py"
FAULT_NAMES = ["healthy", "entropy_collapse", "learning_stopped", "length_runaway", "length_collapse", "non_finite", "grad_spike", "mismatch", "kl_drift"]

# The setting every committed run shares (held-out runs may use OTHER_SETTING too).
SETTING = {"setting": "verl-grpo", "total_steps": 20, "rollout_n": 4, "response_length": 12, "lr": "2e-3"}
OTHER_SETTING = {"setting": "verl-grpo-n2-len16", "total_steps": 20, "rollout_n": 2, "response_length": 16, "lr": "2e-3"}
# kl_drift's setting (and its healthy twins'): verl's KL loss against a reference model (actor/kl_loss), which
# verl's own worker in role "ref" computes (make_verl.py), with the k3 estimator (low_var_kl, what TRL's KL is).
# Chosen on trial runs of calibrate seeds 1-3: at lr 2e-3 the healthy twins' actor/kl_loss climbed to 0.22-0.48
# in 20 steps (kl_loss_coef 0.1 or 0.05), and at coef 0.1 a raised lr (x20, x50) moved seed 1's only to
# 0.5-1.0 (kl_ref_drift flagged it 5 steps after k); so the lr is halved, as TRL's trl-beta halves its own,
# and the fault raises it x40 to 4e-2 (x20 of the other classes' 2e-3).
KL_SETTING = {**SETTING, "setting": "verl-grpo-kl", "lr": "1e-3", "use_kl_loss": True, "kl_loss_coef": 0.05, "kl_loss_type": "low_var_kl"}
KL_LR_FACTOR = 40.0
LR_FACTOR = 100.0
LOSS_FACTOR = 1e3
NOISE_REL = 0.05  # mismatch "noise": each tensor += NOISE_REL * its std * N(0, 1)

# class -> (fault name, variant, what is injected)
FAULTS = {
    "mismatch": ("mismatch", "stale", "WeightSync.update_weights skipped from the call after step k-1 on: step k's rollout and every later one sample from the weights of step k-2's update"),
    "mismatch-noise": ("mismatch", "noise", f"after each WeightSync.update_weights from the call after step k-1 on, every tensor of the sampler's copy gets {NOISE_REL} x its std x N(0,1) (fresh noise each sync)"),
    "learning-stopped": ("learning_stopped", None, "compute_score returns 0.0 for every response from step k (every GRPO group has zero variance)"),
    "length-runaway": ("length_runaway", None, "compute_score returns words / response_length from step k (longer is better; a clipped response scores 1)"),
    "length-collapse": ("length_collapse", None, "compute_score returns 1 / (1 + words) from step k (an empty answer scores 1)"),
    "entropy-collapse": ("entropy_collapse", None, f"the actor's learning rate x{LR_FACTOR:g} from step k: the optimizer's param groups and the LR scheduler's base_lrs, in-process, before step k's update (`actor/lr` shows it). The tiny model also forgets `<eos>`: clip ratio near 1 from step k+1, before the entropy halves; once the samples of a prompt are identical, advantages and grad norm go to 0"),
    "non-finite": ("non_finite", None, "compute_score returns NaN for every response with an odd number of words from step k"),
    "grad-spike": ("grad_spike", None, f"the actor's loss (verl's ppo_loss) multiplied by {LOSS_FACTOR:g} in step k's update only"),
    "kl-drift": ("kl_drift", None, f"in setting {KL_SETTING['setting']} (KL loss coef {KL_SETTING['kl_loss_coef']}, {KL_SETTING['kl_loss_type']}, lr {KL_SETTING['lr']}): the actor's learning rate x{KL_LR_FACTOR:g} from step k, set as entropy_collapse sets it: the policy drifts from the reference faster than the KL loss holds it"),
}
# The setting of a class's runs when it is not SETTING (healthy twins of it are made too, see committed_runs).
CLASS_SETTING = {"kl-drift": KL_SETTING}

# --------------------------------------------------------------------------------------------
# The reward function verl calls (reward.custom_reward_function.path points at this file).
# verl imports this file as a module (in the child, in-process): nothing heavy at import time.
# The child publishes the fault, k and verl's current global step in its environment.
# --------------------------------------------------------------------------------------------


def healthy_score(solution_str: str, ground_truth) -> float:
    """Word-count reward: 1 - |words - target| / target (targets 3..8 words, from the prompt rows)."""
    target = int(ground_truth)
    n = len(solution_str.split())
    return max(0.0, 1.0 - abs(n - target) / max(target, 1))


def compute_score(data_source, solution_str, ground_truth, extra_info=None, **kwargs):
    fault = os.environ.get("VERL_FAULT", "healthy")
    k = int(os.environ.get("VERL_FAULT_K") or 10**9)
    step = int(os.environ.get("VERL_FAULT_STEP") or 0)
    n = len(solution_str.split())
    score = healthy_score(solution_str, ground_truth)
    if step >= k:
        if fault == "learning_stopped":
            score = 0.0
        elif fault == "length_runaway":
            score = n / int(os.environ["VERL_FAULT_RESPONSE_LENGTH"])
        elif fault == "length_collapse":
            score = 1.0 / (1.0 + n)
        elif fault == "non_finite" and n % 2 == 1:
            score = float("nan")
    return {"score": float(score), "acc": float(n == int(ground_truth)), "words": float(n)}


# --------------------------------------------------------------------------------------------
# Parent: assets once, runs as children (two at a time), labels from the own records.
# --------------------------------------------------------------------------------------------


# k per class for seeds 1, 2, 3 (committed, calibrate), 7, 8, 9 (held out) and 4, 5, 6 (committed, test). The classes that build up over several
# steps (length_runaway, length_collapse, entropy_collapse) get the earlier k, so that they have 10+ steps to show.
KS = {
    "mismatch": ((8, 10, 12), (7, 9, 11), (9, 11, 7)),
    "mismatch-noise": ((12, 8, 10), (11, 7, 9), (10, 12, 8)),
    "learning-stopped": ((10, 12, 8), (9, 11, 7), (11, 9, 13)),
    "length-runaway": ((8, 10, 6), (9, 7, 9), (7, 9, 8)),
    "length-collapse": ((6, 8, 10), (7, 9, 7), (9, 7, 8)),
    "entropy-collapse": ((8, 6, 10), (7, 9, 7), (9, 8, 6)),
    "non-finite": ((12, 8, 10), (11, 9, 7), (9, 13, 11)),
    "grad-spike": ((10, 12, 6), (7, 11, 9), (8, 13, 11)),
    "kl-drift": ((10, 12, 8), (7, 9, 11), (9, 11, 7)),
}


# Round 2 (after round 1's test split had been scored): every round-1 run calibrates, with six more healthy
# twins (seeds 10-15, the calibrate split had 2 verl twins); the test split is new runs made after the rules
# were frozen: seeds 4-6 per fault class (k from KS[cls][2]) and healthy seeds 16-20.
CALIBRATE_HEALTHY_SEEDS = (1, 2, 3, 4, 5, *range(10, 16))
TEST_HEALTHY_SEEDS = tuple(range(16, 21))
# Healthy twins of each CLASS_SETTING (kl-drift): seeds 1-3 and 16-18. Every run of that setting calibrates:
# healthy-s17-kl's truncation_surge at step 2 was seen before truncation_surge.min_history became 4.
# Round 3 (kl_ref_drift became a jump rule after round 2's TRL test twins): seeds 10-12 and healthy 20-22 test it.
CLASS_SETTING_HEALTHY_SEEDS = {"calibrate": (1, 2, 3, 16, 17, 18), "test": (20, 21, 22)}
CLASS_SETTING_SPLITS = {"calibrate": (1, 2, 3, 4, 5, 6)}  # fault seeds of a CLASS_SETTING class, by split
ROUND3_KS = {"kl-drift": ((10, 11), (11, 9), (12, 13))}  # (seed, k) of the test runs of a CLASS_SETTING class


def committed_runs():
    """Calibrate: seeds 1-3 per fault class and healthy seeds 1-5, 10-15; test: seeds 4-6 per class, healthy 16-20.
    A class with its own setting (CLASS_SETTING: kl-drift) runs in it, beside healthy twins of that setting
    (seeds 1-3, 16-18); all of them calibrate (CLASS_SETTING_SPLITS)."""
    runs = [dict(cls="healthy", seed=s, k=None, split="calibrate", **SETTING) for s in CALIBRATE_HEALTHY_SEEDS]
    runs += [dict(cls="healthy", seed=s, k=None, split="test", **SETTING) for s in TEST_HEALTHY_SEEDS]
    for setting in {s["setting"]: s for s in CLASS_SETTING.values()}.values():
        for split, seeds in CLASS_SETTING_HEALTHY_SEEDS.items():
            runs += [dict(cls="healthy", seed=s, k=None, split=split, **setting) for s in seeds]
    for cls in FAULTS:
        setting = CLASS_SETTING.get(cls, SETTING)
        for seed, k in zip((1, 2, 3, 4, 5, 6), KS[cls][0] + KS[cls][2]):
            own = cls in CLASS_SETTING and seed in CLASS_SETTING_SPLITS["calibrate"]
            runs.append(dict(cls=cls, seed=seed, k=k, split="calibrate" if seed <= 3 or own else "test", **setting))
        for seed, k in ROUND3_KS.get(cls, ()):
            runs.append(dict(cls=cls, seed=seed, k=k, split="test", **setting))
    return runs


def heldout_runs():
    """Seeds 7, 8 (committed setting) and 9 (OTHER_SETTING) per class, k from KS (7, 9, 11); healthy 7, 8, 9.
    A class with its own setting (kl-drift) runs seeds 7-9 in it, beside healthy twins 7, 8 of that setting."""
    runs = []
    for s in (7, 8, 9):
        runs.append(dict(cls="healthy", seed=s, k=None, split="heldout", **(OTHER_SETTING if s == 9 else SETTING)))
    for setting in {s["setting"]: s for s in CLASS_SETTING.values()}.values():
        runs += [dict(cls="healthy", seed=s, k=None, split="heldout", **setting) for s in (7, 8)]
    for cls in FAULTS:
        for seed, k in zip((7, 8, 9), KS[cls][1]):
            setting = CLASS_SETTING.get(cls, OTHER_SETTING if seed == 9 else SETTING)
            runs.append(dict(cls=cls, seed=seed, k=k, split="heldout", **setting))
    return runs


def run_id(r: dict) -> str:
    """verl-<class>-s<seed>-k<k>, with -<setting> when the run is not in its class's setting (a healthy twin's: SETTING)."""
    home = CLASS_SETTING.get(r["cls"], SETTING)["setting"]
    suffix = "" if r["setting"] == home else "-" + r["setting"].removeprefix("verl-grpo-")
    if r["cls"] == "healthy":
        return f"verl-healthy-s{r['seed']}{suffix}"
    return f"verl-{r['cls']}-s{r['seed']}-k{r['k']}{suffix}"


def warm_start(model_dir: Path, data_dir: Path, steps=200, batch=16):
    """The random tiny Llama (seed 1234) never ends an answer (<eos> is 1 token of ~50, so nearly every response
    hits the length limit). Train it briefly, plain torch, seeded, on the train prompts followed by 0-14 random
    words and <eos>, so that answers end at varied lengths; the RL runs start from this model."""
    import pandas as pd
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModelForCausalLM.from_pretrained(model_dir, dtype="float32")
    special = set(tok.all_special_ids) | {tok.convert_tokens_to_ids(t) for t in ("user:", "assistant:", "system:")}
    words = [i for i in range(len(tok)) if i not in special]
    prompts = [tok.apply_chat_template(list(p), add_generation_prompt=True, tokenize=True) for p in pd.read_parquet(data_dir / "train.parquet")["prompt"]]
    prompts = [list(p["input_ids"]) if hasattr(p, "keys") else list(p) for p in prompts]
    g = torch.Generator().manual_seed(mv.SEED)
    torch.manual_seed(mv.SEED)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    model.train()
    losses = []
    for step in range(steps):
        seqs, labels = [], []
        for _ in range(batch):
            p = prompts[int(torch.randint(len(prompts), (1,), generator=g))]
            m = int(torch.randint(0, 15, (1,), generator=g))
            ans = [words[int(i)] for i in torch.randint(len(words), (m,), generator=g)] + [tok.eos_token_id]
            seqs.append(p + ans)
            labels.append([-100] * len(p) + ans)
        L = max(map(len, seqs))
        ids = torch.tensor([s + [tok.pad_token_id] * (L - len(s)) for s in seqs])
        lab = torch.tensor([s + [-100] * (L - len(s)) for s in labels])
        att = (torch.arange(L)[None, :] < torch.tensor([len(s) for s in seqs])[:, None]).long()
        loss = model(input_ids=ids, attention_mask=att, labels=lab).loss
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(float(loss))
    model.eval()
    model.save_pretrained(model_dir, safe_serialization=True)
    return {"steps": steps, "batch": batch, "lr": 3e-3, "answer_words": "0-14 uniform", "first_loss": round(losses[0], 4), "last_loss": round(statistics.mean(losses[-20:]), 4)}


def start_run(r: dict, work: Path, model_dir: Path, data_dir: Path, threads: int, lr_factor: float, kl_lr_factor: float = KL_LR_FACTOR) -> dict:
    rid = run_id(r)
    case_dir = work / "cases" / rid
    if case_dir.exists():
        shutil.rmtree(case_dir)
    case_dir.mkdir(parents=True)
    fault, variant, _ = FAULTS.get(r["cls"], ("healthy", None, None))
    spec = {
        "case": rid,
        "work": str(work),
        "case_dir": str(case_dir),
        "model_dir": str(model_dir),
        "data_dir": str(data_dir),
        "total_steps": r["total_steps"],
        "val_before_train": False,
        "test_freq": -1,
        "save_freq": -1,
        "rollout_n": r["rollout_n"],
        "response_length": r["response_length"],
        "lr": r["lr"],
        "data_seed": r["seed"],
        "sampler_seed": r["seed"],
        "loggers": "console,wandb",
        "project": "verl-faults",
        "reward_path": str(Path(__file__).resolve()),
        "reward_name": "compute_score",
        "threads": threads,
        "fault": fault,
        "variant": variant,
        "k": r["k"],
        "lr_factor": kl_lr_factor if fault == "kl_drift" else lr_factor,
        "loss_factor": LOSS_FACTOR,
        "noise_rel": NOISE_REL,
        **{key: r[key] for key in ("use_kl_loss", "kl_loss_coef", "kl_loss_type") if key in r},
    }
    (case_dir / "spec.json").write_text(json.dumps(spec))
    env = mv.child_env(case_dir, rid)
    env.update({"VERL_FAULT": fault, "VERL_FAULT_K": str(r["k"] or ""), "VERL_FAULT_RESPONSE_LENGTH": str(r["response_length"]), "VERL_FAULT_STEP": "0"})
    t0 = time.time()
    with open(case_dir / "child.log", "w") as log:
        proc = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--child", str(case_dir / "spec.json")], env=env, stdout=log, stderr=subprocess.STDOUT, cwd=str(case_dir))
    return {"returncode": proc.returncode, "seconds": round(time.time() - t0, 1)}


# ---- labels, computed from the own record -------------------------------------------------------


def gzip_into(src: Path, dest: Path) -> None:
    """`dest` gzipped reproducibly (no name, mtime 0): the corpus is stored compressed (verl logs ~100 keys
    a step and wandb a summary record beside each history record: ~290 KB a run plain, ~5x less gzipped)."""
    with open(src, "rb") as f, open(dest, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="") as gz:
        gz.write(f.read())


def read_own_record(path: Path) -> list:
    out = []
    for line in gzip.open(path, "rt") if path.suffix == ".gz" else open(path):
        e = json.loads(line)
        vals = {}
        for key, v in e["data"].items():
            if isinstance(v, str) and v in ("NaN", "Infinity", "-Infinity"):
                v = float(v.replace("Infinity", "inf"))
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                vals[key] = float(v)
        out.append((int(e["step"]), vals))
    return out


def _fmt(x: float) -> str:
    if not math.isfinite(x):
        return "NaN" if math.isnan(x) else ("Infinity" if x > 0 else "-Infinity")
    return f"{x:.3g}"


# class -> (key, test(value, pre-k median) -> bool, description of the test)
VISIBLE_RULES = {
    "mismatch": ("training/rollout_probs_diff_mean", lambda v, m: v > 3 * m, "above 3x its median over steps 1..k-1"),
    "learning_stopped": ("critic/advantages/max", lambda v, m: v == 0.0, "exactly 0"),
    "length_runaway": ("response_length/clip_ratio", lambda v, m: v >= 0.8, ">= 0.8"),
    "length_collapse": ("response_length/mean", lambda v, m: v < 0.5 * m, "below half its median over steps 1..k-1"),
    "entropy_collapse": ("actor/entropy", lambda v, m: v < 0.5 * m, "below half its median over steps 1..k-1"),
    "grad_spike": ("actor/grad_norm", lambda v, m: v > 10 * m, "above 10x its median over steps 1..k-1"),
    "kl_drift": ("actor/kl_loss", lambda v, m: v > 3 * m + 0.01, "over 3x its median over steps 1..k-1 plus 0.01"),
}


def visible_of(fault: str, k, rows: list):
    """The key that shows the fault and the first step >= k where it departs from the pre-k level, from the own record."""
    if fault == "healthy":
        return None
    if fault == "non_finite":
        for step, vals in rows:
            if step < k:
                continue
            bad = sorted(key for key, v in vals.items() if not math.isfinite(v))
            if bad:
                key = "critic/score/mean" if "critic/score/mean" in bad else bad[0]
                return {"key": key, "step": step, "what": f"{_fmt(vals[key])} from step {step}; {len(bad)} keys non-finite at that step: {', '.join(bad)}"}
        return None
    key, test, words = VISIBLE_RULES[fault]
    pre = [vals[key] for step, vals in rows if step < k and key in vals and math.isfinite(vals[key])]
    med = statistics.median(pre) if pre else float("nan")
    prev = {step: vals.get(key) for step, vals in rows}
    for step, vals in rows:
        if step < k or key not in vals:
            continue
        v = vals[key]
        if math.isfinite(v) and test(v, med):
            before = prev.get(k - 1)
            return {"key": key, "step": step, "what": f"{_fmt(v)} at step {step}, {words} (pre-k median {_fmt(med)}; {_fmt(before) if before is not None else '-'} at step {k - 1})"}
    return None


def collect(r: dict, work: Path, out_root: Path, result: dict, vers: dict, count_python: str | None, command: str, warm: dict) -> dict:
    rid = run_id(r)
    case_dir = work / "cases" / rid
    out = out_root / rid
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    wandb_files = sorted(case_dir.glob("wandb/offline-run-*/run-*.wandb"))
    for f in wandb_files:
        gzip_into(f, out / (f.name + ".gz"))
    gzip_into(case_dir / "own-record.jsonl", out / "own-record.jsonl.gz")
    extra = json.loads((case_dir / "extra.json").read_text()) if (case_dir / "extra.json").exists() else {}
    counted = {}
    if count_python and wandb_files:
        try:
            counted = mv.counted_in(wandb_files[0], count_python)
        except Exception as e:  # noqa: BLE001
            counted = {"historyRecordsError": repr(e)}
    case = {
        "framework": "verl",
        "id": rid,
        "versions": vers,
        "command": f"{command} --only {rid}",
        "options": {key: r[key] for key in ("total_steps", "rollout_n", "response_length", "lr", "use_kl_loss", "kl_loss_coef", "kl_loss_type") if key in r} | {"data_seed": r["seed"], "sampler_seed": r["seed"], "model_seed": mv.SEED, "loggers": ["console", "wandb"]},
        "modelWarmStart": warm,
        "overrides": extra.get("overrides"),
        "wandbRunId": rid,
        "wandbFile": wandb_files[0].name if wandb_files else None,
        **counted,
        "exitCode": result["returncode"],
        "seconds": result["seconds"],
    }
    (out / "case.json").write_text(json.dumps(case, indent=2) + "\n")
    label = label_run(r, out_root)
    size = sum(p.stat().st_size for p in out.iterdir())
    print(f"[{rid}] rc={result['returncode']} {result['seconds']}s {size:,} B visible={label['visible']}", flush=True)
    return label


def counted_in_gz(gz: Path, count_python: str) -> dict:
    """count_history's counts of a gzipped .wandb, read through a plain copy under its original name."""
    with tempfile.TemporaryDirectory() as tmp:
        plain = Path(tmp) / gz.name.removesuffix(".gz")
        plain.write_bytes(gzip.decompress(gz.read_bytes()))
        return mv.counted_in(plain, count_python)


def label_run(r: dict, out_root: Path, count_python: str | None = None) -> dict:
    """The run's label from its folder (own record -> visible); the same fields go into its case.json. With
    `count_python` (--relabel), history counts a run was made without (no wandb 0.21 Python then) are added."""
    rid = run_id(r)
    out = out_root / rid
    fault, variant, injected = FAULTS.get(r["cls"], ("healthy", None, None))
    rows = read_own_record(out / "own-record.jsonl.gz")
    visible = visible_of(fault, r["k"], rows)
    wandb_files = sorted(out.glob("run-*.wandb.gz"))
    case = json.loads((out / "case.json").read_text())
    if count_python and wandb_files and "historyRecords" not in case:
        case |= counted_in_gz(wandb_files[0], count_python)
    head = {key: case[key] for key in ("framework", "id")}
    fields = {"fault": fault, "variant": variant, "k": r["k"], "seed": r["seed"], "setting": r["setting"], "split": r["split"], "injected": injected}
    rest = {key: v for key, v in case.items() if key not in head and key not in fields and key not in ("ownRecordRows", "lastOwnStep", "visible")}
    case = head | fields | rest | {"ownRecordRows": len(rows), "lastOwnStep": rows[-1][0] if rows else None, "visible": visible}
    (out / "case.json").write_text(json.dumps(case, indent=2) + "\n")
    return {
        "id": rid,
        "framework": "verl",
        "fault": fault,
        "k": r["k"],
        "seed": r["seed"],
        "setting": r["setting"],
        "split": r["split"],
        "files": [f"{rid}/{f.name}" for f in wandb_files],
        "ownRecord": f"{rid}/own-record.jsonl.gz",
        "visible": visible,
    }


def parent_main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("--heldout", action="store_true", help="the held-out corpus (other seeds, k, one other setting)")
    ap.add_argument("--out", default=None, help=f"output folder (default {OUT_ROOT.relative_to(REPO)}; --heldout needs one, outside the repository)")
    ap.add_argument("--only", nargs="*", default=None, help="run ids to (re)make; labels.json keeps the other runs' labels")
    ap.add_argument("--jobs", type=int, default=2, help="children at once (each uses 2 // jobs torch threads)")
    ap.add_argument("--keep", action="store_true", help="keep the temporary work dir")
    ap.add_argument("--work", default=None, help="work dir to use (and keep); its model and data are reused when a previous run left them")
    ap.add_argument("--relabel", action="store_true", help="no runs: recompute the labels, case.json's label fields and README.md from the runs' folders")
    ap.add_argument("--lr-factor", type=float, default=LR_FACTOR, help="entropy_collapse: factor on the actor's learning rate")
    ap.add_argument("--kl-lr-factor", type=float, default=KL_LR_FACTOR, help="kl_drift: factor on the actor's learning rate")
    ap.add_argument("--count-python", default=str(REPO / ".venv" / "bin" / "python"), help="a Python with wandb 0.21 (count_history.py); skipped when absent")
    args = ap.parse_args(argv)
    if args.heldout and not args.out:
        raise SystemExit("--heldout needs --out DIR (a folder outside the repository)")
    out_root = Path(args.out) if args.out else OUT_ROOT
    runs = heldout_runs() if args.heldout else committed_runs()
    if args.only:
        runs = [r for r in runs if run_id(r) in set(args.only)]
        missing = set(args.only) - {run_id(r) for r in runs}
        if missing:
            raise SystemExit(f"unknown run ids: {sorted(missing)}")
    count_python = args.count_python if Path(args.count_python).exists() else None
    command = f"python {MAKER}" + (" --heldout" if args.heldout else "") + (f" --out {args.out}" if args.out else "")
    if args.relabel:
        old = json.loads((out_root / "labels.json").read_text())
        doc = labels_doc(args, command, old["versions"], old.get("makerSeconds"), old["warmStart"], [label_run(r, out_root, count_python) for r in runs if (out_root / run_id(r)).exists()])
        (out_root / "labels.json").write_text(json.dumps(doc, indent=2) + "\n")
        write_readme(out_root, doc, args)
        return
    work = Path(args.work) if args.work else Path(tempfile.mkdtemp(prefix="verl-faults-"))
    t0 = time.time()
    warm_file = work / "warm-start.json"
    if args.work and warm_file.exists():
        model_dir, data_dir, warm = work / "tiny-llama", work / "data", json.loads(warm_file.read_text())
    else:
        model_dir, data_dir = mv.build_assets(work)
        warm = warm_start(model_dir, data_dir)
        warm_file.write_text(json.dumps(warm))
    print(f"warm start: {warm} ({time.time() - t0:.0f}s)", flush=True)
    vers = mv.versions()
    out_root.mkdir(parents=True, exist_ok=True)
    threads = max(1, 2 // max(1, args.jobs))

    def one(r):
        res = start_run(r, work, model_dir, data_dir, threads, args.lr_factor, args.kl_lr_factor)
        return collect(r, work, out_root, res, vers, count_python, command, warm)

    with ThreadPoolExecutor(max_workers=args.jobs) as ex:
        labels = list(ex.map(one, runs))
    seconds = round(time.time() - t0)
    labels_path = out_root / "labels.json"
    old = json.loads(labels_path.read_text()) if labels_path.exists() else {"runs": []}
    made = {lab["id"] for lab in labels}
    order = {run_id(r): i for i, r in enumerate(heldout_runs() if args.heldout else committed_runs())}
    all_labels = sorted([lab for lab in old["runs"] if lab["id"] not in made] + labels, key=lambda lab: order.get(lab["id"], 10**6))
    doc = labels_doc(args, command, vers, seconds if not args.only else old.get("makerSeconds"), warm, all_labels)
    labels_path.write_text(json.dumps(doc, indent=2) + "\n")
    write_readme(out_root, doc, args)
    print(f"total {seconds}s for {len(runs)} runs, work dir {work}", flush=True)
    if not (args.keep or args.work):
        shutil.rmtree(work, ignore_errors=True)


def labels_doc(args, command: str, vers: dict, seconds, warm: dict, labels: list) -> dict:
    return {
        "framework": "verl",
        "maker": MAKER,
        "command": command,
        "versions": vers,
        "settings": ({SETTING["setting"]: SETTING, OTHER_SETTING["setting"]: OTHER_SETTING} if args.heldout else {SETTING["setting"]: SETTING}) | {s["setting"]: s for s in CLASS_SETTING.values()},
        "faults": {f"{fault}{' (' + variant + ')' if variant else ''}": what for fault, variant, what in FAULTS.values()},
        "visibleRules": {f: f"{key} {words}" for f, (key, _, words) in VISIBLE_RULES.items()} | {"non_finite": "any non-finite value in the row (key: critic/score/mean when it is one of them)"},
        "makerSeconds": seconds,
        "warmStart": warm,
        "runs": labels,
    }


HEALTHY_KEYS = [
    "actor/entropy",
    "response_length/clip_ratio",
    "response_length/mean",
    "actor/grad_norm",
    "critic/score/mean",
    "critic/advantages/max",
    "actor/kl_loss",
    "training/rollout_probs_diff_mean",
    "training/rollout_probs_diff_max",
    "training/rollout_actor_probs_pearson_corr",
    "rollout_corr/kl",
    "rollout_corr/k3_kl",
    "rollout_corr/log_ppl_abs_diff",
    "rollout_corr/chi2_token",
]


def _pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, round(q * (len(xs) - 1))))]


def healthy_table(out_root: Path, labels: list) -> list:
    """Typical values of the healthy runs (all steps of all healthy runs), and how often each class's
    visible-rule fires on them when applied with k = 6, 8, 10, 12 (false alarms of the labels' own rules)."""
    healthy = [lab for lab in labels if lab["fault"] == "healthy"]
    records = [read_own_record(out_root / lab["ownRecord"]) for lab in healthy]
    lines = ["| key | median | p10 - p90 | steps 1-5 median | steps 16-20 median |", "|---|---|---|---|---|"]
    for key in HEALTHY_KEYS:
        allv = [v[key] for rows in records for _, v in rows if key in v and math.isfinite(v[key])]
        early = [v[key] for rows in records for st, v in rows if st <= 5 and key in v and math.isfinite(v[key])]
        late = [v[key] for rows in records for st, v in rows if st >= 16 and key in v and math.isfinite(v[key])]
        if allv:
            lines.append(f"| `{key}` | {_fmt(statistics.median(allv))} | {_fmt(_pct(allv, 0.1))} - {_fmt(_pct(allv, 0.9))} | {_fmt(statistics.median(early))} | {_fmt(statistics.median(late))} |")
    lines += ["", "The labels' rules applied to the healthy runs with k = 6, 8, 10, 12 (a firing is a false alarm):", ""]
    lines += ["| rule | fires on healthy runs |", "|---|---|"]
    for fault in list(VISIBLE_RULES) + ["non_finite"]:
        fired = []
        for lab, rows in zip(healthy, records):
            for k in (6, 8, 10, 12):
                v = visible_of(fault, k, rows)
                if v:
                    fired.append(f"{lab['id']} k={k}: step {v['step']}")
        lines.append(f"| {fault} | {len(fired)} of {4 * len(healthy)}{': ' + '; '.join(fired) if fired else ''} |")
    return lines


def kl_setting_lines(labels: list) -> list:
    """The README paragraph of KL_SETTING, when runs of it are in the corpus."""
    kl = KL_SETTING
    if not any(lab["setting"] == kl["setting"] for lab in labels):
        return []
    return [
        f"## Setting `{kl['setting']}` (`kl_drift` and its healthy twins)",
        "",
        f"The same, but actor lr {kl['lr']} and a KL loss to a reference model: `actor.use_kl_loss=True`, `kl_loss_coef={kl['kl_loss_coef']}`,",
        f"`kl_loss_type={kl['kl_loss_type']}` (k3, the estimator TRL's KL is). verl's own `ActorRolloutRefWorker` in role `ref`",
        "(a frozen copy of the warm-started model) computes the reference log-probs each step, as `Role.RefPolicy`'s",
        "worker group does in a Ray run; verl logs `actor/kl_loss` (the KL term, token-mean over the step's mini-batches),",
        f"`actor/kl_coef` and `timing_s/ref`. The fault raises the lr x{KL_LR_FACTOR:g} from step k (to 4e-2, what x20 gives the other",
        "classes' 2e-3). Chosen on trial runs of calibrate seeds 1-3: at lr 2e-3 the healthy twins' `actor/kl_loss` reached",
        "0.22-0.48 in 20 steps (coef 0.1 or 0.05), and at coef 0.1 a raised lr (x20, x50) moved seed 1's only to 0.5-1.0.",
        "Splits: seeds 1-6 and healthy `-kl` seeds 1-3 and 16-18 are `calibrate` (seeds 4-6 and 16-18 were made as a test",
        "part, but healthy-s17-kl's `truncation_surge` at step 2, 0.56 truncated after 0.25, was seen before that rule's",
        "`min_history` became 4); seeds 10-12 and healthy `-kl` seeds 20-22, made after `kl_ref_drift` became a jump rule",
        "(round 3), are `test`.",
        "",
    ]


def write_readme(out_root: Path, doc: dict, args):
    labels = doc["runs"]
    v = doc["versions"]
    setting = SETTING
    w = doc["warmStart"]
    lines = [
        "# verl runs with injected failures (issue 37)",
        "",
        "Written by `tools/real-runs/verl/make_verl_faults.py` (with `make_verl.py`'s machinery, see",
        "[the verl makers' README](../../../../../tools/real-runs/verl/README.md)); never edit by hand, remake:",
        "",
        "```sh",
        "/tmp/verl-venv/bin/pip install -r tools/real-runs/verl/requirements.txt   # see the makers' README",
        f"/tmp/verl-venv/bin/{doc['command']}",
        "```",
        "",
        f"verl {v.get('verl')}, torch {v.get('torch')} (CPU), transformers {v.get('transformers')}, wandb {v.get('wandb')}, Python {v.get('python')}.",
        f"Maker time: {doc.get('makerSeconds')} s in all for the {len(labels)} runs, made in batches on a shared 2-core machine, two runs at a time (each 18-235 s, most of it imports and load).",
        f"Size: {sum(f.stat().st_size for f in out_root.rglob('*') if f.is_file()) / 1e6:.1f} MB gzipped (~290 KB a run plain: the .wandb ~205 KB, as verl logs ~100",
        "keys a step and wandb-core writes a full summary record beside each history record; the own record ~86 KB).",
        "",
        "Every run is verl 0.9.1's V0 trainer, `RayPPOTrainer.fit()`, unmodified, on CPU; stubbed as in make_verl.py",
        "(CPU platform, workers called in-process, tokens sampled from a copy of the actor that `WeightSync` refreshes",
        "after every update, no Ray). A fault is switched on at verl's global step k (the `step` of `Tracking.log`):",
        "every logged row is still the dict verl built, nothing is edited afterwards.",
        "",
        "## Setting (`verl-grpo`)",
        "",
        f"GRPO, {setting['total_steps']} steps, 4 prompts x `rollout.n={setting['rollout_n']}` per step (2 PPO mini-batches), `response_length={setting['response_length']}`,",
        f"actor lr {setting['lr']}, grad clip 1.0, no KL, no validation, no checkpoints; W&B offline (no TensorBoard). Reward",
        "(`compute_score` in the maker): 1 - |words - target| / target, targets 3-8 words from the prompt rows.",
        "Model: make_verl.py's tiny Llama (random init, seed 1234 for every run), then warm-started with plain torch",
        f"({w['steps']} AdamW steps of {w['batch']} sequences, lr {w['lr']}, loss {w['first_loss']} -> {w['last_loss']}) on the train prompts followed by 0-14 random words and `<eos>`: without it the random",
        "model almost never emits `<eos>` and every response hits the length limit. Seeds: the run's seed is verl's",
        "`data.seed` (shuffle) and the sampler's seed. Runs are seeded but not bit-reproducible (the sampler's requests",
        "interleave with the reward thread).",
        "",
        *kl_setting_lines(labels),
        "## Faults",
        "",
        "| fault | injected from step k | label's `visible` rule (from the own record) |",
        "|---|---|---|",
    ]
    for cls, (fault, variant, what) in FAULTS.items():
        rule = doc["visibleRules"].get(fault, "")
        lines.append(f"| `{fault}`{' (' + variant + ')' if variant else ''} | {what} | `{rule}` |")
    lines += [
        "",
        f"`entropy_collapse` uses x{args.lr_factor:g} (x10, x20, x30, x40, x50 were tried on two runs each: all of them made the model",
        "forget `<eos>` too, and the entropy fell below half its pre-k median 2 to 11 steps after k, or not within 20 steps).",
        "`visible` is null when the rule never fires (said in the table below).",
        (
            f"Split `heldout`: seeds 7 and 8 in `{SETTING['setting']}`, seed 9 in `{OTHER_SETTING['setting']}` (the same but "
            f"`rollout.n={OTHER_SETTING['rollout_n']}`, `response_length={OTHER_SETTING['response_length']}`); k in 7, 9, 11."
            if args.heldout
            else (
                "Splits, round 2: seeds 1-3 of every class and healthy seeds 1-5 and 10-15 are `calibrate` (round 1's test split, "
                "seeds 2-3 and healthy 3-5, had been scored before the rules were last changed, so it calibrates now); "
                "seeds 4-6 and healthy seeds 16-20, made after the rules were frozen, are `test`."
            )
        ),
        "",
        "## Runs",
        "",
        "| id | fault | k | split | visible |",
        "|---|---|---|---|---|",
    ]
    for lab in labels:
        vis = lab["visible"]
        vtxt = "-" if lab["fault"] == "healthy" else ("**never** (null)" if vis is None else f"step {vis['step']}, `{vis['key']}`: {vis['what']}")
        lines.append(f"| `{lab['id']}` | {lab['fault']} | {lab['k'] if lab['k'] is not None else '-'} | {lab['split']} | {vtxt} |")
    lines += ["", "## Healthy runs: typical values", ""] + healthy_table(out_root, labels)
    lines += [
        "",
        "## Files",
        "",
        "`labels.json`: one entry per run (`id`, `fault`, `k`, `seed`, `setting`, `split`, `files`, `ownRecord`, `visible`).",
        "Each `<id>/`: `run-<id>.wandb.gz` (the transaction log, original name, gzipped), `own-record.jsonl.gz` (one line",
        "per `Tracking.log` call, the dict verl passed, as make_verl.py writes it), `case.json` (versions, command, options,",
        "Hydra overrides, the fault, its variant and k, history counts from wandb 0.21's reader when available).",
        "",
    ]
    (out_root / "README.md").write_text("\n".join(lines))


# --------------------------------------------------------------------------------------------
# Child: one run. make_verl.child_main with a hook that installs the fault after init_workers.
# --------------------------------------------------------------------------------------------


def install_fault(trainer, spec):
    """Hooks around verl's calls, in this process; none of them touches what verl logs."""
    import torch

    fault, variant, k = spec["fault"], spec.get("variant"), spec.get("k")

    # verl's global step for compute_score: the reward loop runs inside generate_sequences, in this process
    mgr = trainer.async_rollout_manager
    orig_generate = mgr.generate_sequences

    def generate_sequences(*a, **kw):
        os.environ["VERL_FAULT_STEP"] = str(trainer.global_steps)
        return orig_generate(*a, **kw)

    mgr.generate_sequences = generate_sequences
    if fault == "healthy":
        return

    if fault == "mismatch":
        sync = trainer.checkpoint_manager
        orig_update = sync.update_weights
        noise_gen = torch.Generator().manual_seed(10_000 + int(spec["sampler_seed"]))

        def update_weights(global_steps=None):
            # fit() calls update_weights(t) after step t's update; step t+1 samples with what it left
            if global_steps is None or global_steps < k - 1:
                return orig_update(global_steps)
            if variant == "stale":
                return {}
            r = orig_update(global_steps)
            with torch.no_grad():
                for p in sync.rollout_model.parameters():
                    if p.numel() > 1:
                        p.add_(NOISE_REL * p.std() * torch.randn(p.shape, generator=noise_gen, dtype=p.dtype))
            return r

        sync.update_weights = update_weights

    if fault in ("entropy_collapse", "grad_spike", "kl_drift"):
        wg = trainer.actor_rollout_wg
        worker = wg.worker
        orig_update_actor = wg.update_actor
        orig_loss = worker.actor.loss_fn
        state = {"lr_raised": False}

        def spiky_loss(*a, **kw):
            loss, metrics = orig_loss(*a, **kw)
            return loss * LOSS_FACTOR, metrics

        def update_actor(data):
            step = trainer.global_steps
            if fault in ("entropy_collapse", "kl_drift") and step >= k and not state["lr_raised"]:
                engine = worker.actor.engine
                for g in engine.optimizer.param_groups:
                    g["lr"] = g["lr"] * spec["lr_factor"]
                engine.lr_scheduler.base_lrs = [b * spec["lr_factor"] for b in engine.lr_scheduler.base_lrs]
                state["lr_raised"] = True
            if fault == "grad_spike":
                worker.actor.loss_fn = spiky_loss if step == k else orig_loss
            return orig_update_actor(data)

        wg.update_actor = update_actor


def child(spec_path):
    spec = json.loads(Path(spec_path).read_text())
    mv.child_main(spec_path, after_init=lambda trainer: install_fault(trainer, spec))


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "--child":
        child(sys.argv[2])
    else:
        parent_main(sys.argv[1:])
