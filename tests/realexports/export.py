#!/usr/bin/python3
"""Exports the real-export corpus with torch.onnx.export into OUT_DIR (see README.md).

Usage: /usr/bin/python3 export.py OUT_DIR [--only SUBSTRING]

Two sets, one model file each, named after what it is:
  folding (issue 18): resnet18, mobilenet_v2, a TransformerEncoder with dynamic batch and
    sequence, LSTM and GRU, each with do_constant_folding=False at opsets 9, 13 and 17:
    <model>-opset<N>-nofold.onnx
  catalogue (issue 19): resnet18, mobilenet_v3_small and a TransformerEncoder at opset 17 in
    three modes: <model>-train.onnx (model.train(), TrainingMode.TRAINING: training Dropout and
    BatchNormalization), <model>-preserve.onnx (model.eval(), TrainingMode.PRESERVE: torch
    keeps BatchNormalization after Conv), <model>-eval.onnx (model.eval(), TrainingMode.EVAL,
    torch's defaults: the export users usually make).
  reductions (fuse-reduce-unsqueeze): a head that reduces and unsqueezes back
    (y.mean(-1).unsqueeze(-1), .sum(1).unsqueeze(1), .argmax(-1).unsqueeze(-1)) at opsets 11,
    13 and 17, the three places reductions and Unsqueeze take their axes from:
    reduction_head-opset<N>.onnx.
  einsum (rewrite-einsum-as-matmul, not in -O1): self-attention written with torch.einsum
    ("bid,bjd->bij", "bij,bjd->bid", "bsd,hd->bsh"), dynamic batch and sequence, at opsets 12,
    13 and 17: einsum_attention-opset<N>.onnx.
  detection: torchvision's SSDlite (MobileNetV3) and Faster R-CNN (MobileNetV3 FPN, 320) at
    opsets 11 and 16, with what detection exports hold: If and Loop bodies, NonZero, TopK,
    RoiAlign, Resize, shape arithmetic; Faster R-CNN without constant folding and with a score
    threshold of 0, so that its random weights still give detections to compare:
    <model>-opset<N>.onnx.
  swin_t: torchvision's Swin-T at opset 17 (eval), whose attention masks are built from
    constants (ScatterND) and whose reshapes read shapes computed stage by stage: -O1 settles
    in 17 rounds: swin_t-opset17.onnx.
  legacy Dropout (issue 19): the TransformerEncoder in training mode at opsets 9 and 11
    (model.train(), TrainingMode.TRAINING, no constant folding): <model>-train-opset<N>.onnx.
    Before opset 12 Dropout has no training mode: by the spec each of its eight Dropouts is a
    no-op that -O1 must remove, and ONNX Runtime runs it as the identity whatever its ratio, so
    torch's ratios (0.1) stay.
  modules (modules.py): small modules written the way users write them, at the opsets
    MODULE_MODELS names: a GPT block (embeddings, causal mask, exact and tanh GELU), a 1-D audio
    stack (Conv1d/ConvTranspose1d with BatchNorm, GroupNorm, InstanceNorm), a U-Net (bilinear
    resize to a size read at run time, PixelShuffle, ceil_mode pooling), index ops (gather,
    scatter, topk, cumsum), a float64 head, a bidirectional LSTM and a GRU with zero initial
    states, nn.MultiheadAttention with a padding mask, attention with separate query, key and
    value projections (as Hugging Face's BERT), a detector's class and box heads (two Gemms of
    one input), a scripted If and Loop:
    <module>-opset<N>.onnx.

Weights are random but seeded (BatchNormalization statistics too), so every run writes the
same models. A combination torch cannot export is skipped only when it is listed in
EXPECTED_SKIPS with the reason; any other export failure is an error. The last lines list the
skipped combinations and the models written. Exit 0 when every expected export worked, 1
otherwise, 2 when torch or torchvision is missing.
"""

import argparse
import glob
import os
import sys
import time
import warnings

try:
    import torch
    import torchvision
except ImportError as error:
    print(f"export.py: {error}: run scripts/setup.sh (Debian's python3-torch and "
          f"python3-torchvision, for {sys.executable})", file=sys.stderr)
    sys.exit(2)

import modules

FOLDING_OPSETS = (9, 13, 17)
CATALOGUE_OPSET = 17
LEGACY_DROPOUT_OPSETS = (9, 11)
REDUCTION_OPSETS = (11, 13, 17)
EINSUM_OPSETS = (12, 13, 17)
DETECTION_OPSETS = (11, 16)
SEQ, BATCH = 5, 2

# File name -> why torch 1.13 cannot export that combination. Empty: it exports every one. An
# entry that starts to export fails the run, as does a failure not listed here.
EXPECTED_SKIPS = {}


def seed_everything(seed):
    torch.manual_seed(seed)


def randomize_batchnorm_statistics(model):
    """Fresh modules have mean 0, variance 1, scale 1, shift 0: a BatchNormalization that is a
    no-op hides fusion bugs, so every statistic gets a random, valid value."""
    for module in model.modules():
        if isinstance(module, torch.nn.modules.batchnorm._BatchNorm):
            with torch.no_grad():
                module.running_mean.uniform_(-0.5, 0.5)
                module.running_var.uniform_(0.5, 2.0)
                module.weight.uniform_(0.5, 1.5)
                module.bias.uniform_(-0.5, 0.5)


def vision(builder):
    def make():
        model = builder(weights=None)
        randomize_batchnorm_statistics(model)
        return model, (torch.randn(1, 3, 224, 224),), ["input"], ["output"], None
    return make


def transformer_encoder():
    layer = torch.nn.TransformerEncoderLayer(d_model=64, nhead=4, dim_feedforward=128)
    model = torch.nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)
    dynamic = {"src": {0: "seq", 1: "batch"}, "output": {0: "seq", 1: "batch"}}
    return model, (torch.randn(SEQ, BATCH, 64),), ["src"], ["output"], dynamic


def recurrent(cell):
    def make():
        model = cell(input_size=16, hidden_size=32, num_layers=2)
        outputs = ["output", "h_n", "c_n"] if cell is torch.nn.LSTM else ["output", "h_n"]
        dynamic = {"input": {0: "seq", 1: "batch"}, "output": {0: "seq", 1: "batch"}}
        dynamic.update({name: {1: "batch"} for name in outputs[1:]})
        return model, (torch.randn(SEQ, BATCH, 16),), ["input"], outputs, dynamic
    return make


class ReductionHead(torch.nn.Module):
    """Reductions without keepdim, unsqueezed back where they reduced: what torch writes as
    Reduce*/ArgMax with keepdims=0 followed by an Unsqueeze."""

    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(16, 16)

    def forward(self, x):
        y = self.linear(x)
        centered = y - y.mean(-1).unsqueeze(-1)
        scaled = centered / (1.0 + y.abs().sum(1).unsqueeze(1))
        return scaled, y.argmax(-1).unsqueeze(-1)


def reduction_head():
    dynamic = {"input": {0: "batch"}, "scaled": {0: "batch"}, "top": {0: "batch"}}
    return ReductionHead(), (torch.randn(BATCH, 16),), ["input"], ["scaled", "top"], dynamic


class EinsumAttention(torch.nn.Module):
    """Single-head self-attention whose products are torch.einsum calls (exported as Einsum)."""

    def __init__(self):
        super().__init__()
        self.query, self.key, self.value = (torch.nn.Linear(16, 16) for _ in range(3))
        self.weight = torch.nn.Parameter(torch.randn(8, 16))

    def forward(self, x):
        q, k, v = self.query(x), self.key(x), self.value(x)
        attention = (torch.einsum("bid,bjd->bij", q, k) / 4.0).softmax(-1)
        mixed = torch.einsum("bij,bjd->bid", attention, v)
        return torch.einsum("bsd,hd->bsh", mixed, self.weight)


def einsum_attention():
    dynamic = {"input": {0: "batch", 1: "seq"}, "output": {0: "batch", 1: "seq"}}
    return EinsumAttention(), (torch.randn(BATCH, SEQ, 16),), ["input"], ["output"], dynamic


def detection(builder, **options):
    def make():
        model = builder(weights=None, weights_backbone=None, **options)
        randomize_batchnorm_statistics(model)
        return model, ([torch.rand(3, 240, 320)],), ["images"], ["boxes", "labels", "scores"], None
    return make


# name -> (builder, constant folding)
DETECTION_MODELS = {
    "ssdlite320_mobilenet_v3": (
        detection(torchvision.models.detection.ssdlite320_mobilenet_v3_large), True),
    "fasterrcnn_mobilenet_v3_320": (
        detection(torchvision.models.detection.fasterrcnn_mobilenet_v3_large_320_fpn,
                  min_size=200, max_size=320, box_score_thresh=0.0), False),
}

FOLDING_MODELS = {
    "resnet18": vision(torchvision.models.resnet18),
    "mobilenet_v2": vision(torchvision.models.mobilenet_v2),
    "transformer_encoder": transformer_encoder,
    "lstm": recurrent(torch.nn.LSTM),
    "gru": recurrent(torch.nn.GRU),
}

CATALOGUE_MODELS = {
    "resnet18": vision(torchvision.models.resnet18),
    "mobilenet_v3_small": vision(torchvision.models.mobilenet_v3_small),
    "transformer_encoder": transformer_encoder,
}

# mode name -> (put the module in training mode?, torch.onnx.TrainingMode, constant folding)
# Training exports turn folding off, as torch recommends: folding would bake parameters.
def with_random_batchnorm_statistics(make):
    def made():
        model, *rest = make()
        randomize_batchnorm_statistics(model)
        return (model, *rest)
    return made


EVAL = (False, torch.onnx.TrainingMode.EVAL)
PRESERVE = (False, torch.onnx.TrainingMode.PRESERVE)

# file name stem -> (builder, opsets, (train, training mode), constant folding). PRESERVE: torch
# keeps BatchNormalization after each convolution.
MODULE_MODELS = {
    "gpt": (modules.gpt("none"), (14, 17), EVAL, True),
    "gpt_tanh": (modules.gpt("tanh"), (17,), EVAL, True),
    "gpt_nofold": (modules.gpt("none"), (17,), EVAL, False),
    "audio": (with_random_batchnorm_statistics(modules.audio(True)), (11, 13, 17), EVAL, True),
    "audio_static": (with_random_batchnorm_statistics(modules.audio(False)), (17,), EVAL, False),
    "audio_preserve": (with_random_batchnorm_statistics(modules.audio(False)), (13,), PRESERVE,
                       False),
    "unet": (with_random_batchnorm_statistics(modules.unet(False, True)), (11, 13, 17), EVAL,
             True),
    "unet_align_corners": (with_random_batchnorm_statistics(modules.unet(True, False)), (11, 16),
                           EVAL, True),
    "unet_preserve": (with_random_batchnorm_statistics(modules.unet(False, False)), (13,),
                      PRESERVE, True),
    "indexing": (modules.indexing, (11, 13, 16), EVAL, True),
    "double_head": (with_random_batchnorm_statistics(modules.double_head), (13, 17), EVAL, True),
    "recurrent_bidirectional": (modules.recurrent_bidirectional, (11, 14), EVAL, True),
    "padded_attention": (modules.padded_attention, (13, 17), EVAL, True),
    "separate_projections": (modules.separate_projections, (11, 17), EVAL, True),
    "detection_heads": (modules.detection_heads, (9, 17), EVAL, True),
    "scripted": (modules.scripted, (13, 16), EVAL, True),
}

CATALOGUE_MODES = {
    "train": (True, torch.onnx.TrainingMode.TRAINING, False),
    "preserve": (False, torch.onnx.TrainingMode.PRESERVE, True),
    "eval": (False, torch.onnx.TrainingMode.EVAL, True),
}


def combinations():
    """(file name, model key, builder, opset, train, training mode, constant folding)"""
    for key, make in FOLDING_MODELS.items():
        for opset in FOLDING_OPSETS:
            yield (f"{key}-opset{opset}-nofold.onnx", key, make, opset, False,
                   torch.onnx.TrainingMode.EVAL, False)
    for key, make in CATALOGUE_MODELS.items():
        for mode, (train, training, folding) in CATALOGUE_MODES.items():
            yield (f"{key}-{mode}.onnx", key, make, CATALOGUE_OPSET, train, training, folding)
    for opset in REDUCTION_OPSETS:
        yield (f"reduction_head-opset{opset}.onnx", "reduction_head", reduction_head, opset,
               False, torch.onnx.TrainingMode.EVAL, True)
    for opset in EINSUM_OPSETS:
        yield (f"einsum_attention-opset{opset}.onnx", "einsum_attention", einsum_attention, opset,
               False, torch.onnx.TrainingMode.EVAL, True)
    for key, (make, folding) in DETECTION_MODELS.items():
        for opset in DETECTION_OPSETS:
            yield (f"{key}-opset{opset}.onnx", key, make, opset, False,
                   torch.onnx.TrainingMode.EVAL, folding)
    yield ("swin_t-opset17.onnx", "swin_t", vision(torchvision.models.swin_t), 17, False,
           torch.onnx.TrainingMode.EVAL, True)
    for opset in LEGACY_DROPOUT_OPSETS:
        yield (f"transformer_encoder-train-opset{opset}.onnx", "transformer_encoder",
               transformer_encoder, opset, True, torch.onnx.TrainingMode.TRAINING, False)
    for key, (make, opsets, (train, training), folding) in MODULE_MODELS.items():
        for opset in opsets:
            yield (f"{key}-opset{opset}.onnx", key, make, opset, train, training, folding)


def zero_dropout_ratios(model):
    """A training Dropout (opset 12+, training_mode true) draws a fresh mask on every run, so
    ONNX Runtime could not compare the model before and after optimization. Ratio 0 makes them
    deterministic; they then drop nothing, and eliminate-nop-dropout removes them."""
    for module in model.modules():
        if isinstance(module, torch.nn.Dropout):
            module.p = 0.0
        elif isinstance(module, torch.nn.MultiheadAttention):
            module.dropout = 0.0


def export(path, key, make, opset, train, training, folding):
    seed_everything(sum(map(ord, key)))
    model, args, input_names, output_names, dynamic_axes = make()
    model.train(train)
    if train and opset >= 12:
        zero_dropout_ratios(model)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, args, path, opset_version=opset, training=training,
                          do_constant_folding=folding, input_names=input_names,
                          output_names=output_names, dynamic_axes=dynamic_axes)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir")
    parser.add_argument("--only", help="export only the files whose name contains this")
    options = parser.parse_args()
    os.makedirs(options.out_dir, exist_ok=True)
    if not options.only:
        # A model this script no longer makes must not stay behind to be checked.
        for stale in glob.glob(os.path.join(options.out_dir, "*.onnx")):
            os.remove(stale)
    torch.set_num_threads(1)

    written, skipped, failed, unexpectedly_working = [], [], [], []
    start = time.monotonic()
    for name, key, make, opset, train, training, folding in combinations():
        if options.only and options.only not in name:
            continue
        path = os.path.join(options.out_dir, name)
        begin = time.monotonic()
        try:
            export(path, key, make, opset, train, training, folding)
        except Exception as error:  # torch raises many kinds; each is reported by name
            reason = f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"
            if name in EXPECTED_SKIPS:
                skipped.append((name, EXPECTED_SKIPS[name]))
            else:
                failed.append((name, reason))
            if os.path.exists(path):
                os.remove(path)
            continue
        if name in EXPECTED_SKIPS:
            unexpectedly_working.append(name)
        written.append((name, time.monotonic() - begin, os.path.getsize(path)))

    for name, seconds, size in written:
        print(f"exported {name}: {size / 2**20:.1f} MiB in {seconds:.1f} s")
    for name, reason in skipped:
        print(f"skipped {name}: {reason}")
    for name in unexpectedly_working:
        print(f"NOTE {name} exports now: remove it from EXPECTED_SKIPS")
    for name, reason in failed:
        print(f"FAIL {name}: {reason}")
    print(f"{len(written)} exported, {len(skipped)} skipped (torch cannot export them), "
          f"{len(failed)} failed, in {time.monotonic() - start:.1f} s")
    return 1 if failed or unexpectedly_working else 0


if __name__ == "__main__":
    sys.exit(main())
