#!/usr/bin/python3
"""Writes tests/data/activations/: the models on which fuse-gelu, fuse-hardswish and
fuse-hardsigmoid are checked under ONNX Runtime (tests/data/CMakeLists.txt), and checks what the
passes make of them.

  /usr/bin/python3 tests/data/make_activation_models.py               # write the models
  /usr/bin/python3 tests/data/make_activation_models.py --check       # the committed files are these
  /usr/bin/python3 tests/data/make_activation_models.py --verify ONNX_OPT
      # each model after --passes=fuse-gelu,fuse-hardswish,fuse-hardsigmoid has the ops EXPECTED
      # says (so the equivalence test compares fused models, not unchanged ones)

Two kinds of model:
- hand-built (`hand_*`): the formulas written out, in several operand orders, float and float16;
- torch 1.13 exports (`torch_*`) of nn.GELU, nn.GELU(approximate='tanh'), nn.Hardswish,
  nn.Hardsigmoid and the relu6 forms x * F.relu6(x + 3) / 6 and F.relu6(x + 3) / 6, at opsets 13,
  14 and 17 as exported, and the GELU ones also with their opset import raised to 20 (`_as20`:
  none of their ops changed from 17 to 20), since Gelu is new in opset 20.
Every model first multiplies its input by 4: the harness feeds values in [-1, 1), and the
activations differ from their linear parts only beyond that (HardSigmoid clips at -3 and 3).
"""
import collections
import io
import os
import subprocess
import sys
import tempfile

import numpy
import onnx
import onnx.numpy_helper
import onnx.parser

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "activations")
PASSES = "--passes=fuse-gelu,fuse-hardswish,fuse-hardsigmoid"

ERF_TORCH = """
  x = Mul(X, four)
  d = Div(x, sqrt2)
  e = Erf(d)
  p = Add(e, one)
  m = Mul(x, p)
  Y = Mul(m, half)
"""
ERF_HALF_FIRST = """
  x = Mul(X, four)
  h = Mul(half, x)
  d = Mul(rsqrt2, x)
  e = Erf(d)
  p = Add(one, e)
  Y = Mul(p, h)
"""
ERF_HALF_WITH_ERF = """
  x = Mul(X, four)
  d = Div(x, sqrt2)
  e = Erf(d)
  p = Add(e, one)
  q = Mul(half, p)
  Y = Mul(x, q)
"""
ERF_DIVIDED_BY_TWO = """
  x = Mul(X, four)
  d = Div(x, sqrt2)
  e = Erf(d)
  p = Add(e, one)
  m = Mul(p, x)
  Y = Div(m, two)
"""
TANH_TORCH = """
  x = Mul(X, four)
  sq = Mul(x, x)
  cube = Mul(x, sq)
  t = Mul(c, cube)
  inner = Add(x, t)
  arg = Mul(k, inner)
  th = Tanh(arg)
  p = Add(one, th)
  m = Mul(x, p)
  Y = Mul(half, m)
"""
TANH_POW = """
  x = Mul(X, four)
  cube = Pow(x, three)
  t = Mul(cube, c)
  inner = Add(t, x)
  arg = Mul(inner, k)
  th = Tanh(arg)
  p = Add(th, one)
  h = Mul(x, half)
  Y = Mul(h, p)
"""
TANH_SQUARE_FIRST = """
  x = Mul(X, four)
  sq = Mul(x, x)
  cube = Mul(sq, x)
  t = Mul(c, cube)
  inner = Add(x, t)
  arg = Mul(k, inner)
  th = Tanh(arg)
  p = Add(one, th)
  m = Mul(p, x)
  Y = Mul(m, half)
"""
GELU_CONSTANTS = ("float four = {4.0}, float half = {0.5}, float two = {2.0}, float one = {1.0}, "
                  "float sqrt2 = {1.4142135}, float rsqrt2 = {0.70710677}, float c = {0.044715}, "
                  "float k = {0.7978846}, float three = {3.0}")

HARDSWISH_TORCH = """
  x = Mul(X, four)
  a = Add(x, three)
  r = Relu(a)
  c = Clip(r, zero, six)
  m = Mul(x, c)
  Y = Div(m, six)
"""
HARDSWISH_CLIP_TIMES_SIXTH = """
  x = Mul(X, four)
  a = Add(three, x)
  c = Clip(a, zero, six)
  q = Mul(c, sixth)
  Y = Mul(x, q)
"""
HARDSWISH_X_DIVIDED_FIRST = """
  x = Mul(X, four)
  a = Add(x, three)
  c = Clip(a, zero, six)
  q = Div(x, six)
  Y = Mul(c, q)
"""
HARDSWISH_MUL_HARDSIGMOID = """
  x = Mul(X, four)
  h = HardSigmoid <alpha = 0.16666667> (x)
  Y = Mul(x, h)
"""
HARDSIGMOID_RELU6 = """
  x = Mul(X, four)
  a = Add(x, three)
  r = Relu(a)
  c = Clip(r, zero, six)
  Y = Div(c, six)
"""
HARDSIGMOID_SIXTH_TIMES_CLIP = """
  x = Mul(X, four)
  a = Add(three, x)
  c = Clip(a, zero, six)
  Y = Mul(sixth, c)
"""
HARDSIGMOID_AFFINE = """
  x = Mul(X, four)
  m = Mul(x, alpha)
  a = Add(m, beta)
  Y = Clip(a, zero, one)
"""
HARDSIGMOID_AFFINE_OTHER_ORDER = """
  x = Mul(X, four)
  m = Mul(alpha, x)
  a = Add(beta, m)
  Y = Clip(a, zero, one)
"""
HARDSIGMOID_CLIP_ATTRIBUTES = """
  x = Mul(X, four)
  a = Add(x, three)
  c = Clip <min = 0.0, max = 6.0> (a)
  Y = Div(c, six)
"""
HARD_CONSTANTS = ("float four = {4.0}, float three = {3.0}, float zero = {0.0}, float one = {1.0}, "
                  "float six = {6.0}, float sixth = {0.16666667}, float alpha = {0.25}, "
                  "float beta = {0.375}")

# name: (opset, constants, body, the ops after the three passes)
HAND_BUILT = {
    "gelu_erf_torch_order": (20, GELU_CONSTANTS, ERF_TORCH, {"Mul": 1, "Gelu": 1}),
    "gelu_erf_half_first": (20, GELU_CONSTANTS, ERF_HALF_FIRST, {"Mul": 1, "Gelu": 1}),
    "gelu_erf_half_with_erf": (20, GELU_CONSTANTS, ERF_HALF_WITH_ERF, {"Mul": 1, "Gelu": 1}),
    "gelu_erf_divided_by_two": (20, GELU_CONSTANTS, ERF_DIVIDED_BY_TWO, {"Mul": 1, "Gelu": 1}),
    "gelu_tanh_torch_order": (20, GELU_CONSTANTS, TANH_TORCH, {"Mul": 1, "Gelu": 1}),
    "gelu_tanh_pow": (20, GELU_CONSTANTS, TANH_POW, {"Mul": 1, "Gelu": 1}),
    "gelu_tanh_square_first": (20, GELU_CONSTANTS, TANH_SQUARE_FIRST, {"Mul": 1, "Gelu": 1}),
    "hardswish_relu6_torch_order": (14, HARD_CONSTANTS, HARDSWISH_TORCH, {"Mul": 1, "HardSwish": 1}),
    "hardswish_clip_times_sixth": (14, HARD_CONSTANTS, HARDSWISH_CLIP_TIMES_SIXTH,
                                   {"Mul": 1, "HardSwish": 1}),
    "hardswish_x_divided_first": (14, HARD_CONSTANTS, HARDSWISH_X_DIVIDED_FIRST,
                                  {"Mul": 1, "HardSwish": 1}),
    "hardswish_mul_hardsigmoid": (14, HARD_CONSTANTS, HARDSWISH_MUL_HARDSIGMOID,
                                  {"Mul": 1, "HardSwish": 1}),
    "hardsigmoid_relu6": (14, HARD_CONSTANTS, HARDSIGMOID_RELU6, {"Mul": 1, "HardSigmoid": 1}),
    "hardsigmoid_sixth_times_clip": (14, HARD_CONSTANTS, HARDSIGMOID_SIXTH_TIMES_CLIP,
                                     {"Mul": 1, "HardSigmoid": 1}),
    "hardsigmoid_affine": (14, HARD_CONSTANTS, HARDSIGMOID_AFFINE, {"Mul": 1, "HardSigmoid": 1}),
    "hardsigmoid_affine_other_order": (14, HARD_CONSTANTS, HARDSIGMOID_AFFINE_OTHER_ORDER,
                                       {"Mul": 1, "HardSigmoid": 1}),
    "hardsigmoid_clip_attributes_op10": (10, HARD_CONSTANTS, HARDSIGMOID_CLIP_ATTRIBUTES,
                                         {"Mul": 1, "HardSigmoid": 1}),
}


def to_float16(model):
    """The model in float16: inputs, outputs and initializers (libonnx 1.12's parser reads no
    float16 literals). Attributes (HardSigmoid's alpha) stay floats, as ONNX defines them."""
    half = onnx.ModelProto()
    half.CopyFrom(model)
    for value in list(half.graph.input) + list(half.graph.output):
        value.type.tensor_type.elem_type = onnx.TensorProto.FLOAT16
    for i, tensor in enumerate(half.graph.initializer):
        converted = onnx.numpy_helper.from_array(
            onnx.numpy_helper.to_array(tensor).astype(numpy.float16), tensor.name)
        half.graph.initializer[i].CopyFrom(converted)
    return half


def hand_built_models():
    models = {}
    for name, (opset, constants, body, after) in HAND_BUILT.items():
        ir_version = 9 if opset >= 20 else 8
        text = (f'<ir_version: {ir_version}, opset_import: ["" : {opset}]>\n'
                f"{name} (float[N,8] X) => (float[N,8] Y) <{constants}> {{{body}}}\n")
        model = onnx.parser.parse_model(text)
        # Constants the body does not read would be graph initializers nothing reads.
        read = {i for node in model.graph.node for i in node.input}
        kept = [t for t in model.graph.initializer if t.name in read]
        del model.graph.initializer[:]
        model.graph.initializer.extend(kept)
        models[f"hand_{name}_f32"] = (model, after)
        if "clip_attributes" not in name:  # Clip-6's bounds are float attributes in every type
            models[f"hand_{name}_f16"] = (to_float16(model), after)
    return models


def torch_models():
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    class Scaled(nn.Module):
        def __init__(self, activation):
            super().__init__()
            self.activation = activation

        def forward(self, x):
            return self.activation(x * 4.0)

    class Relu6Hardswish(nn.Module):
        def forward(self, x):
            return x * F.relu6(x + 3.0) / 6.0

    class Relu6Hardsigmoid(nn.Module):
        def forward(self, x):
            return F.relu6(x + 3.0) / 6.0

    modules = {
        "gelu": (nn.GELU(), "Gelu"),
        "gelu_tanh": (nn.GELU(approximate="tanh"), "Gelu"),
        "hardswish": (nn.Hardswish(), "HardSwish"),
        "hardsigmoid": (nn.Hardsigmoid(), "HardSigmoid"),
        "relu6_hardswish": (Relu6Hardswish(), "HardSwish"),
        "relu6_hardsigmoid": (Relu6Hardsigmoid(), "HardSigmoid"),
    }
    # What fuses: HardSwish from opset 14, HardSigmoid everywhere here, Gelu only raised to 20.
    fuses = {("relu6_hardswish", 14), ("relu6_hardswish", 17), ("relu6_hardsigmoid", 13),
             ("relu6_hardsigmoid", 14), ("relu6_hardsigmoid", 17)}
    models = {}
    for name, (module, fused_op) in modules.items():
        for opset in (13, 14, 17):
            buffer = io.BytesIO()
            torch.onnx.export(Scaled(module), torch.randn(2, 8), buffer, opset_version=opset,
                              input_names=["input"], output_names=["output"],
                              dynamic_axes={"input": {0: "N"}, "output": {0: "N"}})
            model = onnx.load_from_string(buffer.getvalue())
            before = histogram(model.graph)
            # Fused, what is left is the input's Mul by 4 and the fused op.
            fused = {"Mul": 1, fused_op: 1}
            models[f"torch_{name}_op{opset}"] = (model, fused if (name, opset) in fuses else before)
            if fused_op == "Gelu":
                raised = onnx.ModelProto()
                raised.CopyFrom(model)
                raised.ir_version = 9
                raised.opset_import[0].version = 20
                models[f"torch_{name}_op{opset}_as20"] = (raised, fused)
    return models


def histogram(graph):
    return dict(collections.Counter(node.op_type for node in graph.node))


def all_models():
    models = hand_built_models()
    models.update(torch_models())
    for name, (model, _) in models.items():
        model.producer_name = model.producer_name or "make_activation_models.py"
        if max(o.version for o in model.opset_import if o.domain in ("", "ai.onnx")) <= 17:
            onnx.checker.check_model(model, full_check=True)
    return models


def write(check):
    models = all_models()
    os.makedirs(OUT, exist_ok=True)
    stale = 0
    for name, (model, _) in sorted(models.items()):
        path = os.path.join(OUT, f"{name}.onnx")
        data = model.SerializeToString()
        if check:
            if not os.path.exists(path) or open(path, "rb").read() != data:
                print(f"differs: {path}")
                stale += 1
        else:
            with open(path, "wb") as f:
                f.write(data)
    known = {f"{name}.onnx" for name in models}
    for extra in sorted(set(os.listdir(OUT)) - known):
        print(f"not written by this script: {os.path.join(OUT, extra)}")
        stale += 1
    return 1 if stale else 0


def verify(tool):
    expected = {name: after for name, (_, after) in all_models().items()}
    failures = 0
    with tempfile.TemporaryDirectory() as scratch:
        for name, want in sorted(expected.items()):
            out = os.path.join(scratch, "out.onnx")
            run = subprocess.run([tool, os.path.join(OUT, f"{name}.onnx"), PASSES, "--verify-each",
                                  "--require-convergence", "--quiet", "-o", out],
                                 capture_output=True, text=True)
            if run.returncode != 0:
                print(f"FAIL {name}: onnx-opt exited {run.returncode}: {run.stderr.strip()}")
                failures += 1
                continue
            got = histogram(onnx.load(out).graph)
            got.pop("Constant", None)  # torch's constants: dead ones are erased, others read
            want = {op: n for op, n in want.items() if op != "Constant"}
            if got != want:
                print(f"FAIL {name}: {sorted(got.items())}, expected {sorted(want.items())}")
                failures += 1
    print(f"{len(expected) - failures} passed, {failures} failed")
    return 1 if failures else 0


def main(argv):
    if len(argv) == 3 and argv[1] == "--verify":
        return verify(argv[2])
    if len(argv) == 2 and argv[1] == "--check":
        return write(check=True)
    if len(argv) == 1:
        return write(check=False)
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
