"""Writes the TensorBoard test fixtures (test/fixtures/tensorboard/) with real writers, and what each holds.

    python3 -m venv /tmp/tb-venv && /tmp/tb-venv/bin/pip install -r tools/tensorboard/requirements.txt
    /tmp/tb-venv/bin/python tools/tensorboard/make_tb_fixtures.py --out test/fixtures/tensorboard

Cases (each a folder with its event files and expected.json):
  tensorboardx-plain  tensorboardX's SummaryWriter: add_scalar (simple_value, float32), with values float32
                      cannot hold exactly, NaN and +-Inf; add_histogram, add_image, add_text (to be dropped)
  tensor-scalars      scalar tensors as other writers store them, written through tensorboardX's file writer:
                      PyTorch SummaryWriter new_style (float_val) and double_precision (double_val), TF2
                      tf.summary.scalar (tensor_content, scalars plugin, DATA_CLASS_SCALAR), int32/int64/half
                      tensors; a 3-element tensor and a text tensor (to be dropped)
  restart             a log folder with two files: a run killed after step 9 and restarted from its step-5
                      checkpoint, re-logging from step 6 (the later file supersedes by tag, see expected.json)
  torn                tensorboardx-plain's file cut in the middle of its last record (a killed writer)
  hparams             add_hparams' three summaries (experiment, session start, session end), as tensorboardX
                      and PyTorch write them, beside a few scalars: the config the flags are read from, with
                      an undeclared path entry that must reach no file (expected.json "hparams")

`--only CASE` writes that case's folder alone (the others keep their bytes).

expected.json lists what the maker logged, computed here from its own inputs (never by reading the
files back): every value as stored (float32-rounded where the file stores float32), per file in file
order (`perFile`), and after the superseding rule (`kept`); NaN and infinities as "NaN", "Infinity",
"-Infinity". The first event of each file (file_version) carries the wall clock of the run that made
it, so a remake changes those bytes only.
"""
import argparse
import json
import math
import os
import shutil
import struct

import numpy as np
import tensorboardX
from tensorboard.compat.proto import summary_pb2 as tb_summary_pb2
from tensorboardX import SummaryWriter
from tensorboardX.proto.summary_pb2 import Summary, SummaryMetadata
from tensorboardX.proto.tensor_pb2 import TensorProto
from tensorboardX.proto.tensor_shape_pb2 import TensorShapeProto

WALL0 = 1_800_000_000.0


def f32(v):
    return float(np.float32(v))


def js(v):
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "Infinity" if v > 0 else "-Infinity"
    return v


def only_event_file(folder):
    files = sorted(f for f in os.listdir(folder) if "tfevents" in f)
    assert len(files) == 1, files
    return os.path.join(folder, files[0])


def write_with(folder, name, fill):
    """Runs `fill(writer)` on a fresh tensorboardX writer and renames its file to `name` (no host name in fixtures)."""
    tmp = os.path.join(folder, ".tmp")
    writer = SummaryWriter(logdir=tmp)
    fill(writer)
    writer.close()
    os.replace(only_event_file(tmp), os.path.join(folder, name))
    shutil.rmtree(tmp)


def plain_values():
    tags = {
        "train/loss": lambda s: 1.0 / (s + 3),
        "train/lr": lambda s: 0.1 * (0.9**s),
        "train/big": lambda s: 123456789.0 + s,
    }
    out = []
    for step in range(10):
        for tag, f in tags.items():
            out.append((tag, step, f(step)))
    out.append(("train/odd", 4, float("nan")))
    out.append(("train/odd", 5, float("inf")))
    out.append(("train/odd", 6, float("-inf")))
    out.append(("train/odd", 7, 1e-8))
    return out


def make_plain(out):
    folder = os.path.join(out, "tensorboardx-plain")
    os.makedirs(folder)
    values = plain_values()

    def fill(w):
        for tag, step, v in values:
            w.add_scalar(tag, v, step, walltime=WALL0 + step)
            if tag == "train/big":
                w.add_histogram("weights", np.arange(step + 4, dtype=np.float64), step, walltime=WALL0 + step)
        w.add_image("sample", np.zeros((3, 2, 2), dtype=np.uint8), 9, walltime=WALL0 + 9)
        w.add_text("note", "a text summary", 9, walltime=WALL0 + 9)

    name = "events.out.tfevents.1800000000.maker.1.0"
    write_with(folder, name, fill)
    stored = [(t, s, f32(v)) for t, s, v in values]
    return folder, name, stored, {"histogram": 10, "image": 1, "text": 1}


def tensor_value(tag, tensor, plugin="scalars", data_class=None):
    meta = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name=plugin))
    summary = Summary(value=[Summary.Value(tag=tag, tensor=tensor, metadata=meta)])
    if data_class is None:
        return summary
    # tensorboardX's protos predate SummaryMetadata.data_class: set it through TensorBoard's own protos
    # and hand the bytes back (the field survives as an unknown field).
    tb = tb_summary_pb2.Summary.FromString(summary.SerializeToString())
    tb.value[0].metadata.data_class = data_class
    return Summary.FromString(tb.SerializeToString())


def make_tensors(out):
    folder = os.path.join(out, "tensor-scalars")
    os.makedirs(folder)
    scalar_shape = TensorShapeProto()
    expected = []
    summaries = []
    for step in range(3):
        x = 0.1 * (step + 1) + 1.0 / 3
        # PyTorch torch.utils.tensorboard.summary.scalar(new_style=True) and (double_precision=True)
        summaries.append((step, tensor_value("torch/new_style", TensorProto(float_val=[x], dtype="DT_FLOAT"))))
        expected.append(("torch/new_style", step, f32(x)))
        summaries.append((step, tensor_value("torch/double", TensorProto(double_val=[x], dtype="DT_DOUBLE"))))
        expected.append(("torch/double", step, x))
        # TF2 tf.summary.scalar: the C++ writer stores AsProtoTensorContent, the scalars plugin, DATA_CLASS_SCALAR (1)
        content = TensorProto(dtype="DT_FLOAT", tensor_shape=scalar_shape, tensor_content=struct.pack("<f", x))
        summaries.append((step, tensor_value("tf2/scalar", content, data_class=1)))
        expected.append(("tf2/scalar", step, f32(x)))
        summaries.append((step, tensor_value("int/int32", TensorProto(dtype="DT_INT32", tensor_shape=scalar_shape, int_val=[-7 - step]))))
        expected.append(("int/int32", step, float(-7 - step)))
        big = 2**40 + step
        summaries.append((step, tensor_value("int/int64", TensorProto(dtype="DT_INT64", tensor_shape=scalar_shape, int64_val=[big]))))
        expected.append(("int/int64", step, float(big)))
        raw64 = TensorProto(dtype="DT_INT64", tensor_shape=scalar_shape, tensor_content=struct.pack("<q", -big))
        summaries.append((step, tensor_value("int/int64_content", raw64)))
        expected.append(("int/int64_content", step, float(-big)))
        half = np.float16(1.5 + step)
        summaries.append((step, tensor_value("half/val", TensorProto(dtype="DT_HALF", tensor_shape=scalar_shape, half_val=[int(half.view(np.uint16))]))))
        expected.append(("half/val", step, float(half)))
        vec = TensorProto(dtype="DT_FLOAT", tensor_shape=TensorShapeProto(dim=[TensorShapeProto.Dim(size=3)]), float_val=[1, 2, 3])
        summaries.append((step, tensor_value("vector", vec, plugin="")))
        text = TensorProto(dtype="DT_STRING", tensor_shape=scalar_shape, string_val=[b"hello"])
        summaries.append((step, tensor_value("words", text, plugin="text")))

    def fill(w):
        for step, summary in summaries:
            w._get_file_writer().add_summary(summary, step, WALL0 + step)

    name = "events.out.tfevents.1800000000.maker.2.0"
    write_with(folder, name, fill)
    return folder, name, expected, {"tensor": 3, "text": 3}


def make_restart(out):
    folder = os.path.join(out, "restart")
    os.makedirs(folder)
    first = [(t, s, 1.0 + s + (0.5 if t == "b" else 0.0)) for s in range(10) for t in ("a", "b", "only_first")]
    second = [("a", s, 100.0 + s) for s in range(6, 13)] + [("b", s, 200.0 + s) for s in range(6, 9)] + [("c", 7, 3.25)]

    def filler(values, offset):
        def fill(w):
            for tag, step, v in values:
                w.add_scalar(tag, v, step, walltime=WALL0 + offset + step)

        return fill

    names = ["events.out.tfevents.1800000000.maker.3.0", "events.out.tfevents.1800000100.maker.4.0"]
    write_with(folder, names[0], filler(first, 0))
    write_with(folder, names[1], filler(second, 100))
    return folder, names, [[(t, s, f32(v)) for t, s, v in first], [(t, s, f32(v)) for t, s, v in second]]


HPARAMS = {
    "use_rollout_logprobs": True,
    "n_samples_per_prompt": 8,
    "advantage_estimator": "grpo",
    "kl_coef": 0.001,
    "save": "checkpoints-of-someone/secret-project",
}


def make_hparams(out):
    folder = os.path.join(out, "hparams")
    os.makedirs(folder)
    values = [("train/loss", s, 1.0 / (s + 2)) for s in range(4)]

    def fill(w):
        exp, ssi, sei = tensorboardX.summary.hparams(HPARAMS, {"hparam/reward": 0.5})
        for summary in (exp, ssi, sei):
            w._get_file_writer().add_summary(summary, 0, walltime=WALL0)
        for tag, step, v in values:
            w.add_scalar(tag, v, step, walltime=WALL0 + step)

    name = "events.out.tfevents.1800000000.maker.5.0"
    write_with(folder, name, fill)
    return folder, name, [(t, st, f32(v)) for t, st, v in values], {"hparams": 3}


def kept_after_superseding(per_file):
    """The rule of lib/tensorboard/tag-series.ts, written again here: a value of a tag at step s drops that tag's earlier values at steps >= s."""
    series = {}
    for values in per_file:
        for tag, step, v in values:
            s = series.setdefault(tag, [])
            while s and s[-1][0] >= step:
                s.pop()
            s.append((step, v))
    return sorted(((t, st, v) for t, s in series.items() for st, v in s), key=lambda x: (x[0], x[1]))


def write_expected(folder, files, per_file, dropped, torn=None, extra=None):
    doc = {
        "writer": f"tensorboardX {tensorboardX.__version__}",
        "files": files,
        "perFile": [[[t, s, js(v)] for t, s, v in vals] for vals in per_file],
        "kept": [[t, s, js(v)] for t, s, v in kept_after_superseding(per_file)],
        "droppedKinds": dropped,
        "tornTail": torn,
        **(extra or {}),
    }
    # one value per line: small diffs when a case changes
    text = json.dumps(doc, indent=1)
    text = text.replace("[\n    ", "[").replace(",\n    ", ", ").replace("\n   ]", "]")
    with open(os.path.join(folder, "expected.json"), "w") as f:
        f.write(text + "\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--only", choices=["hparams"])
    args = ap.parse_args()
    out = args.out
    if args.only == "hparams":
        shutil.rmtree(os.path.join(out, "hparams"), ignore_errors=True)
        folder, name, stored, dropped = make_hparams(out)
        write_expected(folder, [name], [stored], dropped, extra={"hparams": HPARAMS})
        return
    if os.path.exists(out):
        shutil.rmtree(out)
    os.makedirs(out)
    folder, name, stored, dropped = make_plain(out)
    write_expected(folder, [name], [stored], dropped)

    # torn: the plain file cut 5 bytes into its last record's data (a writer killed mid-write)
    torn_folder = os.path.join(out, "torn")
    os.makedirs(torn_folder)
    data = open(os.path.join(folder, name), "rb").read()
    starts = []
    p = 0
    while p < len(data):
        starts.append(p)
        (n,) = struct.unpack_from("<Q", data, p)
        p += 12 + n + 4
    last = starts[-1]
    with open(os.path.join(torn_folder, name), "wb") as f:
        f.write(data[: last + 12 + 5])
    # the last record is the text summary (dropped anyway): the scalars are all whole
    write_expected(torn_folder, [name], [stored], {"histogram": 10, "image": 1}, {"offset": last, "bytes": 17})

    folder, name, expected, dropped = make_tensors(out)
    write_expected(folder, [name], [expected], dropped)

    folder, names, per_file = make_restart(out)
    write_expected(folder, names, per_file, {})

    folder, name, stored, dropped = make_hparams(out)
    write_expected(folder, [name], [stored], dropped, extra={"hparams": HPARAMS})


if __name__ == "__main__":
    main()
