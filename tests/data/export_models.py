#!/usr/bin/python3
"""Export the small torch models committed under tests/data/torch/.

Run with Debian's interpreter, which has python3-torch (1.13.1), python3-torchvision (0.14.1)
and python3-onnx (1.12):

    /usr/bin/python3 tests/data/export_models.py            # writes tests/data/torch/*.onnx
    /usr/bin/python3 tests/data/export_models.py --check    # exports to a temp dir, compares bytes

Every model is exported at opsets 7, 8, 9, 11, 13 and 17, with and without a dynamic batch
dimension (`dynamic_axes`), and with `keep_initializers_as_inputs` off and on. Combinations the
exporter refuses, or that would duplicate another file byte for byte, are not written; they are
printed and recorded in torch/skipped.json (and README.md).
The output is deterministic: weights come from torch.manual_seed, and a rerun gives the same
bytes (`--check` proves it).

File names: <model>_op<opset>_<static|dynbatch>[_kii][_nofold].onnx
  kii    = keep_initializers_as_inputs=True (initializers are also listed as graph inputs)
  nofold = do_constant_folding=False (only for the Transformer layer: keeps Transpose(weight))
"""
import argparse
import hashlib
import io
import json
import os
import sys
import tempfile
import warnings

import onnx
import torch
import torch.nn as nn
import torchvision

HERE = os.path.dirname(os.path.abspath(__file__))
OPSETS = (7, 8, 9, 11, 13, 17)


class AlexNetSmall(nn.Module):
    """AlexNet's shape at toy size: conv/relu/maxpool features, adaptive avg pool, flatten,
    and the 3-layer Linear head with Dropout (a no-op in eval mode)."""

    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 8, kernel_size=3, stride=1, padding=1), nn.ReLU(inplace=True),
            nn.MaxPool2d(kernel_size=2, stride=2),
            nn.Conv2d(8, 16, kernel_size=3, padding=1), nn.ReLU(inplace=True),
            nn.MaxPool2d(kernel_size=2, stride=2))
        self.avgpool = nn.AdaptiveAvgPool2d((3, 3))
        self.classifier = nn.Sequential(
            nn.Dropout(p=0.5), nn.Linear(16 * 3 * 3, 32), nn.ReLU(inplace=True),
            nn.Dropout(p=0.5), nn.Linear(32, 32), nn.ReLU(inplace=True),
            nn.Linear(32, 10))

    def forward(self, x):
        x = self.features(x)
        x = self.avgpool(x)
        x = torch.flatten(x, 1)
        return self.classifier(x)


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 16), nn.ReLU(),
                                 nn.Linear(16, 10))

    def forward(self, x):
        return self.net(x)


class TransformerLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = nn.TransformerEncoderLayer(d_model=16, nhead=4, dim_feedforward=32,
                                                dropout=0.1, batch_first=True)

    def forward(self, x):
        return self.layer(x)


class GRUModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.GRU(input_size=16, hidden_size=24, num_layers=1, batch_first=True)
        self.head = nn.Linear(24, 5)

    def forward(self, x):
        out, _ = self.rnn(x)
        return self.head(out[:, -1, :])


class LSTMModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(input_size=16, hidden_size=24, num_layers=1, batch_first=True)
        self.head = nn.Linear(24, 5)

    def forward(self, x):
        out, _ = self.rnn(x)
        return self.head(out[:, -1, :])


class ResNetBlock(nn.Module):
    """torchvision's BasicBlock (with a strided 1x1 downsample) and a small pooled head."""

    def __init__(self):
        super().__init__()
        down = nn.Sequential(nn.Conv2d(8, 16, kernel_size=1, stride=2, bias=False),
                             nn.BatchNorm2d(16))
        self.block = torchvision.models.resnet.BasicBlock(8, 16, stride=2, downsample=down)
        self.pool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(16, 10)

    def forward(self, x):
        x = self.block(x)
        x = torch.flatten(self.pool(x), 1)
        return self.fc(x)


def _randomize_bn(module):
    # Non-trivial running statistics so BatchNorm is not an identity in the exported model.
    g = torch.Generator().manual_seed(1)
    for m in module.modules():
        if isinstance(m, nn.BatchNorm2d):
            with torch.no_grad():
                m.running_mean.copy_(torch.randn(m.num_features, generator=g) * 0.1)
                m.running_var.copy_(torch.rand(m.num_features, generator=g) + 0.5)


# name -> (constructor, example input shape, seed, extra export variants)
MODELS = {
    "alexnet": (AlexNetSmall, (2, 3, 24, 24), 101, ()),
    "mlp": (MLP, (4, 16), 102, ()),
    "transformer": (TransformerLayer, (2, 7, 16), 103, ("nofold",)),
    "gru": (GRUModel, (2, 6, 16), 104, ()),
    "lstm": (LSTMModel, (2, 6, 16), 105, ()),
    "resnet_block": (ResNetBlock, (2, 8, 16, 16), 106, ()),
}


def build(name):
    ctor, shape, seed, _ = MODELS[name]
    torch.manual_seed(seed)
    model = ctor()
    _randomize_bn(model)
    model.eval()
    x = torch.randn(*shape)
    return model, x


def export_one(name, opset, dynbatch, kii, fold):
    model, x = build(name)
    dynamic_axes = None
    if dynbatch:
        dynamic_axes = {"input": {0: "N"}, "output": {0: "N"}}
    f = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # Grad stays enabled (no torch.no_grad()): TransformerEncoderLayer would take its fused
        # fast path under no_grad in eval mode, and that path does not export.
        torch.onnx.export(model, (x,), f, opset_version=opset, input_names=["input"],
                          output_names=["output"], dynamic_axes=dynamic_axes,
                          keep_initializers_as_inputs=kii, do_constant_folding=fold,
                          training=torch.onnx.TrainingMode.EVAL)
    data = f.getvalue()
    mp = onnx.load_from_string(data)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        onnx.checker.check_model(mp, full_check=True)
    return data


def file_name(name, opset, dynbatch, kii, fold):
    parts = [name, "op%d" % opset, "dynbatch" if dynbatch else "static"]
    if kii:
        parts.append("kii")
    if not fold:
        parts.append("nofold")
    return "_".join(parts) + ".onnx"


def variants():
    for name, (_, _, _, extra) in MODELS.items():
        for opset in OPSETS:
            for dynbatch in (False, True):
                for kii in (False, True):
                    yield name, opset, dynbatch, kii, True
                    if "nofold" in extra:
                        yield name, opset, dynbatch, kii, False


def export_all(outdir):
    os.makedirs(outdir, exist_ok=True)
    written, skipped = [], []
    for name, opset, dynbatch, kii, fold in variants():
        fn = file_name(name, opset, dynbatch, kii, fold)
        if opset < 9 and not kii:
            skipped.append({"file": fn, "reason": "opset < 9 means IR version 3, where every "
                            "initializer must be a graph input: the exporter writes the same "
                            "bytes as the _kii file"})
            continue
        if opset < 9 and not fold:
            skipped.append({"file": fn, "reason": "the exporter does no constant folding below "
                            "opset 9: same bytes as the file without _nofold"})
            continue
        try:
            data = export_one(name, opset, dynbatch, kii, fold)
            ops = {n.op_type for n in onnx.load_from_string(data).graph.node}
            if "ConstantFill" in ops:
                raise RuntimeError("exports the experimental op ConstantFill (for the initial "
                                   "hidden state), which ONNX 1.12 has no schema for (the "
                                   "checker skips such models) and ONNX Runtime cannot load")
        except Exception as e:  # the exporter refused this combination
            msg = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            skipped.append({"file": fn, "reason": "%s: %s" % (type(e).__name__, msg[:300])})
            print("SKIP %s: %s" % (fn, msg[:160]), file=sys.stderr)
            continue
        with open(os.path.join(outdir, fn), "wb") as out:
            out.write(data)
        written.append(fn)
    with open(os.path.join(outdir, "skipped.json"), "w") as out:
        json.dump({"torch": torch.__version__, "skipped": skipped}, out, indent=1, sort_keys=True)
        out.write("\n")
    return written, skipped


def digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--outdir", default=os.path.join(HERE, "torch"))
    ap.add_argument("--check", action="store_true",
                    help="export to a temporary directory and compare with --outdir byte by byte")
    args = ap.parse_args()
    if not args.check:
        written, skipped = export_all(args.outdir)
        print("wrote %d models to %s, skipped %d" % (len(written), args.outdir, len(skipped)))
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        written, _ = export_all(tmp)
        bad = [fn for fn in written + ["skipped.json"]
               if not os.path.exists(os.path.join(args.outdir, fn))
               or digest(os.path.join(tmp, fn)) != digest(os.path.join(args.outdir, fn))]
        extra = sorted(set(f for f in os.listdir(args.outdir) if f.endswith(".onnx"))
                       - set(written))
        for fn in bad:
            print("DIFFERS: %s" % fn)
        for fn in extra:
            print("NOT PRODUCED: %s" % fn)
        print("%d files compared, %d differ, %d extra" % (len(written) + 1, len(bad), len(extra)))
        return 1 if bad or extra else 0


if __name__ == "__main__":
    sys.exit(main())
