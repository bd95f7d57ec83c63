"""Prints, for each event file given, every scalar tbparse reads from it, as JSON (the parity test's peer).

    .venv-tb/bin/python tools/tensorboard/tbparse_dump.py FILE [FILE ...]

Output: {"tbparse": version, "tensorboard": version, "files": {FILE: [[tag, step, value], ...]}}, values
as read (float32 scalars as doubles), NaN and infinities as "NaN", "Infinity", "-Infinity". Scalars are
tbparse's `scalars` (simple_value) plus the tensors holding one numeric element (the scalar tensors of
PyTorch new_style, TF2 and integer writers), read with TensorBoard's EventAccumulator as tbparse does.
Each file is read on its own, as tbparse reads a folder.
"""
import json
import math
import sys
import warnings

import tbparse
import tensorboard
from tbparse import SummaryReader
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
from tensorboard.util import tensor_util


def js(v):
    v = float(v)
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "Infinity" if v > 0 else "-Infinity"
    return v


def scalars_of(path):
    reader = SummaryReader(path, pivot=False, event_types={"scalars"})
    out = [[str(r.tag), int(r.step), js(r.value)] for r in reader.scalars.itertuples()]
    # tbparse 0.0.9 fails on tensors with tensorboard 2.21 (its tensor_util stub asks for dtypes.int4):
    # scalar tensors are read with TensorBoard's own accumulator and tensor_util, which tbparse wraps.
    acc = EventAccumulator(path, size_guidance={"tensors": 0})
    acc.Reload()
    for tag in acc.Tags()["tensors"]:
        for e in acc.Tensors(tag):
            value = tensor_util.make_ndarray(e.tensor_proto)
            if value.size == 1 and value.dtype.kind in "fiu":
                out.append([str(tag), int(e.step), js(value.reshape(()).item())])
    return out


def main():
    warnings.filterwarnings("ignore")
    files = {path: scalars_of(path) for path in sys.argv[1:]}
    json.dump({"tbparse": tbparse.__version__, "tensorboard": tensorboard.__version__, "files": files}, sys.stdout)


if __name__ == "__main__":
    main()
