#!/usr/bin/python3
"""Writes examples/legacy_classifier.onnx: a small classifier head in the form older exporters
produced for nn.Linear, which onnx-opt's passes clean up.

Each of the three layers is

    Wt = Transpose(W)                 # W is stored [out, in], so Wt is [in, out]
    Cb = Expand(b, shape)             # b is [out], shape is the int64 constant [1, out]
    Y  = Gemm(X, Wt, Cb)              # alpha = beta = 1, no transA/transB

with a Relu between layers: 256 -> 128 -> 64 -> 10, opset 9, IR version 4 (initializers are
not graph inputs). The input X is float[N, 256] with a symbolic batch N; the output `logits` is
float[N, 10]. Weights are small random numbers from a fixed seed, so the file is reproducible
byte for byte.

Run with Debian's interpreter (python3-onnx belongs to it):
    /usr/bin/python3 examples/make_legacy_classifier.py [OUTPUT]
"""

import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

LAYERS = [256, 128, 64, 10]
OPSET = 9
IR_VERSION = 4  # the IR version that goes with opset 9 (ONNX 1.4)
SEED = 20240607


def build_model() -> onnx.ModelProto:
    rng = np.random.default_rng(SEED)
    nodes = []
    initializers = []
    x = "X"
    for layer, (fan_in, fan_out) in enumerate(zip(LAYERS[:-1], LAYERS[1:]), start=1):
        prefix = f"fc{layer}"
        bound = 1.0 / np.sqrt(fan_in)  # nn.Linear's default init range
        weight = rng.uniform(-bound, bound, size=(fan_out, fan_in)).astype(np.float32)
        bias = rng.uniform(-bound, bound, size=(fan_out,)).astype(np.float32)
        shape = np.array([1, fan_out], dtype=np.int64)
        initializers += [
            numpy_helper.from_array(weight, f"{prefix}.weight"),
            numpy_helper.from_array(bias, f"{prefix}.bias"),
            numpy_helper.from_array(shape, f"{prefix}.bias_shape"),
        ]
        last = layer == len(LAYERS) - 1
        y = "logits" if last else f"{prefix}.out"
        nodes += [
            helper.make_node("Transpose", [f"{prefix}.weight"], [f"{prefix}.weight_t"],
                             name=f"{prefix}/Transpose"),
            helper.make_node("Expand", [f"{prefix}.bias", f"{prefix}.bias_shape"],
                             [f"{prefix}.bias_expanded"], name=f"{prefix}/Expand"),
            helper.make_node("Gemm", [x, f"{prefix}.weight_t", f"{prefix}.bias_expanded"], [y],
                             name=f"{prefix}/Gemm", alpha=1.0, beta=1.0),
        ]
        if not last:
            nodes.append(helper.make_node("Relu", [y], [f"relu{layer}.out"], name=f"relu{layer}"))
            x = f"relu{layer}.out"

    graph = helper.make_graph(
        nodes,
        "legacy_classifier",
        inputs=[helper.make_tensor_value_info("X", TensorProto.FLOAT, ["N", LAYERS[0]])],
        outputs=[helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["N", LAYERS[-1]])],
        initializer=initializers,
    )
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", OPSET)],
        producer_name="onnx-opt/examples/make_legacy_classifier.py",
        producer_version="1",
        doc_string="Classifier head in the legacy Transpose + Expand + Gemm form (opset 9).",
    )
    model.ir_version = IR_VERSION
    return model


def main() -> int:
    here = os.path.dirname(os.path.abspath(__file__))
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "legacy_classifier.onnx")
    model = build_model()
    onnx.checker.check_model(model, full_check=True)  # full_check runs shape inference too
    inferred = onnx.shape_inference.infer_shapes(model, strict_mode=True)
    shapes = {vi.name: vi for vi in inferred.graph.value_info}
    assert "fc1.weight_t" in shapes, "shape inference did not reach the first layer"
    with open(out, "wb") as f:
        f.write(model.SerializeToString())
    ops = [n.op_type for n in model.graph.node]
    print(f"wrote {out}: {len(ops)} nodes, {os.path.getsize(out)} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
