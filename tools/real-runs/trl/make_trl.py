"""Real TRL runs for the test corpus: TRL's own trainers train a tiny random model on CPU and log
through transformers' W&B and TensorBoard callbacks (W&B offline). Nothing here writes a history row:
every row comes from TRL, transformers and wandb.

    python tools/real-runs/trl/make_trl.py --out test/fixtures/real-runs/trl [--case NAME ...]

Each case runs in a fresh Python process (wandb keeps process state; a killed run must really die).
Per case the fixture folder gets the .wandb transaction log(s), the TensorBoard event file(s), TRL's
own record (trainer_state.json as TrainerState.save_to_json writes it, log_history included) and
case.json (versions, the exact command, the options that differ). See README.md beside this file.
"""

from __future__ import annotations

import argparse
import dataclasses
import glob
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from count_history import counted_in  # noqa: E402  (tools/real-runs/, beside this folder)
SEED = 1234

# Shared by every case: what makes the runs small enough for CPU (seconds per case).
BASE = {
    "per_device_train_batch_size": 4,
    "num_generations": 4,
    "max_completion_length": 8,
    "max_steps": 6,
    "logging_steps": 1,
    "learning_rate": 1e-3,
    "beta": 0.0,
    "loss_type": "grpo",
    "num_iterations": 1,
    "gradient_accumulation_steps": 1,
    "save_strategy": "no",
    "eval_strategy": "no",
    "temperature": 1.0,
}

# The matrix over what changes the rows (issue 26). Each case: trainer, options over BASE, rounds.
# A round is one process = one W&B run; "resume" continues from the previous round's checkpoint.
CASES: dict[str, dict] = {
    # logging_steps 1, beta 0, grpo loss, no eval: the plainest run.
    "grpo-log1": {"trainer": "grpo", "options": {}},
    # logging_steps > 1 with max_steps not a multiple of it; gradient accumulation; two iterations per
    # generation; beta > 0 (KL to a reference model); eval on; dr_grpo loss; log_completions (a table row).
    "grpo-log3-accum2-iter2-beta-eval": {
        "trainer": "grpo",
        "options": {
            "logging_steps": 3,
            "max_steps": 7,
            "gradient_accumulation_steps": 2,
            "num_iterations": 2,
            "beta": 0.04,
            "loss_type": "dr_grpo",
            "eval_strategy": "steps",
            "eval_steps": 3,
            "per_device_eval_batch_size": 4,
            "log_completions": True,
        },
        "eval": True,
    },
    # logging_steps 1 with two iterations per generation: every other optimizer step reuses the last
    # generation, so its row lacks the completion and reward keys.
    "grpo-log1-iter2": {"trainer": "grpo", "options": {"num_iterations": 2}},
    # logging_steps 4 with max_steps 6 and no eval: what the last rows hold for steps 5-6, never logged as a window.
    "grpo-log4-max6": {"trainer": "grpo", "options": {"logging_steps": 4}},
    # dapo loss, truncated completions masked, group-free reward scaling.
    "grpo-dapo-mask-truncated": {
        "trainer": "grpo",
        "options": {"loss_type": "dapo", "mask_truncated_completions": True, "scale_rewards": "batch", "logging_steps": 2},
    },
    # bnpo loss, no reward scaling.
    "grpo-bnpo-noscale": {"trainer": "grpo", "options": {"loss_type": "bnpo", "scale_rewards": "none", "max_steps": 4}},
    # Killed with SIGKILL after step 12 of 16: the transaction log ends without an exit record, cut at
    # the last 32 KiB block wandb-core had flushed (a shorter run leaves the 7-byte header only).
    "grpo-killed": {"trainer": "grpo", "options": {"max_steps": 16}, "kill_after": 12},
    # Saved a checkpoint at step 3, killed at 5; resumed from checkpoint-3 as a NEW W&B run to step 7.
    "grpo-resume-new-run": {
        "trainer": "grpo",
        "options": {"max_steps": 7, "save_strategy": "steps", "save_steps": 3},
        "kill_after": 5,
        "resume": "new-run",
    },
    # The same, resumed into the SAME W&B run id (WANDB_RESUME=allow): two transaction logs, one id.
    "grpo-resume-same-id": {
        "trainer": "grpo",
        "options": {"max_steps": 7, "save_strategy": "steps", "save_steps": 3},
        "kill_after": 5,
        "resume": "same-id",
    },
    # TRL's RLOOTrainer, when the installed TRL has it.
    "rloo-log1": {"trainer": "rloo", "options": {"max_steps": 4}},
    # GSPO (issue 39): sequence-level importance sampling with GSPO's epsilons and two iterations per
    # generation, so that the clip ratios (over sequences here) are not 0.
    "grpo-gspo": {
        "trainer": "grpo",
        "options": {"importance_sampling_level": "sequence", "epsilon": 3e-4, "epsilon_high": 4e-4, "num_iterations": 2},
    },
    # One generation feeds two optimizer steps (issue 39): with num_iterations 1 the second step's
    # policy has moved, so clip ratios are not 0 by construction (a larger step size makes them show).
    "grpo-spg2": {"trainer": "grpo", "options": {"steps_per_generation": 2, "learning_rate": 0.05}},
    # Over one epoch (no max_steps) with logging_steps 3: 16 steps, so the last interval (16) is partial
    # and logged by TRL's final log at the run's last step (issue 39: no missing-step warning).
    "grpo-epoch-log3": {
        "trainer": "grpo",
        "options": {"max_steps": -1, "num_train_epochs": 1, "per_device_train_batch_size": 8, "logging_steps": 3},
    },
}

PROMPTS = [f"{a} {b} {c}" for a in "abcd" for b in "efgh" for c in "ij"]  # 32 prompts


def versions() -> dict:
    import importlib.metadata as md

    names = ["trl", "transformers", "torch", "wandb", "tensorboard", "accelerate", "datasets", "tokenizers"]
    return {n: md.version(n) for n in names} | {"python": sys.version.split()[0]}


def build_tokenizer(path: str):
    """A word-level tokenizer trained offline with `tokenizers` (no model hub here)."""
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.WordLevel(unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    words = list("abcdefghijklmnopqrstuvwxyz0123456789")
    trainer = trainers.WordLevelTrainer(special_tokens=["<pad>", "<eos>", "<unk>"])
    tok.train_from_iterator([" ".join(words)] * 4, trainer=trainer)
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="<pad>", eos_token="<eos>", unk_token="<unk>")
    fast.padding_side = "left"
    fast.save_pretrained(path)
    return fast


def build_model(path: str, vocab: int) -> None:
    """A 2-layer Qwen2 with random weights (seeded), saved so that TRL loads it by path (and its reference copy)."""
    import torch
    from transformers import Qwen2Config, Qwen2ForCausalLM

    torch.manual_seed(SEED)
    cfg = Qwen2Config(
        vocab_size=vocab,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=64,
        tie_word_embeddings=True,
        pad_token_id=0,
        eos_token_id=1,
        bos_token_id=1,
    )
    Qwen2ForCausalLM(cfg).save_pretrained(path)


def reward_vowels(completions, **kwargs):
    """Fraction of vowels among a completion's characters (a made-up task: the numbers only need to vary)."""
    return [sum(ch in "aeiou" for ch in c) / max(1, len(c)) for c in completions]


def reward_short(completions, **kwargs):
    """Shorter completions score higher (the tokenizer has no decoder: one character per token)."""
    return [1.0 - len(c.replace(" ", "")) / 8.0 for c in completions]


class KillAfter:
    """A TrainerCallback that saves TrainerState (TRL's own record) then SIGKILLs the process after step k."""

    def __new__(cls, k: int, state_path: str):
        from transformers import TrainerCallback

        class _Kill(TrainerCallback):
            def on_step_end(self, args, state, control, **kwargs):
                if state.global_step >= k:
                    state.save_to_json(state_path)
                    os.kill(os.getpid(), signal.SIGKILL)

        return _Kill()


def run_round(spec_path: str) -> None:
    """One round in this process: the spec (JSON) says case, round, options, folders."""
    spec = json.load(open(spec_path))
    import torch
    from datasets import Dataset
    from transformers import AutoTokenizer, set_seed

    torch.set_num_threads(1)
    set_seed(SEED)
    case = CASES[spec["case"]]
    tok = AutoTokenizer.from_pretrained(spec["model"])
    train = Dataset.from_dict({"prompt": PROMPTS})
    evald = Dataset.from_dict({"prompt": PROMPTS[:8]}) if case.get("eval") else None
    common = dict(
        output_dir=spec["output_dir"],
        report_to=["wandb", "tensorboard"],
        run_name=spec["run_name"],
        seed=SEED,
        use_cpu=True,
        bf16=False,
        disable_tqdm=True,
        dataloader_num_workers=0,
    )
    if case["trainer"] == "grpo":
        from trl import GRPOConfig as Config, GRPOTrainer as Trainer
    else:
        from trl import RLOOConfig as Config, RLOOTrainer as Trainer
    # RLOOConfig has no loss_type (RLOO's own loss): pass only what the trainer's config declares.
    accepted = {f.name for f in dataclasses.fields(Config)}
    opts = {k: v for k, v in {**BASE, **case["options"]}.items() if k in accepted}
    json.dump(opts, open(spec_path + ".options.json", "w"))
    args = Config(**common, **opts)
    trainer = Trainer(
        model=spec["model"],
        reward_funcs=[reward_vowels, reward_short],
        args=args,
        train_dataset=train,
        eval_dataset=evald,
        processing_class=tok,
    )
    if spec.get("kill_after") is not None:
        trainer.add_callback(KillAfter(spec["kill_after"], spec["state_path"]))
    trainer.train(resume_from_checkpoint=spec.get("resume_from"))
    trainer.state.save_to_json(spec["state_path"])


def wandb_env(work: str, run_id: str, resume: bool) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("WANDB_")}
    env.update(
        WANDB_MODE="offline",
        WANDB_DIR=work,
        WANDB_PROJECT="real-runs-trl",
        WANDB_RUN_ID=run_id,
        WANDB_CONSOLE="off",
        WANDB_X_DISABLE_STATS="true",
        WANDB_SILENT="true",
        WANDB_CONFIG_DIR=os.path.join(work, ".config"),
        WANDB_CACHE_DIR=os.path.join(work, ".cache"),
        TENSORBOARD_LOGGING_DIR=os.path.join(work, "tb"),
        HF_HUB_OFFLINE="1",
        TOKENIZERS_PARALLELISM="false",
        PYTHONHASHSEED="0",
    )
    if resume:
        env["WANDB_RESUME"] = "allow"
    return env


def make_case(name: str, out: str, model: str, count_python: str) -> None:
    case = CASES[name]
    work = tempfile.mkdtemp(prefix=f"trl-{name}-")
    dest = os.path.join(out, name)
    shutil.rmtree(dest, ignore_errors=True)
    os.makedirs(dest)
    rounds = [("R0", None)] + ([("R1", case["resume"])] if case.get("resume") else [])
    base_id = "trl" + "".join(ch for ch in name if ch.isalnum())[:12]
    entries = []
    for i, (label, resume) in enumerate(rounds):
        run_id = base_id if resume == "same-id" or i == 0 else f"{base_id}r{i}"
        spec = {
            "case": name,
            "model": model,
            "output_dir": os.path.join(work, "out"),
            "run_name": f"{name}-{label}",
            "state_path": os.path.join(dest, f"trainer_state.{label}.json"),
            # Only the first round is killed; a resumed round runs to max_steps.
            "kill_after": case.get("kill_after") if label == "R0" else None,
        }
        if resume is not None:
            spec["resume_from"] = sorted(glob.glob(os.path.join(work, "out", "checkpoint-*")))[-1]
        spec_path = os.path.join(work, f"spec-{label}.json")
        json.dump(spec, open(spec_path, "w"))
        cmd = [sys.executable, os.path.abspath(__file__), "--round", spec_path]
        wdir = os.path.join(work, f"wandb-{label}")
        os.makedirs(wdir)
        rc = subprocess.run(cmd, env=wandb_env(wdir, run_id, resume == "same-id")).returncode
        killed = spec["kill_after"] is not None
        if rc != 0 and not (killed and rc == -signal.SIGKILL):
            raise SystemExit(f"case {name} round {label}: exit {rc}")
        files = glob.glob(os.path.join(wdir, "wandb", "offline-run-*", "*.wandb"))
        if len(files) != 1:
            raise SystemExit(f"case {name} round {label}: expected one .wandb file, found {files}")
        wandb_name = f"{label}-{os.path.basename(files[0])}"
        shutil.copyfile(files[0], os.path.join(dest, wandb_name))
        tb = sorted(glob.glob(os.path.join(wdir, "tb", "**", "events.out.tfevents.*"), recursive=True))
        tb_names = []
        for j, f in enumerate(tb):
            tb_name = f"{label}-{j}-events.out.tfevents"
            shutil.copyfile(f, os.path.join(dest, tb_name))
            tb_names.append(tb_name)
        entries.append(
            {
                "round": label,
                "wandbRunId": run_id,
                "wandbFile": wandb_name,
                "tensorboardFiles": tb_names,
                "ownRecord": os.path.basename(spec["state_path"]),
                "killedAfterStep": spec["kill_after"],
                "resumedFrom": os.path.basename(spec["resume_from"]) if resume else None,
                "resume": resume,
                **counted_in(files[0], count_python),
            }
        )
    meta = {
        "framework": "trl",
        "case": name,
        "trainer": case["trainer"],
        "versions": versions(),
        "command": f"python tools/real-runs/trl/make_trl.py --out test/fixtures/real-runs/trl --case {name}",
        "options": json.load(open(os.path.join(work, "spec-R0.json.options.json"))),
        "eval": bool(case.get("eval")),
        "rounds": entries,
        "ownRecordKind": "trainer_state.json (transformers TrainerState.save_to_json); log_history keys without the train/ prefix",
    }
    json.dump(meta, open(os.path.join(dest, "case.json"), "w"), indent=2, sort_keys=True)
    open(os.path.join(dest, "case.json"), "a").write("\n")
    shutil.rmtree(work, ignore_errors=True)
    print(f"[trl] {name}: {', '.join(e['wandbFile'] for e in entries)}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="test/fixtures/real-runs/trl")
    ap.add_argument("--case", action="append", help="case name (default: every case)")
    ap.add_argument("--count-python", default=".venv/bin/python", help="a Python with wandb 0.21 (count_history.py)")
    ap.add_argument("--round", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.round:
        run_round(a.round)
        return
    names = a.case or list(CASES)
    tmp = tempfile.mkdtemp(prefix="trl-model-")
    tok = build_tokenizer(tmp)
    build_model(tmp, len(tok))
    for name in names:
        if CASES[name]["trainer"] == "rloo":
            try:
                import trl

                getattr(trl, "RLOOTrainer")
            except AttributeError:
                print(f"[trl] {name}: skipped, this TRL has no RLOOTrainer", flush=True)
                continue
        make_case(name, a.out, tmp, a.count_python)
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
