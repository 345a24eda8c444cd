#!/usr/bin/python3
"""Writes the models of tests/data/subgraph_outputs/: valid ONNX that ONNX Runtime cannot run as
it is, because a body output is not computed in its body. Each comes with stored inputs and
expected outputs (<model>/test_data_set_N/, the layout of ONNX's backend test data):

  if_returns_outer_value.onnx    If's then-branch returns the outer input X itself; ORT refuses
                                 to load it ("Subgraph output (X) is an outer scope value")
  scan_returns_state_input.onnx  Scan's body returns its state input as the next state; ORT runs
                                 it, but the final state comes out zeroed

`onnx-opt -O1` (legalize-subgraph-outputs) makes both run and give the stored outputs; CTest
`equivalence.repair.*` checks that (tests/equivalence/run_repair.sh).

The files are committed, so running the tests needs no Python. Regenerate with Debian's
interpreter (python3-onnx belongs to it):
    /usr/bin/python3 tests/data/make_subgraph_output_models.py
"""

import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "subgraph_outputs")
F32, BOOL = TensorProto.FLOAT, TensorProto.BOOL


def model(graph):
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)],
                          producer_name="onnx-opt/tests/data/make_subgraph_output_models.py")
    m.ir_version = 8
    onnx.checker.check_model(m, full_check=True)
    return m


def if_returns_outer_value():
    then_branch = helper.make_graph([], "then_graph", [],
                                    [helper.make_tensor_value_info("X", F32, [2])])
    else_branch = helper.make_graph([helper.make_node("Neg", ["X"], ["negated"], name="neg")],
                                    "else_graph", [],
                                    [helper.make_tensor_value_info("negated", F32, [2])])
    graph = helper.make_graph(
        [helper.make_node("If", ["C"], ["Y"], name="choose",
                          then_branch=then_branch, else_branch=else_branch)],
        "if_returns_outer_value",
        inputs=[helper.make_tensor_value_info("C", BOOL, []),
                helper.make_tensor_value_info("X", F32, [2])],
        outputs=[helper.make_tensor_value_info("Y", F32, [2])])
    x = np.array([1.5, -2.0], np.float32)
    # Both branches: the repaired one and the one that was fine.
    data = [([np.array(True), x], [x]), ([np.array(False), x], [-x])]
    return model(graph), data


def scan_returns_state_input():
    body = helper.make_graph(
        [helper.make_node("Neg", ["x"], ["y"], name="neg")], "body",
        inputs=[helper.make_tensor_value_info("state", F32, [2]),
                helper.make_tensor_value_info("x", F32, [2])],
        outputs=[helper.make_tensor_value_info("state", F32, [2]),
                 helper.make_tensor_value_info("y", F32, [2])])
    graph = helper.make_graph(
        [helper.make_node("Scan", ["S", "X"], ["S_final", "Ys"], name="scan", body=body,
                          num_scan_inputs=1)],
        "scan_returns_state_input",
        inputs=[helper.make_tensor_value_info("S", F32, [2]),
                helper.make_tensor_value_info("X", F32, [3, 2])],
        outputs=[helper.make_tensor_value_info("S_final", F32, [2]),
                 helper.make_tensor_value_info("Ys", F32, [3, 2])])
    s = np.array([1.5, -2.0], np.float32)
    x = np.arange(6, dtype=np.float32).reshape(3, 2)
    return model(graph), [([s, x], [s, -x])]


def write(name, built):
    m, data_sets = built
    onnx.save(m, os.path.join(HERE, name + ".onnx"))
    for n, (inputs, outputs) in enumerate(data_sets):
        folder = os.path.join(HERE, name, "test_data_set_%d" % n)
        os.makedirs(folder, exist_ok=True)
        for kind, arrays, infos in (("input", inputs, m.graph.input),
                                    ("output", outputs, m.graph.output)):
            for i, (array, info) in enumerate(zip(arrays, infos)):
                tensor = numpy_helper.from_array(array, info.name)
                with open(os.path.join(folder, "%s_%d.pb" % (kind, i)), "wb") as f:
                    f.write(tensor.SerializeToString())


def main():
    os.makedirs(HERE, exist_ok=True)
    write("if_returns_outer_value", if_returns_outer_value())
    write("scan_returns_state_input", scan_returns_state_input())


if __name__ == "__main__":
    main()
