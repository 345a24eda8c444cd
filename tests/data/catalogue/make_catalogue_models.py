#!/usr/bin/python3
"""Writes the small models on which the catalogue passes are checked against ONNX Runtime
(tests/data/CMakeLists.txt): each is one pass's pattern at the opsets where its operators'
versions differ. Deterministic: rerunning writes the same bytes.

Usage: /usr/bin/python3 tests/data/catalogue/make_catalogue_models.py
"""
import os

import onnx
from onnx import TensorProto as T
from onnx import helper as h

HERE = os.path.dirname(os.path.abspath(__file__))


def save(name, nodes, inputs, outputs, opset):
    graph = h.make_graph(nodes, name, inputs, outputs)
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", opset)], producer_name="onnx-opt tests")
    model.ir_version = 7
    onnx.checker.check_model(model, full_check=True)
    onnx.save(model, os.path.join(HERE, name + ".onnx"))


def main():
    for opset in (9, 13, 17):
        save(f"where_not_op{opset}",
             [h.make_node("Not", ["c"], ["n"]), h.make_node("Where", ["n", "x", "y"], ["z"])],
             [h.make_tensor_value_info("c", T.BOOL, [2, 1]), h.make_tensor_value_info("x", T.FLOAT, [3]),
              h.make_tensor_value_info("y", T.FLOAT, [2, 3])],
             [h.make_tensor_value_info("z", T.FLOAT, [2, 3])], opset)
    for opset, axis in ((9, 1), (11, -1), (11, 0), (13, 1), (13, -1), (17, 0)):
        save(f"log_softmax_op{opset}_axis{axis}",
             [h.make_node("Softmax", ["x"], ["s"], axis=axis), h.make_node("Log", ["s"], ["y"])],
             [h.make_tensor_value_info("x", T.FLOAT, [2, 3, 4])],
             [h.make_tensor_value_info("y", T.FLOAT, [2, 3, 4])], opset)


if __name__ == "__main__":
    main()
