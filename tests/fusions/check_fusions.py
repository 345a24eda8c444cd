#!/usr/bin/python3
"""The normalization fusions on whole models, under ONNX Runtime (see README.md).

Usage: /usr/bin/python3 check_fusions.py ONNX_OPT COMPARE_MJS WORK_DIR [--only SUBSTRING]

Each case is a model made here, at test time: hand-built with onnx.helper (opsets 17, 18, 23)
or exported by torch 1.13 (opset 17; and opset 16 relabeled 17, where torch writes
nn.LayerNorm decomposed). Each is optimized with its pipeline, and then:
  - the optimized model holds exactly the expected number of LayerNormalization /
    RMSNormalization nodes (one per norm layer) and no ReduceMean;
  - compare.mjs (onnxruntime-node, seeded random inputs) finds its outputs equal to the
    original's (float32: rtol 1e-4, atol 1e-5; float16: 1e-2).
Then the declines: near misses in the text syntax, run with --debug, must stay unfused and
print the reason (the golden files, tests/passes/fuse-*-norm.onnxtxt, cannot check reasons).
Exit 0 when every case passes, 1 otherwise, 77 (skip) when node is missing.
"""

import argparse
import os
import shutil
import subprocess
import sys
import warnings

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

LN_PIPELINE = "--passes=lift-constants,fold-constants,fuse-layer-norm,eliminate-dead-nodes"
RMS_PIPELINE = "--passes=lift-constants,fold-constants,fuse-rms-norm,eliminate-dead-nodes"

RNG = np.random.default_rng(7)


def init(name, array):
    return numpy_helper.from_array(array, name)


def layer_norm_nodes(x, out, prefix, opset, square="pow", divide="div", scale=None, bias=None):
    """The decomposition over the last axis, as exporters write it."""
    p = prefix
    nodes, inits = [], [init(f"{p}two", np.array(2.0, np.float32)), init(f"{p}eps", np.array(1e-5, np.float32))]
    if opset >= 18:
        inits.append(init(f"{p}axes", np.array([-1], np.int64)))
        mean = lambda i, o: helper.make_node("ReduceMean", [i, f"{p}axes"], [o])
    else:
        mean = lambda i, o: helper.make_node("ReduceMean", [i], [o], axes=[-1])
    nodes.append(mean(x, f"{p}m"))
    nodes.append(helper.make_node("Sub", [x, f"{p}m"], [f"{p}d"]))
    if square == "pow":
        nodes.append(helper.make_node("Pow", [f"{p}d", f"{p}two"], [f"{p}sq"]))
    else:
        nodes.append(helper.make_node("Mul", [f"{p}d", f"{p}d"], [f"{p}sq"]))
    nodes.append(mean(f"{p}sq", f"{p}v"))
    nodes.append(helper.make_node("Add", [f"{p}v", f"{p}eps"], [f"{p}ve"]))
    nodes.append(helper.make_node("Sqrt", [f"{p}ve"], [f"{p}s"]))
    last = out if scale is None and bias is None else f"{p}n"
    if divide == "div":
        nodes.append(helper.make_node("Div", [f"{p}d", f"{p}s"], [last]))
    else:
        nodes.append(helper.make_node("Reciprocal", [f"{p}s"], [f"{p}r"]))
        nodes.append(helper.make_node("Mul", [f"{p}d", f"{p}r"], [last]))
    if scale is not None:
        inits.append(init(f"{p}scale", scale))
        nodes.append(helper.make_node("Mul", [last, f"{p}scale"], [out if bias is None else f"{p}sc"]))
        last = f"{p}sc"
    if bias is not None:
        inits.append(init(f"{p}bias", bias))
        nodes.append(helper.make_node("Add", [last, f"{p}bias"], [out]))
    return nodes, inits


def hand_layer_norm(path, opset, **kwargs):
    """MatMul -> normalization -> Relu, so that the norm sits between other ops."""
    h = 8
    w = init("w", RNG.standard_normal((h, h)).astype(np.float32))
    nodes = [helper.make_node("MatMul", ["X", "w"], ["h"])]
    ln, inits = layer_norm_nodes("h", "n", "ln_", opset, **kwargs)
    nodes += ln + [helper.make_node("Relu", ["n"], ["Y"])]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("X", TensorProto.FLOAT, ["N", 3, h])],
                              [helper.make_tensor_value_info("Y", TensorProto.FLOAT, ["N", 3, h])], [w] + inits)
    save(graph, path, opset)


def hand_fp16_layer_norm(path):
    """float16 in, Cast to float, the body, Cast back, float16 scale and bias (stash_type 1)."""
    h = 8
    nodes = [helper.make_node("Cast", ["X"], ["xf"], to=TensorProto.FLOAT)]
    ln, inits = layer_norm_nodes("xf", "nf", "ln_", 17)
    nodes += ln + [helper.make_node("Cast", ["nf"], ["nh"], to=TensorProto.FLOAT16),
                   helper.make_node("Mul", ["nh", "s16"], ["sc"]), helper.make_node("Add", ["sc", "b16"], ["Y"])]
    inits += [init("s16", RNG.uniform(0.5, 1.5, h).astype(np.float16)),
              init("b16", RNG.uniform(-0.5, 0.5, h).astype(np.float16))]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("X", TensorProto.FLOAT16, [2, 3, h])],
                              [helper.make_tensor_value_info("Y", TensorProto.FLOAT16, [2, 3, h])], inits)
    save(graph, path, 17)


def hand_rms_norm(path, fp16):
    """x * 1/Sqrt(ReduceMean(x^2) + eps) * scale at opset 23; with fp16, LLaMA's Casts."""
    h = 8
    t = TensorProto.FLOAT16 if fp16 else TensorProto.FLOAT
    nodes = [helper.make_node("Cast", ["X"], ["x"], to=TensorProto.FLOAT)] if fp16 else []
    x = "x" if fp16 else "X"
    nodes += [helper.make_node("Pow", [x, "two"], ["sq"]), helper.make_node("ReduceMean", ["sq", "axes"], ["v"]),
              helper.make_node("Add", ["v", "eps"], ["ve"]), helper.make_node("Sqrt", ["ve"], ["s"]),
              helper.make_node("Div", ["one", "s"], ["r"]), helper.make_node("Mul", [x, "r"], ["n"])]
    if fp16:
        nodes += [helper.make_node("Cast", ["n"], ["nh"], to=TensorProto.FLOAT16),
                  helper.make_node("Mul", ["w", "nh"], ["Y"])]
    else:
        nodes += [helper.make_node("Mul", ["w", "n"], ["Y"])]
    inits = [init("two", np.array(2.0, np.float32)), init("one", np.array(1.0, np.float32)),
             init("eps", np.array(1e-6, np.float32)), init("axes", np.array([-1], np.int64)),
             init("w", RNG.uniform(0.5, 1.5, h).astype(np.float16 if fp16 else np.float32))]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("X", t, ["N", 3, h])],
                              [helper.make_tensor_value_info("Y", t, ["N", 3, h])], inits)
    save(graph, path, 23)


def save(graph, path, opset):
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8 if opset <= 17 else 10
    onnx.save(model, path)


# ---- torch exports ----

def torch_models():
    import torch
    from torch import nn

    class HandLayerNorm(nn.Module):
        """The layer norm of older GPT code (OpenAI GPT, BERT ports), written out."""

        def __init__(self, h, eps=1e-5):
            super().__init__()
            self.weight = nn.Parameter(torch.rand(h) + 0.5)
            self.bias = nn.Parameter(torch.rand(h) - 0.5)
            self.eps = eps

        def forward(self, x):
            u = x.mean(-1, keepdim=True)
            s = (x - u).pow(2).mean(-1, keepdim=True)
            return self.weight * ((x - u) / torch.sqrt(s + self.eps)) + self.bias

    class GptBlock(nn.Module):
        def __init__(self, h, heads, approximate, hand_norm):
            super().__init__()
            norm = (lambda: HandLayerNorm(h)) if hand_norm else (lambda: nn.LayerNorm(h))
            self.ln1, self.ln2 = norm(), norm()
            if not hand_norm:
                for ln in (self.ln1, self.ln2):
                    with torch.no_grad():
                        ln.weight.uniform_(0.5, 1.5)
                        ln.bias.uniform_(-0.5, 0.5)
            self.attn = nn.MultiheadAttention(h, heads, batch_first=True)
            self.mlp = nn.Sequential(nn.Linear(h, 4 * h), nn.GELU(approximate=approximate), nn.Linear(4 * h, h))

        def forward(self, x):
            a = self.ln1(x)
            x = x + self.attn(a, a, a, need_weights=False)[0]
            return x + self.mlp(self.ln2(x))

    def encoder():
        layer = nn.TransformerEncoderLayer(16, 2, dim_feedforward=32, dropout=0.0, batch_first=True)
        return nn.TransformerEncoder(layer, 2)

    # name -> (module, export opset, norm layers)
    return {
        "gpt_block_hand_ln_gelu_none": (GptBlock(16, 2, "none", True), 17, 2),
        "gpt_block_hand_ln_gelu_tanh": (GptBlock(16, 2, "tanh", True), 17, 2),
        "gpt_block_nn_ln_gelu_tanh": (GptBlock(16, 2, "tanh", False), 17, 2),
        "gpt_block_nn_ln_opset16": (GptBlock(16, 2, "none", False), 16, 2),
        "transformer_encoder": (encoder(), 17, 4),
        "transformer_encoder_opset16": (encoder(), 16, 4),
    }


def export_torch(name, module, opset, path):
    import torch
    module.eval()
    x = torch.randn(2, 5, 16)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # A TransformerEncoder under no_grad takes a fused path that does not export.
        torch.onnx.export(module, (x,), path, opset_version=opset, input_names=["x"], output_names=["y"],
                          dynamic_axes={"x": {0: "batch", 1: "seq"}, "y": {0: "batch", 1: "seq"}})
    if opset == 16:
        # torch writes nn.LayerNorm as LayerNormalization from opset 17 only. The operators of
        # opset 16 mean the same at 17 (17 added LayerNormalization and others, changed none),
        # so the decomposed export read at opset 17 is the same model.
        model = onnx.load(path)
        for op in model.opset_import:
            if op.domain in ("", "ai.onnx"):
                op.version = 17
        onnx.save(model, path)


def count(path, op_type):
    model = onnx.load(path)
    total = 0

    def walk(graph):
        nonlocal total
        for node in graph.node:
            if node.op_type == op_type and node.domain in ("", "ai.onnx"):
                total += 1
            for attr in node.attribute:
                if attr.type == onnx.AttributeProto.GRAPH:
                    walk(attr.g)

    walk(model.graph)
    return total


def run_case(name, path, pipeline, fused_op, expected, args):
    out = path[:-5] + ".opt.onnx"
    opt = subprocess.run([args.onnx_opt, path, "-o", out, pipeline], capture_output=True, text=True)
    if opt.returncode != 0:
        return f"onnx-opt failed: {opt.stderr.strip()}"
    fused, means = count(out, fused_op), count(out, "ReduceMean")
    if fused != expected or means != 0:
        return f"{fused} {fused_op} (expected {expected}) and {means} ReduceMean (expected 0) after {pipeline}"
    cmp = subprocess.run(["node", args.compare, path, out, "--runs", "3"], capture_output=True, text=True)
    if cmp.returncode != 0:
        return f"ONNX Runtime: {(cmp.stdout + cmp.stderr).strip()}"
    return None


def ln_text(opset, name, inputs="float[2,3,4] X", keepdims="", d="d", outputs="float[2,3,4] Y",
            scale=None, eps_init=True):
    """A decomposition in the text syntax, with one thing changed by the arguments."""
    inits = ["float two = {2.0}"] + (["float eps = {1e-05}"] if eps_init else [])
    tail = f"  Y = Div({d}, s)"
    if scale is not None:
        inits.append(scale)
        tail = f"  n = Div({d}, s)\n  Y = Mul(n, S)"
    return (f'<ir_version: 8, opset_import: ["" : {opset}]>\n{name} ({inputs}) => ({outputs})\n'
            f'<{", ".join(inits)}>\n{{\n  m = ReduceMean<axes = [-1]{keepdims}>(X)\n  {d} = Sub(X, m)\n'
            f'  p = Pow({d}, two)\n  v = ReduceMean<axes = [-1]>(p)\n  ve = Add(v, eps)\n  s = Sqrt(ve)\n'
            f'{tail}\n}}\n')


RMS_EPS_INPUT = """<ir_version: 10, opset_import: ["" : 23]>
rms_eps_input (float[2,4] X, float eps) => (float[2,4] Y)
<int64[1] axes = {-1}, float two = {2.0}>
{
  p = Pow(X, two)
  v = ReduceMean(p, axes)
  ve = Add(v, eps)
  s = Sqrt(ve)
  Y = Div(X, s)
}
"""

# name -> (model text, pass, reason printed under --debug or None, fused ops expected after)
DECLINES = {
    "eps_graph_input": (ln_text(17, "eps_graph_input", inputs="float[2,3,4] X, float eps", eps_init=False),
                        "fuse-layer-norm", "epsilon 'eps' is not a constant", 0),
    "keepdims_zero": (ln_text(17, "keepdims_zero", inputs="float[2,4] X", outputs="float[2,4] Y",
                              keepdims=", keepdims = 0"),
                      "fuse-layer-norm", "has keepdims=0, not 1", 0),
    "centered_value_read": (ln_text(17, "centered_value_read", d="D",
                                    outputs="float[2,3,4] Y, float[2,3,4] D"),
                            "fuse-layer-norm", "intermediate 'D'", 0),
    # The normalization fuses without the [3, 1] scale, whose Mul stays: no decline to tell.
    "scale_c1": (ln_text(17, "scale_c1", scale="float[3,1] S = {1.0, 2.0, 3.0}"),
                 "fuse-layer-norm", None, 1),
    "rms_eps_input": (RMS_EPS_INPUT, "fuse-rms-norm", "epsilon 'eps' is not a constant", 0),
}


def run_decline(name, text, pass_name, reason, fused_expected, args):
    path = os.path.join(args.work_dir, name + ".onnxtxt")
    with open(path, "w") as f:
        f.write(text)
    out = os.path.join(args.work_dir, name + ".opt.onnx")
    opt = subprocess.run([args.onnx_opt, path, "-o", out, f"--passes={pass_name}", "--debug"],
                         capture_output=True, text=True)
    if opt.returncode != 0:
        return f"onnx-opt failed: {opt.stderr.strip()}"
    if reason is not None and reason not in opt.stderr:
        return f"--debug does not say '{reason}':\n{opt.stderr}"
    op = "RMSNormalization" if pass_name == "fuse-rms-norm" else "LayerNormalization"
    if count(out, op) != fused_expected:
        return f"{count(out, op)} {op}, expected {fused_expected}"
    return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("onnx_opt")
    parser.add_argument("compare")
    parser.add_argument("work_dir")
    parser.add_argument("--only", default="")
    args = parser.parse_args()
    if shutil.which("node") is None:
        print("check_fusions.py: node is not installed: skipped")
        return 77
    os.makedirs(args.work_dir, exist_ok=True)

    cases = []  # (name, path, pipeline, fused op, expected count)

    def hand(name, build, pipeline, op, expected=1):
        path = os.path.join(args.work_dir, name + ".onnx")
        build(path)
        cases.append((name, path, pipeline, op, expected))

    w = RNG.uniform(0.5, 1.5, 8).astype(np.float32)
    b = RNG.uniform(-0.5, 0.5, 8).astype(np.float32)
    hand("ln_opset17_pow_div", lambda p: hand_layer_norm(p, 17, scale=w, bias=b), LN_PIPELINE, "LayerNormalization")
    hand("ln_opset17_no_scale", lambda p: hand_layer_norm(p, 17), LN_PIPELINE, "LayerNormalization")
    hand("ln_opset18_mul_reciprocal", lambda p: hand_layer_norm(p, 18, square="mul", divide="reciprocal", scale=w,
                                                               bias=b), LN_PIPELINE, "LayerNormalization")
    hand("ln_opset23_scale_only", lambda p: hand_layer_norm(p, 23, scale=w), LN_PIPELINE, "LayerNormalization")
    hand("ln_opset17_float16_casts", hand_fp16_layer_norm, LN_PIPELINE, "LayerNormalization")
    hand("rms_opset23", lambda p: hand_rms_norm(p, False), RMS_PIPELINE, "RMSNormalization")
    hand("rms_opset23_float16_casts", lambda p: hand_rms_norm(p, True), RMS_PIPELINE, "RMSNormalization")

    import torch
    torch.manual_seed(0)
    for name, (module, opset, norms) in torch_models().items():
        path = os.path.join(args.work_dir, name + ".onnx")
        if args.only in name:
            export_torch(name, module, opset, path)
        cases.append((name, path, LN_PIPELINE, "LayerNormalization", norms))

    failures = 0
    for name, path, pipeline, op, expected in cases:
        if args.only not in name:
            continue
        why = run_case(name, path, pipeline, op, expected, args)
        print(f"{'PASS' if why is None else 'FAIL'}: {name}" + ("" if why is None else f": {why}"), flush=True)
        failures += why is not None
    for name, (text, pass_name, reason, fused) in DECLINES.items():
        if args.only not in name:
            continue
        why = run_decline(name, text, pass_name, reason, fused, args)
        print(f"{'PASS' if why is None else 'FAIL'}: decline {name}" + ("" if why is None else f": {why}"), flush=True)
        failures += why is not None
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
