#!/usr/bin/env python3
"""Remake the verl fixtures under test/fixtures/real-runs/verl/ with verl's own training loop, on CPU, offline.

    /tmp/verl-venv/bin/python tools/real-runs/verl/make_verl.py            # all cases
    /tmp/verl-venv/bin/python tools/real-runs/verl/make_verl.py plain      # one case (and the cases it needs)

What runs is verl 0.9.1's V0 trainer, `RayPPOTrainer.fit()` (verl/trainer/ppo/ray_trainer.py), unmodified,
with the real `ActorRolloutRefWorker` + FSDP engine (actor forward/backward/optimizer, PPO loss, metrics),
verl's `RLHFDataset` over parquet, verl's `AgentLoopWorker` + `SingleTurnAgentLoop`, verl's `RewardLoopWorker`
+ naive reward manager calling `compute_score` below, verl's metric functions and verl's `Tracking`
(console + wandb offline + tensorboard). Ray is imported but never started: the pieces that are Ray actors
in a real run are built in this process and called directly (see README.md for the exact list of stubs).

Each case runs in its own child process (wandb and torch.distributed are process-global).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from count_history import counted_in  # noqa: E402  (tools/real-runs/, beside this folder)

# tools/real-runs/ also holds trl/ (TRL's maker), which Python would take for a namespace package
# `trl`: verl's is_trl_available() then says yes and its monkey patch fails to import from it.
sys.path.remove(str(HERE.parent))
REPO = HERE.parents[2]
OUT_ROOT = REPO / "test" / "fixtures" / "real-runs" / "verl"
SEED = 1234
RESPONSE_LENGTH = 8
PROMPT_LENGTH = 24

# --------------------------------------------------------------------------------------------
# The reward function verl calls (reward.custom_reward_function.path points at this file).
# verl imports this file as a module, so nothing below may run at import time.
# --------------------------------------------------------------------------------------------

_FAIL_AT_CALL = None  # set in the child for the "failed" case


def compute_score(data_source, solution_str, ground_truth, extra_info=None, **kwargs):
    """Char-count reward: 1 - |len(response chars without spaces) - target| / target, plus an exact-match acc."""
    fail_after = os.environ.get("VERL_FIXTURE_FAIL_AFTER_REWARD_CALLS")
    if fail_after is not None:
        counter = globals().setdefault("_calls", [0])
        counter[0] += 1
        if counter[0] > int(fail_after):
            raise RuntimeError(f"fixture failure injected in the reward function after {fail_after} calls")
    target = int(ground_truth)
    n = len(solution_str.replace(" ", ""))
    score = max(0.0, 1.0 - abs(n - target) / max(target, 1))
    return {"score": float(score), "acc": float(n == target), "chars": float(n)}


# --------------------------------------------------------------------------------------------
# Parent: build the tiny model/tokenizer/data once, run the cases as child processes, copy outputs.
# --------------------------------------------------------------------------------------------

CASES = {
    # name: options
    "plain": dict(total_steps=4, val_before_train=False, test_freq=-1, save_freq=-1, notes="plain V0 run: 4 training steps, no validation, no checkpoint"),
    "val": dict(total_steps=4, val_before_train=True, test_freq=2, save_freq=-1, notes="val-before-train row at step 0, then validation merged into the rows of steps 2 and 4 (test_freq=2, and the last step)"),
    "ckpt": dict(total_steps=3, val_before_train=True, test_freq=2, save_freq=2, ckpt_dir="ckpt", notes="checkpoint saved at step 2 (save_freq=2) and at the last step 3; the run then ends cleanly. Its checkpoint directory global_step_2 is what `resume` starts from"),
    "resume": dict(total_steps=5, val_before_train=True, test_freq=2, save_freq=-1, ckpt_dir="ckpt", resume_from="global_step_2", needs="ckpt", notes="a NEW W&B run resuming from ckpt's global_step_2 checkpoint (trainer.resume_mode=resume_path): verl sets global_steps=2, logs a val-before-train row at step 2, then re-logs step 3 (which ckpt also logged) and continues to 5"),
    "resume-same-id": dict(
        total_steps=5,
        val_before_train=True,
        test_freq=2,
        ckpt_dir="ckpt-same-id",
        rounds=[dict(total_steps=3, save_freq=2), dict(save_freq=-1, resume_from="global_step_2", wandb_resume="allow")],
        notes="one W&B run id, two processes (a resume in place): R0 runs as ckpt (3 steps, checkpoint at 2); R1 resumes from its global_step_2 with the same WANDB_RUN_ID and WANDB_RESUME=allow, so wandb offline writes a second .wandb log of the same id. verl's Tracking passes step=global_steps, so R1's log starts at _step 2 (its val-before-train row), re-logs step 3 and goes on to 5",
    ),
    "failed": dict(total_steps=6, val_before_train=False, test_freq=-1, save_freq=-1, fail_after_reward_calls=24, notes="the reward function raises RuntimeError during step 4's rollout (after 3 x 8 reward calls): the exception propagates out of fit(), the process exits 1, wandb records a non-zero exit (state failed); rows for steps 1-3 only"),
    "rollout-corr": dict(
        total_steps=3,
        val_before_train=False,
        test_freq=-1,
        save_freq=-1,
        extra_overrides=[
            "algorithm.rollout_correction.rollout_is=token",
            "algorithm.rollout_correction.rollout_is_threshold=1.001",
            "algorithm.rollout_correction.rollout_rs=token_k1",
            "algorithm.rollout_correction.rollout_rs_threshold=0.999_1.001",
        ],
        notes="rollout correction on (decoupled mode): token-level truncated IS at 1.001 and token-level rejection sampling outside [0.999, 1.001], thresholds this tight so that the small mismatch of the CPU sampler is truncated and masked; verl then logs rollout_corr/rollout_is_* and rollout_corr/rollout_rs_* beside the off-policy metrics",
    ),
    "loss-agg-seq-norm": dict(
        total_steps=3,
        val_before_train=False,
        test_freq=-1,
        save_freq=-1,
        extra_overrides=["actor_rollout_ref.actor.loss_agg_mode=seq-mean-token-sum-norm"],
        notes="actor.loss_agg_mode=seq-mean-token-sum-norm (issue 39): verl aggregates actor/entropy with the actor's loss_agg_mode (ray_trainer.py agg_loss), so it is each sequence's summed token entropy divided by the padded response length, averaged over sequences, not the token mean",
    ),
    "one-update": dict(
        total_steps=4,
        val_before_train=False,
        test_freq=-1,
        save_freq=-1,
        ppo_mini_batch_size=4,
        notes="actor.ppo_mini_batch_size=4 = data.train_batch_size with ppo_epochs=1 (issue 39, case 6): ray_trainer.py _update_actor hands the engine mini_batch_size = ppo_mini_batch_size x rollout.n and epochs = ppo_epochs, and engine_workers.py train_mini_batch takes one optimizer step per mini-batch, so each training step is exactly one optimizer update and its actor/* metrics are that update's",
    ),
    "killed": dict(total_steps=8, val_before_train=False, test_freq=-1, save_freq=-1, kill_at_step=6, notes="the process SIGKILLs itself 3 s after verl logged step 6 (as an OOM kill or a preempted node would): no exit record; wandb-core writes the transaction log in 32 KiB blocks and dies with the process before writing its last partial block, so the .wandb holds only the rows in its complete blocks (fewer than the 6 steps in own-record.jsonl)"),
}


def sh(cmd, **kw):
    print("+", " ".join(map(str, cmd)), flush=True)
    return subprocess.run(cmd, **kw)


def build_assets(work: Path):
    """Tiny tokenizer (trained offline with `tokenizers`), tiny Llama causal LM (random init, seeded), parquet data."""
    import pandas as pd
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    model_dir = work / "tiny-llama"
    data_dir = work / "data"
    model_dir.mkdir(parents=True, exist_ok=True)
    data_dir.mkdir(parents=True, exist_ok=True)

    words = "count the letters in a b c d e f g h i j k l m n o p q r s t u v w x y z write some short word please one two three four five".split()
    corpus = [" ".join(words[(i * 7 + j) % len(words)] for j in range(8)) for i in range(200)]
    tok = Tokenizer(models.WordLevel(unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    trainer = trainers.WordLevelTrainer(special_tokens=["<pad>", "<unk>", "<eos>", "user:", "assistant:", "system:"])
    tok.train_from_iterator(corpus, trainer=trainer)
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="<unk>", pad_token="<pad>", eos_token="<eos>")
    fast.chat_template = (
        "{% for m in messages %}{{ m['role'] }}: {{ m['content'] }} {% endfor %}"
        "{% if add_generation_prompt %}assistant: {% endif %}"
    )
    fast.save_pretrained(model_dir)

    torch.manual_seed(SEED)
    cfg = LlamaConfig(
        vocab_size=len(fast),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=128,
        tie_word_embeddings=True,
        bos_token_id=fast.eos_token_id,
        eos_token_id=fast.eos_token_id,
        pad_token_id=fast.pad_token_id,
        torch_dtype="float32",
    )
    model = LlamaForCausalLM(cfg)
    model.save_pretrained(model_dir, safe_serialization=True)

    def rows(n, split, offset):
        out = []
        for i in range(n):
            target = 3 + (i + offset) % 6
            out.append(
                {
                    "data_source": "charcount",
                    "prompt": [{"role": "user", "content": f"write {words[(i + offset) % 26 + 8]} word please"}],
                    "ability": "count",
                    "reward_model": {"style": "rule", "ground_truth": str(target)},
                    "extra_info": {"split": split, "index": i},
                }
            )
        return out

    pd.DataFrame(rows(16, "train", 0)).to_parquet(data_dir / "train.parquet")
    pd.DataFrame(rows(4, "test", 100)).to_parquet(data_dir / "val.parquet")
    return model_dir, data_dir


def versions():
    from importlib.metadata import version

    out = {}
    for name in ["verl", "torch", "transformers", "wandb", "tensorboard", "tensordict", "ray", "tokenizers", "hydra-core", "numpy", "pyarrow"]:
        try:
            out[name] = version(name)
        except Exception:
            out[name] = None
    out["python"] = sys.version.split()[0]
    return out


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def run_case(name: str, work: Path, model_dir: Path, data_dir: Path) -> dict:
    opts = dict(CASES[name])
    case_dir = work / "cases" / name
    if case_dir.exists():
        shutil.rmtree(case_dir)
    case_dir.mkdir(parents=True)
    if opts.get("rounds"):
        return run_rounds(name, opts, work, case_dir, model_dir, data_dir)
    spec = dict(opts, case=name, work=str(work), case_dir=str(case_dir), model_dir=str(model_dir), data_dir=str(data_dir))
    return run_child(spec, case_dir, child_env(case_dir, f"verl-{name}"))


def run_child(spec: dict, case_dir: Path, env: dict) -> dict:
    """Runs one verl process for `spec` in `case_dir`; its return code and wall time."""
    (case_dir / "spec.json").write_text(json.dumps(spec))
    if spec.get("fail_after_reward_calls") is not None:
        env["VERL_FIXTURE_FAIL_AFTER_REWARD_CALLS"] = str(spec["fail_after_reward_calls"])
    t0 = time.time()
    with open(case_dir / "child.log", "w") as log:
        proc = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--child", str(case_dir / "spec.json")], env=env, stdout=log, stderr=subprocess.STDOUT, cwd=str(case_dir))
    return {"returncode": proc.returncode, "seconds": round(time.time() - t0, 1)}


def run_rounds(name: str, opts: dict, work: Path, case_dir: Path, model_dir: Path, data_dir: Path) -> dict:
    """A case of several processes of ONE W&B run id (case_dir/R0, R1, ...): each round's options over the case's; a round with wandb_resume sets WANDB_RESUME."""
    results = []
    for i, round_opts in enumerate(opts["rounds"]):
        round_dir = case_dir / f"R{i}"
        round_dir.mkdir()
        base = {k: v for k, v in opts.items() if k != "rounds"}
        spec = dict(base, **round_opts, case=name, work=str(work), case_dir=str(round_dir), model_dir=str(model_dir), data_dir=str(data_dir))
        env = child_env(round_dir, f"verl-{name}")
        if round_opts.get("wandb_resume"):
            env["WANDB_RESUME"] = round_opts["wandb_resume"]
        results.append(run_child(spec, round_dir, env))
    return {"returncode": max(r["returncode"] for r in results), "seconds": round(sum(r["seconds"] for r in results), 1), "rounds": results}


def child_env(case_dir: Path, run_id: str) -> dict:
    """The environment of a child: W&B offline into case_dir with a fixed run id, verl's CPU platform, no hub."""
    env = dict(os.environ)
    env.update(
        {
            "WANDB_MODE": "offline",
            "WANDB_DIR": str(case_dir),
            "WANDB_CONSOLE": "off",
            "WANDB_X_DISABLE_STATS": "true",
            "WANDB_SILENT": "true",
            "WANDB_RUN_ID": run_id,
            "WANDB_CONFIG_DIR": str(case_dir / ".wandb-config"),
            "WANDB_CACHE_DIR": str(case_dir / ".wandb-cache"),
            "TENSORBOARD_DIR": str(case_dir / "tensorboard"),
            "VERL_PLATFORM": "cpu",
            "HF_HUB_OFFLINE": "1",
            "TRANSFORMERS_OFFLINE": "1",
            "HF_DATASETS_OFFLINE": "1",
            "TOKENIZERS_PARALLELISM": "false",
            "RANK": "0",
            "LOCAL_RANK": "0",
            "WORLD_SIZE": "1",
            "LOCAL_WORLD_SIZE": "1",
            "MASTER_ADDR": "127.0.0.1",
            "MASTER_PORT": str(free_port()),
            "PYTHONHASHSEED": str(SEED),
            "CUDA_VISIBLE_DEVICES": "",
        }
    )
    return env


def rounds_of(name: str, out: Path, case: dict) -> list:
    """The case's rounds for the conformance tests: the resumed run is round R1 of a lineage whose R0 is ckpt's run."""
    keys = ("wandbRunId", "wandbFile", "historyRecords", "lastStep", "exitRecord", "tornTail")
    this = {"round": "R0", "ownRecord": "own-record.jsonl", **{k: case.get(k) for k in keys}}
    this["tensorboardFiles"] = sorted(p.name for p in out.glob("events.out.tfevents.*"))
    if name != "resume":
        return [this]
    ckpt = json.loads((out.parent / "ckpt" / "case.json").read_text())["rounds"][0]
    first = {**ckpt, "wandbFile": f"../ckpt/{ckpt['wandbFile']}", "ownRecord": "../ckpt/own-record.jsonl"}
    first["tensorboardFiles"] = [f"../ckpt/{n}" for n in ckpt["tensorboardFiles"]]
    # Resumed from ckpt's global_step_2: its own record's training entries start at step 3.
    return [first, {**this, "round": "R1", "resumedFrom": "global_step_2", "resume": "new-run"}]


def collect(name: str, work: Path, result: dict, vers: dict, count_python: str):
    opts = CASES[name]
    case_dir = work / "cases" / name
    out = OUT_ROOT / name
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    if opts.get("rounds"):
        return collect_rounds(name, case_dir, out, result, vers, count_python)
    wandb_files = sorted(case_dir.glob("wandb/offline-run-*/run-*.wandb"))
    for f in wandb_files:
        shutil.copy2(f, out / f.name)
    for f in sorted((case_dir / "tensorboard").rglob("events.out.tfevents.*")):
        shutil.copy2(f, out / f.name)
    rec = case_dir / "own-record.jsonl"
    if rec.exists():
        shutil.copy2(rec, out / "own-record.jsonl")
    extra = {}
    ex = case_dir / "extra.json"
    if ex.exists():
        extra = json.loads(ex.read_text())
    options = {k: v for k, v in opts.items() if k not in ("notes", "needs")}
    case = {
        "framework": "verl",
        "case": name,
        "versions": vers,
        "command": f"python tools/real-runs/verl/make_verl.py {name}",
        "options": options,
        "overrides": extra.get("overrides"),
        "wandbRunId": f"verl-{name}",
        "wandbFile": wandb_files[0].name if wandb_files else None,
        **(counted_in(out / wandb_files[0].name, count_python) if wandb_files else {}),
        "ownRecordRows": sum(1 for _ in open(out / "own-record.jsonl")) if (out / "own-record.jsonl").exists() else 0,
        "exitCode": result["returncode"],
        "seconds": result["seconds"],
        "notes": opts["notes"] + (("; " + extra["notes"]) if extra.get("notes") else ""),
    }
    case["rounds"] = rounds_of(name, out, case)
    (out / "case.json").write_text(json.dumps(case, indent=2) + "\n")
    print(f"[{name}] rc={result['returncode']} {result['seconds']}s -> {out} ({[p.name for p in out.iterdir()]})", flush=True)


def collect_rounds(name: str, case_dir: Path, out: Path, result: dict, vers: dict, count_python: str):
    """A case of several processes of one W&B run id: each round's files prefixed R<i>- (the .wandb logs keep one name)."""
    opts = CASES[name]
    rounds = []
    for i, round_opts in enumerate(opts["rounds"]):
        rdir, label = case_dir / f"R{i}", f"R{i}"
        (wandb_file,) = sorted(rdir.glob("wandb/offline-run-*/run-*.wandb"))
        shutil.copy2(wandb_file, out / f"{label}-{wandb_file.name}")
        tb = [f"{label}-{f.name}" for f in sorted((rdir / "tensorboard").rglob("events.out.tfevents.*"))]
        for f in sorted((rdir / "tensorboard").rglob("events.out.tfevents.*")):
            shutil.copy2(f, out / f"{label}-{f.name}")
        shutil.copy2(rdir / "own-record.jsonl", out / f"{label}-own-record.jsonl")
        counted = counted_in(out / f"{label}-{wandb_file.name}", count_python)
        resumed = round_opts.get("resume_from")
        rounds.append(
            {
                "round": label,
                "ownRecord": f"{label}-own-record.jsonl",
                "wandbRunId": f"verl-{name}",
                "wandbFile": f"{label}-{wandb_file.name}",
                **{k: counted.get(k) for k in ("historyRecords", "lastStep", "exitRecord", "tornTail")},
                "tensorboardFiles": tb,
                "resumedFrom": resumed,
                "resume": "same-id" if resumed else None,
                "exitCode": result["rounds"][i]["returncode"],
                "seconds": result["rounds"][i]["seconds"],
            }
        )
    overrides = json.loads((case_dir / f"R{len(rounds) - 1}" / "extra.json").read_text()).get("overrides")
    case = {
        "framework": "verl",
        "case": name,
        "versions": vers,
        "command": f"python tools/real-runs/verl/make_verl.py {name}",
        "options": {k: v for k, v in opts.items() if k not in ("notes", "needs")},
        "overrides": overrides,
        "wandbRunId": f"verl-{name}",
        "exitCode": result["returncode"],
        "seconds": result["seconds"],
        "notes": opts["notes"],
        "rounds": rounds,
    }
    (out / "case.json").write_text(json.dumps(case, indent=2) + "\n")
    print(f"[{name}] rc={result['returncode']} {result['seconds']}s -> {out} ({sorted(p.name for p in out.iterdir())})", flush=True)


def parent_main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("cases", nargs="*", default=list(CASES))
    ap.add_argument("--keep", action="store_true", help="keep the temporary work dir")
    ap.add_argument("--count-python", default=str(REPO / ".venv" / "bin" / "python"), help="a Python with wandb 0.21 (count_history.py)")
    args = ap.parse_args(argv)
    wanted = []
    for c in args.cases:
        need = CASES[c].get("needs")
        if need and need not in wanted:
            wanted.append(need)
        if c not in wanted:
            wanted.append(c)
    work = Path(tempfile.mkdtemp(prefix="verl-fixtures-"))
    t0 = time.time()
    model_dir, data_dir = build_assets(work)
    vers = versions()
    for name in wanted:
        res = run_case(name, work, model_dir, data_dir)
        collect(name, work, res, vers, args.count_python)
    print(f"total {time.time() - t0:.0f}s, work dir {work}", flush=True)
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)


# --------------------------------------------------------------------------------------------
# Child: one case, in its own process.
# --------------------------------------------------------------------------------------------


def _json_safe(v):
    import numpy as np
    import torch

    if isinstance(v, torch.Tensor):
        v = v.item() if v.numel() == 1 else v.tolist()
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, np.ndarray):
        v = v.tolist()
    if isinstance(v, float):
        if math.isnan(v):
            return "NaN"
        if math.isinf(v):
            return "Infinity" if v > 0 else "-Infinity"
    if isinstance(v, (list, tuple)):
        return [_json_safe(x) for x in v]
    if isinstance(v, dict):
        return {str(k): _json_safe(x) for k, x in v.items()}
    return v


def register_cpu_platform():
    """verl 0.9.1 has no CPU platform (it falls back to 'nvidia'); register one through its own plugin registry."""
    import types

    import torch
    from verl.plugin.platform.platform_base import PlatformBase
    from verl.plugin.platform.platform_manager import PlatformRegistry

    used = set()

    class _CpuDeviceModule(types.SimpleNamespace):
        @staticmethod
        def mem_get_info(*a, **k):
            import psutil

            vm = psutil.virtual_memory()
            return vm.available, vm.total

        @staticmethod
        def get_device_name(*a, **k):
            return "CPU"  # what verl's flops counter uses when the device module is torch.cpu

        def __getattr__(self, item):
            used.add(item)
            real = getattr(torch.cpu, item, None)
            if real is not None:
                return real
            return lambda *a, **k: 0

    dm = _CpuDeviceModule()

    @PlatformRegistry.register(platform="cpu")
    class PlatformCPU(PlatformBase):
        @property
        def device_name(self):
            return "cpu"

        @property
        def vendor_name(self):
            return "cpu"

        @property
        def device_module(self):
            return dm

        def is_available(self):
            return True

        def is_platform_available(self, use_smi_check=False):
            return True

        def current_device(self):
            # FSDP's device_id: an int would mean cuda:<int>
            return torch.device("cpu")

        def device_count(self):
            return 1

        def set_device(self, device_index):
            return None

        def synchronize(self, device_index=None):
            return None

        def manual_seed(self, seed):
            torch.manual_seed(seed)

        def manual_seed_all(self, seed):
            torch.manual_seed(seed)

        def set_allocator_settings(self, settings):
            return None

        def empty_cache(self):
            return None

        def get_device_capability(self, device_index=0):
            return None, None

        def communication_backend_name(self):
            return "gloo"

        def visible_devices_envvar(self):
            return "CUDA_VISIBLE_DEVICES"

        def ray_resource_name(self):
            return "CPU"

        def ray_noset_envvars(self):
            return []

        def is_ipc_supported(self):
            return False

        @contextlib.contextmanager
        def nvtx_range(self, msg):
            yield

        def profiler_start(self):
            return None

        def profiler_stop(self):
            return None

        @property
        def cudart(self):
            return None

    return used


class LocalActor:
    """Stands in for a Ray async actor handle: the real object lives in this process with its own event loop on its
    own thread (as a Ray async actor has); `handle.method.remote(...)` schedules the real method there and returns
    an awaitable, as Ray's ObjectRef is."""

    def __init__(self, factory):
        import asyncio
        import threading

        self._loop = asyncio.new_event_loop()
        t = threading.Thread(target=self._loop.run_forever, daemon=True)
        t.start()

        async def build():
            return factory()

        self._obj = asyncio.run_coroutine_threadsafe(build(), self._loop).result()

    def __getattr__(self, item):
        import asyncio
        import inspect

        fn = getattr(self._obj, item)
        loop = self._loop

        class _Call:
            @staticmethod
            def remote(*args, **kwargs):
                async def call():
                    r = fn(*args, **kwargs)
                    if inspect.isawaitable(r):
                        r = await r
                    return r

                return asyncio.wrap_future(asyncio.run_coroutine_threadsafe(call(), loop))

        return _Call()


class InProcessWorkerGroup:
    """Stands in for RayWorkerGroup with one rank: the trainer's wg.method(data) calls the real worker's method."""

    def __init__(self, worker):
        self.worker = worker
        self.world_size = 1
        self._dispatch_info = {}

    def _query_dispatch_info(self, role):
        return [0]

    def init_model(self):
        return self.worker.init_model()

    def compute_log_prob(self, data):
        return self.worker.compute_log_prob(data)

    def compute_ref_log_prob(self, data):
        return self.worker.compute_ref_log_prob(data)

    def update_actor(self, data):
        return self.worker.update_actor(data)

    def save_checkpoint(self, *a, **k):
        return self.worker.save_checkpoint(*a, **k)

    def load_checkpoint(self, *a, **k):
        return self.worker.load_checkpoint(*a, **k)

    def start_profile(self, **kw):
        return None

    def stop_profile(self, **kw):
        return None


class TinyRolloutClient:
    """Stands in for the vLLM/SGLang server behind LLMServerClient: samples token by token from a copy of the
    actor's current weights (copied from verl's FSDP engine by `WeightSync.update_weights`)."""

    def __init__(self, model, response_length, seed):
        import torch

        self.model = model
        self.response_length = response_length
        self.gen = torch.Generator().manual_seed(seed)
        self.tokenizer = None

    async def generate(self, request_id, *, prompt_ids, sampling_params, priority=0, **kwargs):
        import torch
        from verl.workers.rollout.replica import TokenOutput

        temperature = float(sampling_params.get("temperature", 1.0))
        top_k = int(sampling_params.get("top_k", -1))
        eos = self.model.config.eos_token_id
        ids = torch.tensor([list(prompt_ids)], dtype=torch.long)
        out_ids, out_lp = [], []
        with torch.no_grad():
            for _ in range(self.response_length):
                logits = self.model(input_ids=ids).logits[0, -1].float()
                if temperature <= 0:
                    logp = torch.log_softmax(logits, -1)
                    tok = int(torch.argmax(logits))
                else:
                    logits = logits / temperature
                    if top_k > 0:
                        kth = torch.topk(logits, top_k).values[-1]
                        logits = torch.where(logits < kth, torch.full_like(logits, -float("inf")), logits)
                    logp = torch.log_softmax(logits, -1)
                    tok = int(torch.multinomial(logp.exp(), 1, generator=self.gen))
                out_ids.append(tok)
                out_lp.append(float(logp[tok]))
                ids = torch.cat([ids, torch.tensor([[tok]])], dim=1)
                if tok == eos:
                    break
        return TokenOutput(
            token_ids=out_ids,
            log_probs=out_lp if sampling_params.get("logprobs") else None,
            stop_reason="completed",
            num_preempted=0,
        )


class WeightSync:
    """Stands in for CheckpointEngineManager (naive backend): update_weights copies the actor's weights, as verl's
    FSDP engine exports them (`engine.get_per_tensor_param()`), into the rollout copy; sleep_replicas is a no-op."""

    def __init__(self, engine, rollout_model):
        self.engine = engine
        self.rollout_model = rollout_model

    def update_weights(self, global_steps=None):
        import torch

        gen, _ = self.engine.get_per_tensor_param()
        sd = self.rollout_model.state_dict()
        with torch.no_grad():
            for name, t in gen:
                if name in sd:
                    sd[name].copy_(t.to(sd[name].dtype).reshape(sd[name].shape))
        return {}

    def sleep_replicas(self):
        return None


def child_main(spec_path, after_init=None):
    """One case. `after_init(trainer)`, when given, runs after init_workers and before fit (make_verl_faults.py)."""
    spec = json.loads(Path(spec_path).read_text())
    case_dir = Path(spec["case_dir"])
    name = spec["case"]
    os.chdir(case_dir)

    import random

    import numpy as np
    import torch

    random.seed(SEED)
    np.random.seed(SEED)
    torch.manual_seed(SEED)
    torch.set_num_threads(int(spec.get("threads", 2)))

    used_device_fns = register_cpu_platform()

    # verl registers its FSDP engines for device cuda/npu only; register the same class for device "cpu".
    from verl.workers.engine.base import EngineRegistry
    from verl.workers.engine.fsdp.transformer_impl import FSDPEngineWithLMHead

    @EngineRegistry.register(model_type="language_model", backend=["fsdp", "fsdp2"], device="cpu")
    class CpuFSDPEngineWithLMHead(FSDPEngineWithLMHead):
        """verl's FSDPEngineWithLMHead, unchanged, registered for device='cpu'."""

    # verl's FSDP2 engine puts a forward-only model (the reference policy) under CPUOffloadPolicy(pin_memory=True);
    # pinned host memory needs a CUDA driver. On the CPU platform the parameters live in host memory anyway:
    # the same policy, unpinned.
    from verl.utils.fsdp_utils import CPUOffloadPolicy
    from verl.workers.engine.fsdp import transformer_impl

    transformer_impl.CPUOffloadPolicy = lambda pin_memory=True: CPUOffloadPolicy(pin_memory=False)

    import torch.distributed as dist

    if not dist.is_initialized():
        dist.init_process_group(backend="gloo", rank=0, world_size=1)

    from hydra import compose, initialize_config_dir

    import verl

    cfg_dir = str(Path(verl.__file__).parent / "trainer" / "config")
    steps = spec["total_steps"]
    overrides = [
        f"actor_rollout_ref.model.path={spec['model_dir']}",
        "actor_rollout_ref.model.use_remove_padding=False",
        "+actor_rollout_ref.model.override_config.attn_implementation=sdpa",
        "actor_rollout_ref.actor.use_torch_compile=False",
        "actor_rollout_ref.actor.strategy=fsdp2",
        "actor_rollout_ref.ref.strategy=fsdp2",
        "actor_rollout_ref.ref.use_torch_compile=False",
        f"actor_rollout_ref.actor.ppo_mini_batch_size={spec.get('ppo_mini_batch_size', 2)}",
        "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=2",
        "actor_rollout_ref.actor.ppo_epochs=1",
        f"actor_rollout_ref.actor.optim.lr={spec.get('lr', '1e-3')}",
        f"actor_rollout_ref.actor.use_kl_loss={bool(spec.get('use_kl_loss', False))}",
        "actor_rollout_ref.actor.entropy_coeff=0",
        "actor_rollout_ref.actor.fsdp_config.param_offload=False",
        "actor_rollout_ref.actor.fsdp_config.optimizer_offload=False",
        "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=4",
        "actor_rollout_ref.rollout.name=vllm",
        f"actor_rollout_ref.rollout.n={spec.get('rollout_n', 2)}",
        f"actor_rollout_ref.rollout.response_length={spec.get('response_length', RESPONSE_LENGTH)}",
        f"actor_rollout_ref.rollout.prompt_length={PROMPT_LENGTH}",
        "actor_rollout_ref.rollout.temperature=1.0",
        "actor_rollout_ref.rollout.agent.num_workers=1",
        "actor_rollout_ref.rollout.val_kwargs.n=2",
        "actor_rollout_ref.rollout.val_kwargs.do_sample=True",
        "actor_rollout_ref.rollout.val_kwargs.temperature=1.0",
        f"data.train_files={spec['data_dir']}/train.parquet",
        f"data.val_files={spec['data_dir']}/val.parquet",
        "data.train_batch_size=4",
        f"data.max_prompt_length={PROMPT_LENGTH}",
        f"data.max_response_length={spec.get('response_length', RESPONSE_LENGTH)}",
        "data.dataloader_num_workers=0",
        f"data.seed={spec.get('data_seed', SEED)}",
        "algorithm.adv_estimator=grpo",
        f"reward.custom_reward_function.path={spec.get('reward_path', Path(__file__).resolve())}",
        f"reward.custom_reward_function.name={spec.get('reward_name', 'compute_score')}",
        "reward.num_workers=1",
        "trainer.device=cpu",
        "trainer.n_gpus_per_node=1",
        "trainer.nnodes=1",
        f"trainer.logger=[{spec.get('loggers', 'console,wandb,tensorboard')}]",
        f"trainer.project_name={spec.get('project', 'verl-real-runs')}",
        f"trainer.experiment_name={name}",
        f"trainer.total_training_steps={steps}",
        "trainer.total_epochs=100",
        f"trainer.val_before_train={spec.get('val_before_train', False)}",
        f"trainer.test_freq={spec.get('test_freq', -1)}",
        f"trainer.save_freq={spec.get('save_freq', -1)}",
        f"trainer.use_v1={spec.get('use_v1', False)}",
        *spec.get("extra_overrides", []),
    ]
    if spec.get("use_kl_loss"):
        # KL loss against a reference model (need_reference_policy): verl's own worker in role "ref" computes it
        overrides += [
            f"actor_rollout_ref.actor.kl_loss_coef={spec['kl_loss_coef']}",
            f"actor_rollout_ref.actor.kl_loss_type={spec['kl_loss_type']}",
            "actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=4",
        ]
    ckpt_dir = spec.get("ckpt_dir")
    if ckpt_dir:
        overrides.append(f"trainer.default_local_dir={Path(spec['work']) / ckpt_dir}")
    if spec.get("resume_from"):
        overrides += ["trainer.resume_mode=resume_path", f"trainer.resume_from_path={Path(spec['work']) / ckpt_dir / spec['resume_from']}"]
    else:
        overrides.append("trainer.resume_mode=disable")

    with initialize_config_dir(config_dir=cfg_dir, version_base=None):
        config = compose(config_name="ppo_trainer", overrides=overrides)

    extra = {"overrides": [o for o in overrides if not o.startswith(("actor_rollout_ref.model.path=", "data.train_files=", "data.val_files=", "reward.custom_reward_function.path=", "trainer.default_local_dir=", "trainer.resume_from_path="))]}

    # own record: the exact dict verl hands to Tracking.log(data=..., step=...)
    from verl.utils import tracking as tracking_mod

    rec_path = case_dir / "own-record.jsonl"
    rec = open(rec_path, "w")
    kill_at = spec.get("kill_at_step")
    holder = {}
    orig_log = tracking_mod.Tracking.log
    orig_init = tracking_mod.Tracking.__init__

    def init_wrapper(self, *a, **k):
        orig_init(self, *a, **k)
        holder["tracking"] = self

    def log_wrapper(self, data, step, backend=None):
        rec.write(json.dumps({"step": _json_safe(step), "data": _json_safe(dict(data))}, allow_nan=False) + "\n")
        rec.flush()
        r = orig_log(self, data=data, step=step, backend=backend)
        if kill_at is not None and step == kill_at:
            # the wandb service process keeps writing what it has; give it a moment, as a real kill would not
            time.sleep(3)
            os.kill(os.getpid(), signal.SIGKILL)
        return r

    tracking_mod.Tracking.__init__ = init_wrapper
    tracking_mod.Tracking.log = log_wrapper

    def write_extra(notes=None):
        if notes:
            extra["notes"] = notes
        extra["cpu_device_module_fallbacks"] = sorted(used_device_fns)
        (case_dir / "extra.json").write_text(json.dumps(extra, indent=2))

    write_extra()  # now, so that a killed run has it too
    try:
        run_v0(config, spec, after_init)
    except BaseException:
        write_extra()
        rec.close()
        raise
    write_extra()
    rec.close()
    t = holder.get("tracking")
    if t is not None:
        t.finish(exit_code=0)


def run_v0(config, spec, after_init=None):
    from omegaconf import OmegaConf, open_dict

    from verl.trainer.ppo.ray_trainer import RayPPOTrainer, Role
    from verl.trainer.ppo.utils import create_rl_dataset, create_rl_sampler, need_critic, need_reference_policy
    from verl.utils.config import omega_conf_to_dataclass, validate_config
    from verl.utils.dataset.rl_dataset import collate_fn
    from verl.workers.config import HFModelConfig

    OmegaConf.resolve(config)
    validate_config(config=config, use_reference_policy=need_reference_policy(config), use_critic=need_critic(config))
    model_config: HFModelConfig = omega_conf_to_dataclass(config.actor_rollout_ref.model)
    tokenizer = model_config.tokenizer
    train_dataset = create_rl_dataset(config.data.train_files, config.data, tokenizer, None, is_train=True, max_samples=-1)
    val_dataset = create_rl_dataset(config.data.val_files, config.data, tokenizer, None, is_train=False, max_samples=-1)
    train_sampler = create_rl_sampler(config.data, train_dataset)

    class _Pool:
        def get_n_gpus(self):
            return 1

    class CpuPPOTrainer(RayPPOTrainer):
        def init_workers(self):
            """In-process replacement for RayPPOTrainer.init_workers (which spawns Ray actors)."""
            from transformers import AutoModelForCausalLM

            from verl.experimental.agent_loop import AgentLoopManager
            from verl.experimental.agent_loop.agent_loop import AgentLoopWorker
            from verl.experimental.reward_loop.reward_loop import RewardLoopWorker
            from verl.workers.engine_workers import ActorRolloutRefWorker

            self.ref_policy_wg = None
            if self.use_reference_policy and not self.ref_in_actor:
                # verl's Role.RefPolicy path (ray_trainer.init_workers: all_wg["ref"].init_model(), before the
                # actor): the same ActorRolloutRefWorker class in role "ref", a frozen copy of the initial
                # model whose compute_ref_log_prob fit() calls every step. main_ppo_v0 fuses it into the
                # actor's worker (role "actor_rollout_ref"), which would also build the rollout engine.
                ref_worker = ActorRolloutRefWorker(config=self.config.actor_rollout_ref, role=str(Role.RefPolicy))
                self.ref_policy_wg = InProcessWorkerGroup(ref_worker)
                self.ref_policy_wg.init_model()
            worker = ActorRolloutRefWorker(config=self.config.actor_rollout_ref, role="actor")
            self.actor_rollout_wg = InProcessWorkerGroup(worker)
            self.actor_rollout_wg.init_model()
            if self.ref_in_actor:
                self.ref_policy_wg = self.actor_rollout_wg

            rollout_model = AutoModelForCausalLM.from_pretrained(self.config.actor_rollout_ref.model.path, torch_dtype="float32")
            rollout_model.eval()
            self.checkpoint_manager = WeightSync(worker.actor.engine, rollout_model)

            cfg = self.config
            self.reward_loop_manager = None
            handles = [LocalActor(lambda: RewardLoopWorker(cfg, None))]
            llm_client = TinyRolloutClient(rollout_model, self.config.actor_rollout_ref.rollout.response_length, spec.get("sampler_seed", SEED))

            class InProcessAgentLoopManager(AgentLoopManager):
                async def _init_agent_loop_workers(self):
                    self.agent_loop_workers = [LocalActor(lambda: AgentLoopWorker(self.config, self.llm_client, self.teacher_client, self.reward_loop_worker_handles))]

            self.async_rollout_mode = True
            self.teacher_model_manager = None
            self.distillation_config = None
            self.async_rollout_manager = InProcessAgentLoopManager.create(config=self.config, llm_client=llm_client, teacher_client=None, reward_loop_worker_handles=handles)
            self.checkpoint_manager.sleep_replicas()

    trainer = CpuPPOTrainer(
        config=config,
        tokenizer=tokenizer,
        processor=None,
        role_worker_mapping={Role.ActorRollout: object, **({Role.RefPolicy: object} if need_reference_policy(config) else {})},
        resource_pool_manager=_Pool(),
        ray_worker_group_cls=None,
        train_dataset=train_dataset,
        val_dataset=val_dataset,
        collate_fn=collate_fn,
        train_sampler=train_sampler,
        device_name="cpu",
    )
    trainer.init_workers()
    if after_init is not None:
        after_init(trainer)
    trainer.fit()


def probe_v1():
    """trainer.use_v1=True (the 0.9.x default) goes through main_ppo.TaskRunnerV1: `import transfer_queue` and
    `tq.init(config.transfer_queue)`, whose controller is a Ray actor (ray.get on it). Report how far it gets
    here without starting Ray; no fixture is written."""
    steps = []
    try:
        import transfer_queue as tq  # noqa: F401

        steps.append("import transfer_queue: ok")
    except Exception as e:
        steps.append(f"import transfer_queue: {e!r} (TransferQueue is in verl's 'verl-core' extra, not a dependency of verl==0.9.1)")
        print("\n".join(steps))
        return 1
    try:
        from verl.trainer.ppo.v1 import get_trainer_cls

        steps.append(f"verl.trainer.ppo.v1 imports: trainer_mode sync -> {get_trainer_cls('sync').__name__}")
    except Exception as e:
        steps.append(f"import verl.trainer.ppo.v1: {e!r}")
    import ray

    steps.append(
        f"ray.is_initialized() = {ray.is_initialized()}; not going further: TaskRunnerV1.run calls tq.init(config.transfer_queue), "
        "which ray.get()s on TransferQueue's controller actor (a Ray actor), so Ray auto-starts a local cluster "
        "(tried with transferqueue 0.1.11: it started Ray and spawned TransferQueueController/SimpleStorage actors)"
    )
    print("\n".join(steps))
    return 0


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "--child":
        child_main(sys.argv[2])
    elif len(sys.argv) >= 2 and sys.argv[1] == "--probe-v1":
        sys.exit(probe_v1())
    else:
        parent_main(sys.argv[1:])
