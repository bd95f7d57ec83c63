"""Writes one event file for the TensorBoard read benchmark (bench/tensorboard-bench.ts) with tensorboardX.

    .venv-tb/bin/python tools/tensorboard/make_bench_file.py --out DIR --steps 20000 --tags 50

STEPS x TAGS scalars (add_scalar: simple_value), one event per scalar as SummaryWriter writes them,
values from a fixed formula (no randomness), wall times 1.8e9 + step.
"""
import argparse
import os
import shutil

from tensorboardX import SummaryWriter


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--steps", type=int, required=True)
    ap.add_argument("--tags", type=int, required=True)
    a = ap.parse_args()
    tmp = a.out + ".tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    w = SummaryWriter(logdir=tmp, max_queue=100000, flush_secs=3600)
    tags = [f"train/metric_{i:03d}" for i in range(a.tags)]
    for step in range(a.steps):
        for i, tag in enumerate(tags):
            w.add_scalar(tag, (step * 31 + i * 7) % 1000 / 997.0, step, walltime=1.8e9 + step)
    w.close()
    shutil.rmtree(a.out, ignore_errors=True)
    os.replace(tmp, a.out)


if __name__ == "__main__":
    main()
