#!/usr/bin/python3
"""Writes the small malformed models that tests/cli feeds to onnx-opt. Each one is a valid
protobuf with exactly one problem, named so that the error message can be checked for it:

  dangling_input.onnx          node `use_ghost` reads `ghost`, which nothing defines
  cycle.onnx                   nodes `cycle_a` and `cycle_b` read each other's output
  duplicate_value_names.onnx   nodes `first_dup` and `second_dup` both define `dup`
  unknown_attribute_type.onnx  node `odd_node` has attribute `weird_attr` of type 99

The files are committed, so running the tests needs no Python. Regenerate with Debian's
interpreter (python3-onnx belongs to it):
    /usr/bin/python3 tests/cli/data/make_bad_models.py
"""

import os
import sys

import onnx
from onnx import AttributeProto, TensorProto, helper

HERE = os.path.dirname(os.path.abspath(__file__))


def model(nodes, outputs=("Y",), name="bad"):
    graph = helper.make_graph(
        nodes,
        name,
        inputs=[helper.make_tensor_value_info("X", TensorProto.FLOAT, [2, 3])],
        outputs=[helper.make_tensor_value_info(o, TensorProto.FLOAT, [2, 3]) for o in outputs],
    )
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)],
                          producer_name="onnx-opt/tests/cli/data/make_bad_models.py")
    m.ir_version = 8
    return m


def dangling_input():
    return model([
        helper.make_node("Relu", ["X"], ["A"], name="ok_relu"),
        helper.make_node("Add", ["A", "ghost"], ["Y"], name="use_ghost"),
    ])


def cycle():
    return model([
        helper.make_node("Add", ["X", "b"], ["a"], name="cycle_a"),
        helper.make_node("Relu", ["a"], ["b"], name="cycle_b"),
        helper.make_node("Identity", ["a"], ["Y"], name="out"),
    ])


def duplicate_value_names():
    return model([
        helper.make_node("Relu", ["X"], ["dup"], name="first_dup"),
        helper.make_node("Neg", ["X"], ["dup"], name="second_dup"),
        helper.make_node("Identity", ["dup"], ["Y"], name="out"),
    ])


def unknown_attribute_type():
    m = model([helper.make_node("Relu", ["X"], ["Y"], name="odd_node")])
    # AttributeProto.type is field 20 (varint). 99 is no AttributeType; protobuf (proto2) keeps
    # the number as an unknown field on parse, so the attribute reads back with no type set.
    attribute = AttributeProto()
    attribute.name = "weird_attr"
    attribute.i = 7
    raw = attribute.SerializeToString() + bytes([(20 << 3) | 0, 0x01, 99])
    attribute = AttributeProto()
    attribute.ParseFromString(raw)
    m.graph.node[0].attribute.append(attribute)
    return m


CASES = {
    "dangling_input.onnx": dangling_input,
    "cycle.onnx": cycle,
    "duplicate_value_names.onnx": duplicate_value_names,
    "unknown_attribute_type.onnx": unknown_attribute_type,
}


def main() -> int:
    out_dir = sys.argv[1] if len(sys.argv) > 1 else HERE
    for file_name, build in CASES.items():
        m = build()
        try:
            onnx.checker.check_model(m)
        except onnx.checker.ValidationError:
            pass  # expected: each model is broken on purpose
        else:
            if file_name != "cycle.onnx":  # ONNX 1.12's checker does not look for cycles
                raise SystemExit(f"{file_name}: onnx.checker accepted it; it should be invalid")
        path = os.path.join(out_dir, file_name)
        with open(path, "wb") as f:
            f.write(m.SerializeToString())
        print(f"wrote {path} ({os.path.getsize(path)} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
