"""Real TRL runs with a fault injected at a known step k, and healthy twins over seeds: the corpus the
health rules are measured on (issue 37). Every history row is TRL's, transformers' and wandb's own; the
fault enters only through what a user could get wrong: a reward function, the learning rate changed
by a callback, or the loss scaled for one step by a trainer subclass.

    python tools/real-runs/trl/make_trl_faults.py --out test/fixtures/real-runs/faults/trl
    python tools/real-runs/trl/make_trl_faults.py --out ../heldout-corpus/trl --heldout   # outside the repository

Set-up (make_trl.py's tokenizer and 2-layer Qwen2) plus a few hundred steps of in-process supervised
warm-up on random letter strings ending in <eos>, so that the base model stops on its own (a random
model almost never emits <eos>, and every healthy batch would be truncated). The warm-up is seeded and
the same for every run; runs differ by the training seed (sampling and data order) and the fault.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from make_trl import BASE as TRL_BASE, PROMPTS, build_model, build_tokenizer, versions, wandb_env  # noqa: E402

MAX_LEN = 12

# Shared by every run of the corpus: make_trl.py's set-up, with larger batches, longer answers and runs.
BASE = {
    **TRL_BASE,
    "per_device_train_batch_size": 8,
    "max_completion_length": MAX_LEN,
    "max_steps": 36,
    "learning_rate": 2e-3,
    "lr_scheduler_type": "constant",
}

# Settings: options over BASE. Healthy twins and faults of a class share their setting.
SETTINGS = {
    "trl-log1": {},
    # A KL term strong enough to hold a healthy policy near the reference (at beta 0.04 and lr 2e-3 the
    # healthy twins' KL wandered from 0 to 2.4 nats/token, as far as the faulty runs').
    "trl-beta": {"beta": 0.1, "learning_rate": 1e-3},
    "trl-log2": {"logging_steps": 2, "max_steps": 44},
}

# What each fault changes from step k on, and in which setting it is made.
FAULTS = {
    "entropy_collapse": {"setting": "trl-log1", "how": "learning rate x30 (2e-3 -> 6e-2) from step k, set on the optimizer and the scheduler's base lr by a callback"},
    "learning_stopped": {"setting": "trl-log1", "how": "both reward functions return 0.5 for every completion from step k: every group has zero reward variance"},
    "length_runaway": {"setting": "trl-log1", "how": "from step k the reward pays for length (tokens / max_completion_length): completions run to the limit"},
    "length_collapse": {"setting": "trl-log1", "how": "from step k the reward pays for near-empty completions (1 for at most one character, else minus the length)"},
    "non_finite": {"setting": "trl-log1", "how": "from step k the reward function reward_vowels returns NaN for every completion"},
    "grad_spike": {"setting": "trl-log1", "how": "the loss of optimizer step k is multiplied by 1000 (a GRPOTrainer subclass): its pre-clip gradient norm spikes, clipping keeps the update"},
    "kl_drift": {"setting": "trl-beta", "how": "beta 0.1, learning rate 1e-3, raised x20 from step k: the policy drifts from the reference"},
}

# (seed, k, split) per fault run. Round 2 (after round 1's test split, seeds 2-3 and healthy log1 3-6 /
# beta 2-4, had been scored): every round-1 run calibrates; the test split is new runs made after the rules
# were frozen (seeds 4-6, healthy log1 10-13 and beta 10-12).
# Round 3, kl_drift only: two healthy beta twins of round 2's test split raised kl_ref_drift, which then
# became a jump rule; round 2's kl_drift runs and beta twins calibrate, and new ones test it.
COMMITTED = {
    "faults": [(1, 10, "calibrate"), (2, 12, "calibrate"), (3, 15, "calibrate"), (4, 11, "test"), (5, 13, "test"), (6, 16, "test")],
    "healthy": {"trl-log1": [1, 2, 3, 4, 5, 6, 10, 11, 12, 13], "trl-beta": [1, 2, 3, 4, 10, 11, 12, 20, 21, 22, 23]},
    "only": {"kl_drift": [(10, 12, "test"), (11, 14, "test"), (12, 10, "test")]},
    "calibrate": {"trl-healthy-beta-s10", "trl-healthy-beta-s11", "trl-healthy-beta-s12", "trl-kl-drift-s4-k11", "trl-kl-drift-s5-k13", "trl-kl-drift-s6-k16"},
}
HELDOUT = {"faults": [(7, 8, "heldout"), (8, 14, "heldout"), (9, 18, "heldout")], "healthy": {"trl-log1": [7, 8, 9], "trl-beta": [7, 8], "trl-log2": [7, 8, 9]}}
TEST_HEALTHY_SEEDS = range(10, 30)

# The fault state the callback sets and the reward functions read (one process = one run).
STATE = {"active": False, "fault": None}


def vowel_score(c: str) -> float:
    return sum(ch in "aeiou" for ch in c) / max(1, len(c))


def chars(c: str) -> int:
    return len(c.replace(" ", ""))


def reward_vowels(completions, **kwargs):
    if STATE["active"]:
        f = STATE["fault"]
        if f == "learning_stopped":
            return [0.5] * len(completions)
        if f == "non_finite":
            return [math.nan] * len(completions)
        if f == "length_runaway":
            return [chars(c) / MAX_LEN for c in completions]
        if f == "length_collapse":
            return [1.0 if chars(c) <= 1 else -chars(c) / MAX_LEN for c in completions]
    return [vowel_score(c) for c in completions]


def reward_length(completions, **kwargs):
    """A mild pull toward answers of about 4 characters (the healthy task's second term)."""
    if STATE["active"] and STATE["fault"] in ("learning_stopped", "length_runaway", "length_collapse"):
        return [0.5] * len(completions)
    return [-abs(chars(c) - 4) / MAX_LEN for c in completions]


def warm_up(path: str) -> None:
    """Seeded supervised warm-up: prompts followed by 2-9 random letters and <eos>, so the base model stops on its own."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    torch.manual_seed(4321)
    rng = random.Random(4321)
    tok = AutoTokenizer.from_pretrained(path)
    model = AutoModelForCausalLM.from_pretrained(path)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    letters = "abcdefghijklmnopqrstuvwxyz"
    model.train()
    for _ in range(300):
        texts = [rng.choice(PROMPTS) + " " + " ".join(rng.choice(letters) for _ in range(rng.randint(2, 9))) for _ in range(32)]
        enc = [tok(t)["input_ids"] + [tok.eos_token_id] for t in texts]
        n = max(map(len, enc))
        ids = torch.tensor([[tok.pad_token_id] * (n - len(e)) + e for e in enc])
        mask = (ids != tok.pad_token_id).long()
        labels = ids.masked_fill(mask == 0, -100)
        loss = model(input_ids=ids, attention_mask=mask, labels=labels).loss
        opt.zero_grad()
        loss.backward()
        opt.step()
    model.save_pretrained(path)


def fault_callback(fault: str, k: int):
    from transformers import TrainerCallback

    factor = {"entropy_collapse": 30.0, "kl_drift": 20.0}.get(fault)

    class _Fault(TrainerCallback):
        def on_step_begin(self, args, state, control, optimizer=None, lr_scheduler=None, **kwargs):
            # global_step counts finished steps: the step about to run is global_step + 1.
            if state.global_step + 1 < k or STATE["active"]:
                return
            STATE["active"] = True
            if factor is not None:
                for g in optimizer.param_groups:
                    g["lr"] = g["lr"] * factor
                lr_scheduler.base_lrs = [b * factor for b in lr_scheduler.base_lrs]

    return _Fault()


def trainer_class(fault: str, k: int):
    from trl import GRPOTrainer

    if fault != "grad_spike":
        return GRPOTrainer

    class SpikeAtK(GRPOTrainer):
        def compute_loss(self, model, inputs, *a, **kw):
            loss = super().compute_loss(model, inputs, *a, **kw)
            return loss * 1000.0 if self.state.global_step + 1 == k else loss

    return SpikeAtK


def run_round(spec_path: str) -> None:
    spec = json.load(open(spec_path))
    import torch
    from datasets import Dataset
    from transformers import AutoTokenizer, set_seed
    from trl import GRPOConfig

    torch.set_num_threads(1)
    set_seed(spec["seed"])
    STATE["fault"] = spec["fault"]
    tok = AutoTokenizer.from_pretrained(spec["model"])
    opts = {**BASE, **SETTINGS[spec["setting"]]}
    args = GRPOConfig(
        output_dir=spec["output_dir"],
        report_to=["wandb"],
        run_name=spec["id"],
        seed=spec["seed"],
        data_seed=spec["seed"],
        use_cpu=True,
        bf16=False,
        disable_tqdm=True,
        dataloader_num_workers=0,
        **opts,
    )
    Trainer = trainer_class(spec["fault"], spec["k"] or 0)
    trainer = Trainer(model=spec["model"], reward_funcs=[reward_vowels, reward_length], args=args, train_dataset=Dataset.from_dict({"prompt": PROMPTS}), processing_class=tok)
    if spec["fault"] != "healthy":
        trainer.add_callback(fault_callback(spec["fault"], spec["k"]))
    trainer.train()
    trainer.state.save_to_json(spec["state_path"])
    json.dump(opts, open(spec_path + ".options.json", "w"))


def median(xs):
    s = sorted(xs)
    return s[len(s) // 2] if len(s) % 2 else (s[len(s) // 2 - 1] + s[len(s) // 2]) / 2


# How each fault shows in TRL's own record (log_history, keys without the train/ prefix): the key, and
# whether a logged value departs from the run's level before k.
def _departs(key, test, text):
    return {"key": key, "test": test, "text": text}


VISIBLE = {
    "entropy_collapse": _departs("entropy", lambda v, base: v < 0.5 * base, "below half its median before k"),
    "learning_stopped": _departs("frac_reward_zero_std", lambda v, base: v >= 1.0, "every group with zero reward std"),
    "length_runaway": _departs("completions/clipped_ratio", lambda v, base: v >= 0.8, "at least 80 % of completions at the length limit"),
    "length_collapse": _departs("completions/mean_length", lambda v, base: v < 0.5 * base, "below half its median before k"),
    "non_finite": _departs("rewards/reward_vowels/mean", lambda v, base: not math.isfinite(v), "not finite"),
    "grad_spike": _departs("grad_norm", lambda v, base: v > 10 * base, "over 10x its median before k"),
    "kl_drift": _departs("kl", lambda v, base: v > 3 * base + 0.01, "over 3x its median before k plus 0.01"),
}


def visible_in(state_path: str, fault: str, k: int):
    """The first logged step >= k where the fault shows in TRL's own record (trainer_state.json), with the numbers."""
    rule = VISIBLE[fault]
    # TrainerState writes a NaN metric as null.
    import gzip

    with (gzip.open if state_path.endswith(".gz") else open)(state_path, "rt") as f:
        history = json.load(f)["log_history"]
    log = [{**e, rule["key"]: math.nan if e[rule["key"]] is None else e[rule["key"]]} for e in history if "step" in e and rule["key"] in e]
    before = [e[rule["key"]] for e in log if e["step"] < k and math.isfinite(e[rule["key"]])]
    base = median(before) if before else math.nan
    for e in log:
        v = e[rule["key"]]
        if e["step"] >= k and rule["test"](v, base):
            return {"key": "train/" + rule["key"], "step": e["step"], "what": f"{v:.4g} at step {e['step']} ({rule['text']}; median before k {base:.4g})"}
    return None


def gzip_into(src: str, dest: str) -> str:
    """`dest`.gz, compressed reproducibly (no name, mtime 0): the corpus is 6x smaller (TRL logs ~7 profiling rows per step). Returns its file name; a src equal to dest is removed."""
    import gzip

    with open(src, "rb") as f, open(dest + ".gz", "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="") as gz:
        gz.write(f.read())
    if os.path.abspath(src) == os.path.abspath(dest):
        os.remove(src)
    return os.path.basename(dest) + ".gz"


def make_run(run: dict, out: str, model: str) -> dict:
    work = tempfile.mkdtemp(prefix=f"trlf-{run['id']}-")
    dest = os.path.join(out, run["id"])
    shutil.rmtree(dest, ignore_errors=True)
    os.makedirs(dest)
    spec = {**run, "model": model, "output_dir": os.path.join(work, "out"), "state_path": os.path.join(dest, "trainer_state.json")}
    spec_path = os.path.join(work, "spec.json")
    json.dump(spec, open(spec_path, "w"))
    run_id = "trlf" + "".join(ch for ch in run["id"] if ch.isalnum())[-24:]
    wdir = os.path.join(work, "wandb")
    os.makedirs(wdir)
    env = wandb_env(wdir, run_id, False) | {"WANDB_PROJECT": "real-runs-trl-faults"}
    t0 = time.time()
    rc = subprocess.run([sys.executable, os.path.abspath(__file__), "--round", spec_path], env=env).returncode
    if rc != 0:
        raise SystemExit(f"run {run['id']}: exit {rc}")
    import glob

    files = glob.glob(os.path.join(wdir, "wandb", "offline-run-*", "*.wandb"))
    if len(files) != 1:
        raise SystemExit(f"run {run['id']}: expected one .wandb file, found {files}")
    gzip_into(files[0], os.path.join(dest, os.path.basename(files[0])))
    gzip_into(spec["state_path"], spec["state_path"])
    label = label_of(run, out)  # read back from the folder, as --relabel does: one way to a label
    case = {
        "framework": "trl",
        "id": run["id"],
        "fault": run["fault"],
        "how": FAULTS.get(run["fault"], {}).get("how", "no fault"),
        "k": run["k"],
        "seed": run["seed"],
        "setting": run["setting"],
        "options": json.load(open(spec_path + ".options.json")),
        "wandbRunId": run_id,
        "seconds": round(time.time() - t0, 1),
    }
    json.dump(case, open(os.path.join(dest, "case.json"), "w"), indent=2, sort_keys=True)
    shutil.rmtree(work, ignore_errors=True)
    print(f"[trl-faults] {run['id']}: {case['seconds']} s, visible {label['visible']}", flush=True)
    return label


def corpus(plan: dict) -> list[dict]:
    runs = []
    for setting, seeds in plan["healthy"].items():
        for s in seeds:
            split = "heldout" if plan is HELDOUT else ("test" if s in TEST_HEALTHY_SEEDS else "calibrate")
            runs.append({"id": f"trl-healthy-{setting.removeprefix('trl-')}-s{s}", "fault": "healthy", "k": None, "seed": s, "setting": setting, "split": split})
    for fault, f in FAULTS.items():
        for s, k, split in plan["faults"]:
            setting = f["setting"]
            if plan is HELDOUT and fault in ("entropy_collapse", "learning_stopped", "length_runaway") and s == 9:
                setting = "trl-log2"  # held out: a coarser logging grain than any committed run
            runs.append({"id": f"trl-{fault.replace('_', '-')}-s{s}-k{k}", "fault": fault, "k": k, "seed": s, "setting": setting, "split": split})
    for fault, extra in plan.get("only", {}).items():
        for s, k, split in extra:
            runs.append({"id": f"trl-{fault.replace('_', '-')}-s{s}-k{k}", "fault": fault, "k": k, "seed": s, "setting": FAULTS[fault]["setting"], "split": split})
    for r in runs:
        if r["id"] in plan.get("calibrate", ()):
            r["split"] = "calibrate"
    return runs


def main() -> None:
    ap = argparse.ArgumentParser(description="real TRL runs with injected failures, and healthy twins")
    ap.add_argument("--round", help=argparse.SUPPRESS)
    ap.add_argument("--out", default="test/fixtures/real-runs/faults/trl")
    ap.add_argument("--heldout", action="store_true", help="the held-out plan (other seeds, steps and a logging_steps 2 setting)")
    ap.add_argument("--only", action="append", help="run id (default: every run of the plan)")
    ap.add_argument("--relabel", action="store_true", help="no runs: labels.json from the run folders under --out (the plan's splits)")
    a = ap.parse_args()
    if a.round:
        return run_round(a.round)
    plan = HELDOUT if a.heldout else COMMITTED
    if a.relabel:
        return write_labels(a, plan, [label_of(r, a.out) for r in corpus(plan) if os.path.isdir(os.path.join(a.out, r["id"]))])
    runs = [r for r in corpus(plan) if not a.only or r["id"] in a.only]
    os.makedirs(a.out, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="trlf-model-")
    tok = build_tokenizer(tmp)
    build_model(tmp, len(tok))
    warm_up(tmp)
    labels_path = os.path.join(a.out, "labels.json")
    old = json.load(open(labels_path))["runs"] if os.path.exists(labels_path) else []
    t0 = time.time()
    made = {r["id"]: make_run(r, a.out, tmp) for r in runs}
    merged = [made.get(r["id"]) or next(o for o in old if o["id"] == r["id"]) for r in corpus(plan) if r["id"] in made or any(o["id"] == r["id"] for o in old)]
    write_labels(a, plan, merged)
    shutil.rmtree(tmp, ignore_errors=True)
    print(f"[trl-faults] {len(made)} runs in {time.time() - t0:.0f} s", flush=True)


def label_of(run: dict, out: str) -> dict:
    """A made run's label from its folder (its gzipped .wandb and trainer_state.json): make_run's and --relabel's."""
    dest = os.path.join(out, run["id"])
    stored = next(f for f in sorted(os.listdir(dest)) if f.endswith(".wandb.gz"))
    state = os.path.join(dest, "trainer_state.json.gz")
    visible = None if run["fault"] == "healthy" else visible_in(state, run["fault"], run["k"])
    return {
        "id": run["id"],
        "framework": "trl",
        **{key: run[key] for key in ("fault", "k", "seed", "setting", "split")},
        "files": [f"{run['id']}/{stored}"],
        "ownRecord": f"{run['id']}/trainer_state.json.gz",
        "visible": visible,
    }


def write_labels(a, plan: dict, runs: list[dict]) -> None:
    splits = {r["id"]: r["split"] for r in corpus(plan)}
    for label in runs:
        label["split"] = splits[label["id"]]  # the plan's split wins over a label written in an earlier round
    cmd = "python tools/real-runs/trl/make_trl_faults.py --out " + ("<a folder outside the repository> --heldout" if a.heldout else "test/fixtures/real-runs/faults/trl")
    labels = {"framework": "trl", "maker": "tools/real-runs/trl/make_trl_faults.py", "command": cmd, "versions": versions(), "faults": {k: v["how"] for k, v in FAULTS.items()}, "runs": runs}
    with open(os.path.join(a.out, "labels.json"), "w") as f:
        json.dump(labels, f, indent=2)
        f.write("\n")


if __name__ == "__main__":
    main()
