#!/usr/bin/env python3
"""Make the OpenRLHF real-run fixtures (issue 26): OpenRLHF 0.11.2's own code writes them, on CPU, offline.

    python3 tools/real-runs/openrlhf/make_openrlhf.py            # all cases -> test/fixtures/real-runs/openrlhf/
    python3 tools/real-runs/openrlhf/make_openrlhf.py --case plain

What runs for real: OpenRLHF's CLI argument parser and validation (the `__main__` block of
openrlhf/cli/train_ppo_ray.py), `train()` itself, PPOTrainer (its __init__, fit, train_step,
evaluate, save_logs_and_checkpoints, compute_eval_metrics), RemoteExperienceMaker, SamplesGenerator,
SingleTurnAgentExecutor with a reward_func file, RolloutRayActor's generate/generate_responses,
PolicyModelActor / ReferenceModelActor / RayActorGroup, ActorPPOTrainer.ppo_train/training_step,
PolicyLoss, the replay buffer, DeepspeedStrategy (prepare, scheduler, all_reduce over a 1-rank gloo
group, save_ckpt/load_ckpt), PromptDataset/blending_datasets on local jsonl, and WandbLogger /
TensorboardLogger writing the files. A tiny random Llama (built here, seeded) is the model.

What is stubbed (no GPU, no Ray cluster, no vLLM, no DeepSpeed engine on this machine): see
README.md beside this file and `install_stubs()` below.
"""

from __future__ import annotations

import argparse
import ast
import asyncio
import copy
import dataclasses
import enum
import glob
import inspect
import json
import math
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import types
import uuid
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
OUT_ROOT = REPO / "test" / "fixtures" / "real-runs" / "openrlhf"
sys.path.insert(0, str(HERE.parent))
from count_history import counted_in  # noqa: E402  (tools/real-runs/, beside this folder)
SEED = 42
DUMMY_KEY = "offline0fixture0key0not0a0secret000000000"  # wandb needs *a* key; never sent anywhere

CASES = {
    # name: (wandb run id, extra OpenRLHF CLI flags, kill after this global_step or None)
    "plain": ("orlplain1", ["--actor.entropy_coef", "0"], None),
    "killed": ("orlkill01", ["--ckpt.save_steps", "2"], 3),
    "resumed": ("orlresum1", ["--ckpt.save_steps", "2", "--ckpt.load_enable"], None),
    "is-correction": (
        "orliscor1",
        ["--algo.advantage.is_correction_level", "token", "--algo.advantage.is_correction_threshold", "0.99", "1.01"],
        None,
    ),
    # issue 39: the settings that change what train/reward and the pass rate are
    "penalties": ("orlpenal1", ["--reward.overlong_buffer_len", "4", "--reward.stop_properly_penalty_coef", "0.5"], None),
    "dynamic-filter": ("orldynfl1", ["--algo.dynamic_filtering_enable", "--algo.dynamic_filtering_range", "-0.5", "0.25"], None),
    "frozen": ("orlfrozn1", ["--critic.freezing_steps", "2"], None),
}
NOTES = {
    "plain": "5 training steps (one rollout batch each: 2 prompts x 2 samples), eval every 2 steps (steps 2 and 4), "
    "--actor.entropy_coef 0 so train/entropy_loss is logged without changing the loss; clean wandb.finish().",
    "killed": "Same data/settings without entropy; checkpoint every 2 steps; the process is SIGKILLed right after "
    "OpenRLHF logged global_step 3 (17 s after, past wandb-core's 15 s transaction-log flush, so the records it "
    "had received are on disk): the .wandb log has no exit record; TensorBoard keeps only what its writer had flushed.",
    "is-correction": "As plain without entropy, with OpenRLHF's vLLM importance-sampling correction per token "
    "(--algo.advantage.is_correction_level token, mask mode, ratio gating, thresholds 0.99 and 1.01): the sampler "
    "returns the log-prob of each sampled token (vLLM's processed log-probs) from its bfloat16 copy of the weights, "
    "the trainer scores in float32, so train/vllm_kl and train/is_filter_ratio measure a real precision mismatch.",
    "penalties": "As plain without entropy, with both length penalties: DAPO's overlong penalty past 8 - 4 tokens "
    "(--reward.overlong_buffer_len 4) and ProRL's stop-properly penalty scaling truncated samples' rewards by 0.5 "
    "(--reward.stop_properly_penalty_coef 0.5): the logged reward is the penalised one (length_penalty.py syncs info['reward']).",
    "dynamic-filter": "As plain without entropy, with dynamic filtering (--algo.dynamic_filtering_enable, range (-0.5, 0.25)): "
    "a prompt whose 2 samples' mean score is 0.5 or more is dropped and replaced; dynamic_filtering_pass_rate is "
    "kept samples per prompt consumed x 100 (up to 200 here).",
    "frozen": "As plain without entropy, with --critic.freezing_steps 2 (no critic: group_norm): the actor is not trained "
    "while global_step <= 2 before the step, so its status keys (train/reward, train/policy_loss, ...) are logged "
    "only in the later steps, while train/rollout/* are logged at every step.",
    "resumed": "Restart of the killed run: --ckpt.load_enable restores global_step 2 (and the dataloader state) from "
    "the killed run's checkpoint; OpenRLHF opens a NEW W&B run (no resume id) and re-logs steps 3..5 plus eval at 4.",
}


# --------------------------------------------------------------------------------------------
# Stubs: the smallest pieces that cannot run on a CPU-only machine without Ray/vLLM/DeepSpeed.
# --------------------------------------------------------------------------------------------


class _Method:
    def __init__(self, fn):
        self.fn = fn

    def remote(self, *args, **kwargs):
        result = self.fn(*args, **kwargs)
        if inspect.iscoroutine(result):
            result = asyncio.run(result)
        return result


class LocalHandle:
    """In-process stand-in for a Ray actor handle: `handle.method.remote(...)` runs the method now."""

    def __init__(self, obj):
        object.__setattr__(self, "_obj", obj)

    def __getattr__(self, name):
        return _Method(getattr(self._obj, name))


class _ActorClass:
    """What `@ray.remote` returns for a class: `.options(...).remote(*a)` builds the object in-process."""

    def __init__(self, cls):
        self.cls = cls
        self.__name__ = cls.__name__
        self.__ray_actor_class__ = cls

    def options(self, **_kwargs):
        return self

    def remote(self, *args, **kwargs):
        obj = self.cls.__new__(self.cls)
        init = self.cls.__init__(obj, *args, **kwargs)
        if inspect.iscoroutine(init):  # RolloutRayActor has an async __init__ (Ray allows it)
            asyncio.run(init)
        return LocalHandle(obj)


def _fake_ray():
    ray = types.ModuleType("ray")
    ray.__version__ = "2.55.0-inprocess-stub"

    def remote(*args, **kwargs):
        if len(args) == 1 and not kwargs:
            target = args[0]
            return _ActorClass(target) if isinstance(target, type) else target
        return lambda target: _ActorClass(target) if isinstance(target, type) else target

    def get(x, timeout=None):
        if isinstance(x, list):
            return [get(i) for i in x]
        return x

    ray.remote = remote
    ray.get = get
    ray.put = lambda x: x
    ray.wait = lambda refs, num_returns=1, timeout=None: (list(refs[:num_returns]), list(refs[num_returns:]))
    ray.is_initialized = lambda: True
    ray.init = lambda *a, **k: None
    ray.get_gpu_ids = lambda: [0]

    util = types.ModuleType("ray.util")
    pg_mod = types.ModuleType("ray.util.placement_group")

    class PlacementGroup:
        def __init__(self, bundles=None, strategy=None):
            self.bundles = bundles

        def ready(self):
            return None

    pg_mod.PlacementGroup = PlacementGroup
    pg_mod.placement_group = lambda bundles, strategy="PACK", **k: PlacementGroup(bundles, strategy)
    ss_mod = types.ModuleType("ray.util.scheduling_strategies")

    class PlacementGroupSchedulingStrategy:
        def __init__(self, **kwargs):
            self.kwargs = kwargs

    ss_mod.PlacementGroupSchedulingStrategy = PlacementGroupSchedulingStrategy
    q_mod = types.ModuleType("ray.util.queue")

    class Queue(list):
        pass

    q_mod.Queue = Queue
    util.placement_group = pg_mod
    util.scheduling_strategies = ss_mod
    util.queue = q_mod
    util.placement_group_table = lambda pg: {"bundles_to_node_id": {i: "node0" for i in range(len(pg.bundles or []))}}
    ray.util = util
    private = types.ModuleType("ray._private")
    services = types.ModuleType("ray._private.services")
    services.get_node_ip_address = lambda: "127.0.0.1"
    private.services = services
    ray._private = private
    for name, mod in {
        "ray": ray,
        "ray.util": util,
        "ray.util.placement_group": pg_mod,
        "ray.util.scheduling_strategies": ss_mod,
        "ray.util.queue": q_mod,
        "ray._private": private,
        "ray._private.services": services,
    }.items():
        sys.modules[name] = mod


@dataclasses.dataclass
class SamplingParams:  # the fields OpenRLHF sets on vllm.SamplingParams
    temperature: float = 1.0
    top_p: float = 1.0
    top_k: int = -1
    max_tokens: int | None = None
    min_tokens: int = 0
    skip_special_tokens: bool = True
    logprobs: int | None = None


@dataclasses.dataclass
class CompletionOutput:
    token_ids: list
    finish_reason: str
    logprobs: list | None = None


@dataclasses.dataclass
class RequestOutput:
    outputs: list


class HFGenerateEngine:
    """Stand-in for vllm.AsyncLLMEngine: samples with Hugging Face `generate` from the same weights.

    Its weights are the policy's: OpenRLHF's NCCL broadcast to vLLM is replaced by `sync_from` (a state_dict copy).
    """

    def __init__(self, model_path, seed, max_model_len):
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        self.model = AutoModelForCausalLM.from_pretrained(model_path, dtype=torch.bfloat16, attn_implementation="eager")
        self.model.eval()
        self.tokenizer = AutoTokenizer.from_pretrained(model_path)
        self.generator = torch.Generator().manual_seed(seed)
        self.max_model_len = max_model_len
        self.output_processor = types.SimpleNamespace(get_num_unfinished_requests=lambda: 0)

    async def is_sleeping(self):
        return False

    def sync_from(self, hf_module):
        self.model.load_state_dict(hf_module.state_dict())

    async def generate(self, prompt, sampling_params, request_id=None):
        import torch

        ids = list(prompt["prompt_token_ids"])
        eos = self.tokenizer.eos_token_id
        max_tokens = sampling_params.max_tokens or (self.max_model_len - len(ids))
        out = []
        logprobs = []
        with torch.no_grad():
            for i in range(max_tokens):
                logits = self.model(torch.tensor([ids + out])).logits[0, -1].float()
                if i < (sampling_params.min_tokens or 0):
                    logits[eos] = -float("inf")
                if sampling_params.temperature and sampling_params.temperature > 0:
                    probs = torch.softmax(logits / sampling_params.temperature, -1)
                    tok = int(torch.multinomial(probs, 1, generator=self.generator))
                else:
                    tok = int(logits.argmax())
                out.append(tok)
                if sampling_params.logprobs is not None:
                    # vLLM's processed log-probs: of the distribution sampled from (after temperature),
                    # one dict per token, the sampled token's entry read by openrlhf/utils/agent.py.
                    scaled = logits / sampling_params.temperature if sampling_params.temperature else logits
                    lp = float(torch.log_softmax(scaled, -1)[tok])
                    logprobs.append({tok: types.SimpleNamespace(logprob=lp)})
                if tok == eos:
                    break
        finish = "stop" if out and out[-1] == eos else "length"
        yield RequestOutput(outputs=[CompletionOutput(token_ids=out, finish_reason=finish, logprobs=logprobs if sampling_params.logprobs is not None else None)])


def _fake_vllm():
    vllm = types.ModuleType("vllm")
    vllm.__version__ = "0.29.0"
    vllm.SamplingParams = SamplingParams

    class AsyncEngineArgs:
        def __init__(self, *args, **kwargs):
            self.kwargs = kwargs

    class AsyncLLMEngine:
        @staticmethod
        def from_engine_args(engine_args):
            kw = engine_args.kwargs
            return HFGenerateEngine(kw["model"], kw["seed"], kw["max_model_len"])

    vllm.AsyncEngineArgs = AsyncEngineArgs
    vllm.AsyncLLMEngine = AsyncLLMEngine
    inputs = types.ModuleType("vllm.inputs")
    inputs.TokensPrompt = lambda **kw: dict(kw)
    utils = types.ModuleType("vllm.utils")
    utils.random_uuid = lambda: uuid.uuid4().hex
    vllm.inputs = inputs
    vllm.utils = utils
    sys.modules.update({"vllm": vllm, "vllm.inputs": inputs, "vllm.utils": utils})


def _fake_deepspeed():
    import torch
    import torch.distributed as dist

    class MiniEngine(torch.nn.Module):
        """Stand-in for deepspeed.DeepSpeedEngine (ZeRO-2 on one rank): forward, backward scaled by 1/gas,
        step() at the accumulation boundary with grad clipping, get_global_grad_norm() = the pre-clip global
        norm of the last boundary, save_checkpoint/load_checkpoint with client_state."""

        def __init__(self, module, config, model_parameters=None, lr_scheduler=None):
            super().__init__()
            self.module = module
            self.config = config
            micro = config.get("train_micro_batch_size_per_gpu", 1)
            world = dist.get_world_size() if dist.is_initialized() else 1
            self.gas = max(1, config.get("train_batch_size", micro) // (micro * world))
            self.max_norm = config.get("gradient_clipping", 0.0) or 0.0
            self.optimizer = None
            self.lr_scheduler = None
            if model_parameters is not None and "optimizer" in config:
                params = dict(config["optimizer"]["params"])
                params["betas"] = tuple(params.get("betas", (0.9, 0.999)))
                self.optimizer = torch.optim.AdamW(model_parameters, **params)
                self.lr_scheduler = lr_scheduler(self.optimizer) if callable(lr_scheduler) else lr_scheduler
            self.micro_steps = 0
            self._global_grad_norm = None

        def forward(self, *args, **kwargs):
            return self.module(*args, **kwargs)

        def zero_optimization_stage(self):
            return self.config.get("zero_optimization", {}).get("stage", 0)

        def backward(self, loss):
            (loss / self.gas).backward()

        def step(self):
            self.micro_steps += 1
            if self.micro_steps % self.gas != 0:
                return
            params = [p for p in self.module.parameters() if p.grad is not None]
            norm = torch.nn.utils.clip_grad_norm_(params, self.max_norm if self.max_norm > 0 else float("inf"))
            self._global_grad_norm = float(norm)
            self.optimizer.step()
            if self.lr_scheduler is not None:
                self.lr_scheduler.step()
            self.optimizer.zero_grad(set_to_none=True)

        def get_global_grad_norm(self):
            return self._global_grad_norm

        def save_checkpoint(self, save_dir, tag=None, client_state=None, save_latest=True):
            path = os.path.join(save_dir, tag)
            os.makedirs(path, exist_ok=True)
            torch.save(
                {
                    "module": self.module.state_dict(),
                    "optimizer": self.optimizer.state_dict() if self.optimizer else None,
                    "lr_scheduler": self.lr_scheduler.state_dict() if self.lr_scheduler else None,
                    "micro_steps": self.micro_steps,
                    "client_state": client_state or {},
                },
                os.path.join(path, "mp_rank_00_model_states.pt"),
            )
            if save_latest:
                with open(os.path.join(save_dir, "latest"), "w") as f:
                    f.write(tag)

        def load_checkpoint(self, load_dir, tag=None, **_kwargs):
            if tag is None:
                latest = os.path.join(load_dir, "latest")
                if not os.path.exists(latest):
                    return None, {}
                tag = open(latest).read().strip()
            path = os.path.join(load_dir, tag)
            state = torch.load(os.path.join(path, "mp_rank_00_model_states.pt"), weights_only=False)
            self.module.load_state_dict(state["module"])
            if self.optimizer and state["optimizer"]:
                self.optimizer.load_state_dict(state["optimizer"])
            if self.lr_scheduler and state["lr_scheduler"]:
                self.lr_scheduler.load_state_dict(state["lr_scheduler"])
            self.micro_steps = state["micro_steps"]
            return path, state["client_state"]

    def initialize(model=None, optimizer=None, model_parameters=None, lr_scheduler=None, config=None, **_kw):
        engine = MiniEngine(model, config or {}, model_parameters, lr_scheduler)
        return engine, engine.optimizer, None, engine.lr_scheduler

    def init_distributed(timeout=None, **_kw):
        if not dist.is_initialized():
            with socket.socket() as s:
                s.bind(("127.0.0.1", 0))
                port = s.getsockname()[1]
            dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=0, world_size=1)

    ds = types.ModuleType("deepspeed")
    ds.__version__ = "0.19.6"
    ds.initialize = initialize
    ds.init_distributed = init_distributed
    ds.DeepSpeedEngine = MiniEngine
    ds.tp_model_init = None
    ds_utils = types.ModuleType("deepspeed.utils")
    ds_utils.set_z3_leaf_modules = lambda *a, **k: None
    ds.utils = ds_utils
    zero = types.ModuleType("deepspeed.zero")
    zero.GatheredParameters = None
    ds.zero = zero
    runtime = types.ModuleType("deepspeed.runtime")
    rzero = types.ModuleType("deepspeed.runtime.zero")
    pp = types.ModuleType("deepspeed.runtime.zero.partition_parameters")
    pp.ZeroParamStatus = enum.Enum("ZeroParamStatus", "AVAILABLE NOT_AVAILABLE INFLIGHT")
    ckpt = types.ModuleType("deepspeed.checkpoint")
    ckpt_utils = types.ModuleType("deepspeed.checkpoint.utils")

    def clone_tensors_for_torch_save(item, device=torch.device("cpu")):
        if torch.is_tensor(item):
            return item.detach().clone().to(device)
        if isinstance(item, dict):
            return type(item)({k: clone_tensors_for_torch_save(v, device) for k, v in item.items()})
        if isinstance(item, (list, tuple)):
            return type(item)(clone_tensors_for_torch_save(v, device) for v in item)
        return item

    ckpt_utils.clone_tensors_for_torch_save = clone_tensors_for_torch_save
    ckpt.utils = ckpt_utils
    ds.checkpoint = ckpt
    sys.modules.update({"deepspeed.checkpoint": ckpt, "deepspeed.checkpoint.utils": ckpt_utils})
    import importlib.machinery

    for m in (ds, ds_utils, zero, runtime, rzero, pp):
        m.__spec__ = importlib.machinery.ModuleSpec(m.__name__, None)  # no dist metadata: HF sees "not installed"
    sys.modules.update(
        {
            "deepspeed": ds,
            "deepspeed.utils": ds_utils,
            "deepspeed.zero": zero,
            "deepspeed.runtime": runtime,
            "deepspeed.runtime.zero": rzero,
            "deepspeed.runtime.zero.partition_parameters": pp,
        }
    )


def _fake_flash_attn():
    # openrlhf.models.ring_attn_utils imports flash_attn.bert_padding / flash_attn.utils.distributed at module level; it is used only with
    # --ds.packing_samples (off here: packing needs flash-attention, which has no CPU build).
    fa = types.ModuleType("flash_attn")
    bp = types.ModuleType("flash_attn.bert_padding")

    def _unused(*a, **k):
        raise NotImplementedError("flash_attn stub: packing_samples is off in these fixtures")

    for name in ("index_first_axis", "pad_input", "rearrange", "unpad_input"):
        setattr(bp, name, _unused)
    fa.bert_padding = bp
    fa_utils = types.ModuleType("flash_attn.utils")
    fa_dist = types.ModuleType("flash_attn.utils.distributed")
    fa_dist.all_gather = _unused
    fa_utils.distributed = fa_dist
    fa.utils = fa_utils
    sys.modules.update(
        {"flash_attn": fa, "flash_attn.bert_padding": bp, "flash_attn.utils": fa_utils, "flash_attn.utils.distributed": fa_dist}
    )


def install_stubs():
    import torch

    # No GPU: OpenRLHF asks torch.cuda for "the current device", syncs and empties the cache.
    torch.cuda.current_device = lambda: "cpu"
    torch.cuda.synchronize = lambda *a, **k: None
    torch.cuda.empty_cache = lambda: None
    torch.cuda.set_device = lambda *a, **k: None
    _fake_ray()
    _fake_vllm()
    _fake_deepspeed()
    _fake_flash_attn()
    import importlib.machinery

    for name in [n for n in sys.modules if n.split(".")[0] in ("ray", "vllm", "deepspeed", "flash_attn")]:
        mod = sys.modules[name]
        if getattr(mod, "__spec__", None) is None:  # a spec but no dist metadata: HF/torch probes see "not installed"
            mod.__spec__ = importlib.machinery.ModuleSpec(name, None)

    import torch.distributed.device_mesh as dm

    import openrlhf.utils.deepspeed.deepspeed as ods

    # DeepspeedStrategy.setup_distributed builds a "cuda" device mesh; same mesh on CPU (gloo).
    ods.init_device_mesh = lambda device, shape, mesh_dim_names=None: dm.init_device_mesh(
        "cpu", shape, mesh_dim_names=mesh_dim_names
    )

    from openrlhf.trainer.ppo_utils import replay_buffer

    # NaiveReplayBuffer builds torch.device(f"cuda:{current_device()}") to move experiences back on sampling.
    rb_init = replay_buffer.NaiveReplayBuffer.__init__

    def rb_init_cpu(self, *args, **kwargs):
        torch.cuda.current_device = lambda: 0
        try:
            rb_init(self, *args, **kwargs)
        finally:
            torch.cuda.current_device = lambda: "cpu"
        self.target_device = torch.device("cpu")

    replay_buffer.NaiveReplayBuffer.__init__ = rb_init_cpu

    from openrlhf.trainer.ray import ppo_actor

    # NCCL weight sync to the vLLM engines -> in-process state_dict copy into the stand-in engine.
    ppo_actor.ActorPPOTrainer._init_vllm_sync_group = lambda self, backend: None

    def broadcast_to_vllm(self):
        for engine in self.vllm_engines or []:
            engine._obj.llm.sync_from(self.actor.model.module)

    ppo_actor.ActorPPOTrainer.broadcast_to_vllm = broadcast_to_vllm


# --------------------------------------------------------------------------------------------
# Tiny seeded model, tokenizer and data (no downloads).
# --------------------------------------------------------------------------------------------

CHARS = list("0123456789abcdefghijklmnopqrstuvwxyz +-=?:.,")


def build_assets(work: Path):
    import random

    import torch
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    model_dir = work / "tiny-llama"
    specials = ["<pad>", "<s>", "</s>", "<unk>"]
    vocab = {t: i for i, t in enumerate(specials + CHARS)}
    tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Split(Regex("."), behavior="isolated")
    tok.decoder = decoders.Fuse()
    hf_tok = PreTrainedTokenizerFast(
        tokenizer_object=tok, pad_token="<pad>", bos_token="<s>", eos_token="</s>", unk_token="<unk>"
    )
    hf_tok.save_pretrained(model_dir)
    torch.manual_seed(SEED)
    cfg = LlamaConfig(
        vocab_size=len(vocab),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=128,
        pad_token_id=0,
        bos_token_id=1,
        eos_token_id=2,
        tie_word_embeddings=False,
    )
    LlamaForCausalLM(cfg).to(torch.bfloat16).save_pretrained(model_dir)

    rng = random.Random(SEED)
    train, evals = [], []
    for _ in range(10):
        a, b = rng.randint(0, 4), rng.randint(0, 5)
        train.append({"input": f"what is {a}+{b}? answer:", "label": str(a + b)})
    for _ in range(2):
        a, b = rng.randint(0, 4), rng.randint(0, 5)
        evals.append({"input": f"what is {a}+{b}? answer:", "label": str(a + b), "datasource": "arith"})
    for _ in range(2):
        d = rng.randint(0, 9)
        evals.append({"input": f"repeat {d}:", "label": str(d), "datasource": "copy"})
    for name, rows in (("train.jsonl", train), ("eval.jsonl", evals)):
        with open(work / name, "w") as f:
            for r in rows:
                f.write(json.dumps(r) + "\n")
    (work / "reward_func.py").write_text(
        "def reward_func(queries, prompts, labels):\n"
        "    # rule reward: 1 if the response contains the label digit\n"
        "    response = queries[0][len(prompts[0]):] if queries[0].startswith(prompts[0]) else queries[0]\n"
        "    hit = float(labels[0] in response)\n"
        "    return {'rewards': hit, 'scores': hit, 'extra_logs': {'label_hit': hit}}\n"
    )
    return model_dir


def cli_argv(case: str, work: Path, ckpt: Path, tb: Path, model_dir: Path):
    run_id, extra, _ = CASES[case]
    return [
        "--actor.model_name_or_path", str(model_dir),
        "--reward.remote_url", str(work / "reward_func.py"),
        "--data.prompt_dataset", str(work / "train.jsonl"),
        "--data.input_key", "input",
        "--data.label_key", "label",
        "--eval.dataset", str(work / "eval.jsonl"),
        "--eval.steps", "2",
        "--eval.n_samples_per_prompt", "2",
        "--rollout.batch_size", "2",
        "--rollout.n_samples_per_prompt", "2",
        "--rollout.micro_batch_size", "2",
        "--rollout.max_new_tokens", "8",
        "--data.max_len", "48",
        "--train.batch_size", "4",
        "--train.micro_batch_size", "2",
        "--train.seed", str(SEED),
        "--actor.num_gpus_per_node", "1",
        "--ref.num_gpus_per_node", "1",
        "--vllm.num_engines", "1",
        "--vllm.tensor_parallel_size", "1",
        "--algo.advantage.estimator", "group_norm",
        "--algo.kl.use_loss",
        "--algo.kl.estimator", "k3",
        "--actor.adam.lr", "1e-3",
        "--ds.attn_implementation", "eager",
        "--ckpt.path", str(ckpt),
        "--ckpt.output_dir", str(work / f"final-model-{case}"),
        "--logger.wandb.key", DUMMY_KEY,
        "--logger.wandb.project", "openrlhf-fixtures",
        "--logger.wandb.run_name", f"openrlhf_{case}",
        "--logger.tensorboard_dir", str(tb),
    ] + extra


def ckpt_dir(case: str, work: Path) -> Path:
    # killed and resumed share one checkpoint folder: the resume loads what the killed run saved
    return work / ("ckpt" if case in ("killed", "resumed") else f"ckpt-{case}")


def parse_openrlhf_args(argv):
    """Run the real `if __name__ == "__main__":` block of openrlhf/cli/train_ppo_ray.py (parser + validation)
    with `train` captured, so the args object is exactly what OpenRLHF's CLI builds."""
    import openrlhf.cli.train_ppo_ray as cli

    src = Path(cli.__file__).read_text()
    tree = ast.parse(src)
    main = next(n for n in tree.body if isinstance(n, ast.If) and "__main__" in ast.unparse(n.test))
    captured = {}
    ns = dict(vars(cli))
    ns["train"] = lambda args: captured.setdefault("args", args)
    old = sys.argv
    sys.argv = ["train_ppo_ray.py"] + argv
    try:
        exec(compile(ast.Module(body=main.body, type_ignores=[]), cli.__file__, "exec"), ns)
    finally:
        sys.argv = old
    return captured["args"], cli


def jsonable(v):
    import torch

    if isinstance(v, torch.Tensor):
        v = v.item() if v.numel() == 1 else v.tolist()
    if isinstance(v, float):
        if math.isnan(v):
            return "NaN"
        if math.isinf(v):
            return "Infinity" if v > 0 else "-Infinity"
        return v
    if isinstance(v, dict):
        return {k: jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [jsonable(x) for x in v]
    return v


def child(case: str, work: Path, out: Path):
    """One OpenRLHF run (this process), writing into work/ and copying the fixture files into out/."""
    import random

    import numpy as np
    import torch

    torch.manual_seed(SEED)
    random.seed(SEED)
    np.random.seed(SEED)
    torch.set_num_threads(1)
    install_stubs()

    from openrlhf.utils import logging_utils

    record_path = out / "own-record.jsonl"
    kill_at = CASES[case][2]
    record = open(record_path, "w")

    real_train, real_eval = logging_utils.WandbLogger.log_train, logging_utils.WandbLogger.log_eval

    def log_train(self, global_step, logs_dict):
        record.write(json.dumps({"step": global_step, "data": jsonable(dict(logs_dict))}) + "\n")
        record.flush()
        real_train(self, global_step, logs_dict)
        if kill_at is not None and global_step == kill_at:
            # wandb-core flushes the .wandb transaction log every 15 s (x_transaction_log_flush_interval default):
            # wait past one flush so the records already handed over reach the file, as in a long real run
            time.sleep(17)
            os.kill(os.getpid(), signal.SIGKILL)

    def log_eval(self, global_step, logs_dict):
        record.write(json.dumps({"step": global_step, "data": jsonable(dict(logs_dict))}) + "\n")
        record.flush()
        real_eval(self, global_step, logs_dict)

    logging_utils.WandbLogger.log_train = log_train
    logging_utils.WandbLogger.log_eval = log_eval

    model_dir = work / "tiny-llama"
    argv = cli_argv(case, work, ckpt_dir(case, work), work / "tb", model_dir)
    args, cli = parse_openrlhf_args(argv)
    cli.train(args)  # OpenRLHF's own train(): engines, actor groups, PPOTrainer.fit, save_model
    record.close()


def wandb_file(work: Path, run_id: str):
    files = glob.glob(str(work / "wandb" / f"offline-run-*-{run_id}" / f"run-{run_id}.wandb"))
    assert len(files) == 1, files
    return Path(files[0])


def run_case(case: str, work: Path, versions: dict):
    out = OUT_ROOT / case
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    run_id = CASES[case][0]
    env = dict(os.environ)
    env.update(
        {
            "WANDB_MODE": "offline",
            "WANDB_DIR": str(work),
            "WANDB_RUN_ID": run_id,
            "WANDB_API_KEY": DUMMY_KEY,
            "WANDB_CONSOLE": "off",
            "WANDB_X_DISABLE_STATS": "true",
            "WANDB_X_DISABLE_META": "true",
            "WANDB_DISABLE_GIT": "true",
            "WANDB_DISABLE_CODE": "true",
            "WANDB_SILENT": "true",
            "HF_HUB_OFFLINE": "1",
            "TRANSFORMERS_OFFLINE": "1",
            "HF_DATASETS_OFFLINE": "1",
            "HF_DATASETS_CACHE": str(work / "hf-datasets-cache"),
            "TOKENIZERS_PARALLELISM": "false",
            "RAY_ADDRESS": "local-inprocess-stub",
            "PYTHONHASHSEED": "0",
            "CUDA_VISIBLE_DEVICES": "",
        }
    )
    t0 = time.time()
    proc = subprocess.run(
        [sys.executable, __file__, "--child", case, "--work", str(work), "--out", str(out)],
        env=env,
        stdout=open(work / f"{case}.log", "w"),
        stderr=subprocess.STDOUT,
    )
    killed = proc.returncode == -signal.SIGKILL
    if proc.returncode != 0 and not (killed and CASES[case][2] is not None):
        raise SystemExit(f"case {case} failed ({proc.returncode}); see {work / (case + '.log')}")
    time.sleep(2)  # let an orphaned wandb-core finish writing after a kill
    wf = wandb_file(work, run_id)
    shutil.copy(wf, out / wf.name)
    for ev in sorted(glob.glob(str(work / "tb" / f"openrlhf_{case}" / "events.out.tfevents.*"))):
        shutil.copy(ev, out / Path(ev).name)
    argv = cli_argv(case, Path("$WORK"), ckpt_dir(case, Path("$WORK")), Path("$WORK/tb"), Path("$WORK/tiny-llama"))
    argv = [a if a != DUMMY_KEY else "<dummy offline key>" for a in argv]
    meta = {
        "framework": "openrlhf",
        "case": case,
        "versions": versions,
        "command": "python3 tools/real-runs/openrlhf/make_openrlhf.py  # runs openrlhf.cli.train_ppo_ray's "
        "parser + train() in-process with: " + " ".join(argv),
        "options": {
            "openrlhfArgv": argv,
            "killedAfterGlobalStep": CASES[case][2],
            "resumedFrom": "killed" if case == "resumed" else None,
            "model": "random tiny Llama (2 layers, hidden 32, char vocab 48), bf16, seed 42",
            "stubs": "ray, vllm, deepspeed engine, torch.cuda device calls (see tools/real-runs/openrlhf/README.md)",
            "wallSeconds": round(time.time() - t0, 1),
            "exitCode": proc.returncode,
        },
        "wandbRunId": run_id,
        "notes": NOTES[case],
        "rounds": rounds_of(case, wf.name, run_id),
    }
    (out / "case.json").write_text(json.dumps(meta, indent=2) + "\n")
    print(f"{case}: exit {proc.returncode}, {time.time() - t0:.0f}s -> {out}")


def rounds_of(case: str, wandb_name: str, run_id: str) -> list:
    """The case's rounds for the conformance tests: the resumed run is round R1 of a lineage whose R0 is the killed run."""
    out_root = OUT_ROOT
    this = {
        "round": "R0",
        "wandbRunId": run_id,
        "wandbFile": wandb_name,
        "ownRecord": "own-record.jsonl",
        "tensorboardFiles": sorted(p.name for p in (out_root / case).glob("events.out.tfevents.*")),
        **counted_in(out_root / case / wandb_name, os.environ.get("COUNT_PYTHON", ".venv/bin/python")),
    }
    if case != "resumed":
        return [this]
    killed = json.loads((out_root / "killed" / "case.json").read_text())["rounds"][0]
    first = {**killed, "wandbFile": f"../killed/{killed['wandbFile']}", "ownRecord": "../killed/own-record.jsonl"}
    first["tensorboardFiles"] = [f"../killed/{n}" for n in killed["tensorboardFiles"]]
    # Resumed from the killed run's global_step2 checkpoint: its own record starts at step 3.
    return [first, {**this, "round": "R1", "resumedFrom": "global_step2", "resume": "new-run"}]


def versions():
    from importlib.metadata import version

    v = {}
    for p in ("openrlhf", "torch", "transformers", "wandb", "tensorboard", "datasets", "torchdata", "peft", "tokenizers"):
        v[p] = version(p)
    v["python"] = sys.version.split()[0]
    v["stubbed"] = {"ray": "in-process stub", "vllm": "HF-generate stub", "deepspeed": "MiniEngine stub"}
    return v


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--case", action="append", choices=list(CASES))
    ap.add_argument("--work", default=None, help="scratch dir (default: a fresh temp dir, deleted after)")
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--out", default=None, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        child(a.child, Path(a.work), Path(a.out))
        return
    import tempfile

    keep = a.work is not None
    work = Path(a.work or tempfile.mkdtemp(prefix="orl-fixtures-"))
    if work.exists() and keep:
        shutil.rmtree(work)
    work.mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    build_assets(work)
    vers = versions()
    cases = a.case or list(CASES)
    if "resumed" in cases and "killed" not in cases:
        cases = ["killed"] + cases  # the resume needs the killed run's checkpoint
    for case in [c for c in CASES if c in cases]:
        run_case(case, work, vers)
    print(f"all done in {time.time() - t0:.0f}s")
    if not keep:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
