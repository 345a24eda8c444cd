#!/usr/bin/python3
"""Writes the models of tests/data/if_flatten/, for CTest equivalence.if_flatten: ONNX Runtime runs
each one before and after eliminate-if-constant-condition and eliminate-nop-flatten on the same
inputs (tests/data/CMakeLists.txt).

  if_then_collisions.onnx   a true Constant condition; the then branch has an initializer and
                            values named like another If's branch values (ONNX Runtime refuses
                            a branch value named like an outer one); its output is a main-graph
                            output the other If reads
  if_else_initializer.onnx  a false initializer condition of shape [1, 1]; the else branch
                            returns its own initializer (an Identity keeps the output's name)
  if_nested.onnx            the taken branch holds an If on a run-time condition that reads a
                            value of the taken branch, and an If on the same constant condition
  if_in_loop.onnx           an If on a main-graph constant inside a Loop body, reading the
                            carried value and a main-graph input
  flatten_nops.onnx         Flatten of rank-2 inputs at opset 13: axis 1, axis -1, axis 0 with
                            a first dim of 1, axis 2 with a last dim of 1, and a real Flatten
  flatten_opset9.onnx       Flatten at opset 9, axis 1 and axis 0 on [1, N]

The files are committed, so running the tests needs no Python. Regenerate with Debian's
interpreter (python3-onnx belongs to it):
    /usr/bin/python3 tests/data/make_if_flatten_models.py
"""

import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "if_flatten")
F32, BOOL, I64 = TensorProto.FLOAT, TensorProto.BOOL, TensorProto.INT64


def model(graph, opset=13):
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                          producer_name="onnx-opt/tests/data/make_if_flatten_models.py")
    m.ir_version = 8 if opset >= 13 else 4
    onnx.checker.check_model(m, full_check=True)
    return m


def vi(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def bool_constant(name, value, dims=()):
    return helper.make_node("Constant", [], [name], name=name + "_const",
                            value=helper.make_tensor(name + "_value", BOOL, list(dims),
                                                     [value] * int(np.prod(dims or [1]))))


def if_then_collisions():
    w = numpy_helper.from_array(np.array([0.5, -1.0, 2.0], np.float32), "w")
    then_branch = helper.make_graph(
        [helper.make_node("Mul", ["X", "w"], ["r"], name="mul"),
         helper.make_node("Add", ["r", "d"], ["out"], name="add")],
        "then_graph", [], [vi("out", F32, [3])], initializer=[w])
    else_branch = helper.make_graph(
        [helper.make_node("Neg", ["X"], ["out"], name="neg")],
        "else_graph", [], [vi("out", F32, [3])])
    other_then = helper.make_graph(
        [helper.make_node("Sub", ["s", "Y"], ["r"], name="sub"),
         helper.make_node("Neg", ["r"], ["out"], name="neg2")],
        "other_then", [], [vi("out", F32, [3])])
    other_else = helper.make_graph(
        [helper.make_node("Mul", ["s", "Y"], ["out"], name="mul2")],
        "other_else", [], [vi("out", F32, [3])])
    graph = helper.make_graph(
        [bool_constant("c", True),
         helper.make_node("Relu", ["X"], ["d"], name="relu"),
         helper.make_node("If", ["c"], ["Y"], name="choose",
                          then_branch=then_branch, else_branch=else_branch),
         helper.make_node("Sigmoid", ["X"], ["s"], name="sigmoid"),
         helper.make_node("If", ["C"], ["Z"], name="other",
                          then_branch=other_then, else_branch=other_else)],
        "if_then_collisions",
        inputs=[vi("C", BOOL, []), vi("X", F32, [3])],
        outputs=[vi("Y", F32, [3]), vi("Z", F32, [3])])
    return model(graph)


def if_else_initializer():
    then_branch = helper.make_graph(
        [helper.make_node("Abs", ["X"], ["t"], name="abs")],
        "then_graph", [], [vi("t", F32, [2])])
    k = numpy_helper.from_array(np.array([3.0, -4.0], np.float32), "k")
    else_branch = helper.make_graph([], "else_graph", [], [vi("k", F32, [2])], initializer=[k])
    cond = numpy_helper.from_array(np.array([[False]]), "c")
    graph = helper.make_graph(
        [helper.make_node("If", ["c"], ["Y"], name="choose",
                          then_branch=then_branch, else_branch=else_branch),
         helper.make_node("Add", ["Y", "X"], ["S"], name="add")],
        "if_else_initializer",
        inputs=[vi("X", F32, [2])],
        outputs=[vi("Y", F32, [2]), vi("S", F32, [2])],
        initializer=[cond])
    return model(graph)


def if_nested():
    inner_then = helper.make_graph(
        [helper.make_node("Neg", ["t"], ["u"], name="neg")], "inner_then", [], [vi("u", F32, [2])])
    inner_else = helper.make_graph(
        [helper.make_node("Abs", ["t"], ["v"], name="abs")], "inner_else", [], [vi("v", F32, [2])])
    const_then = helper.make_graph(
        [helper.make_node("Exp", ["t"], ["p"], name="exp")], "const_then", [], [vi("p", F32, [2])])
    const_else = helper.make_graph(
        [helper.make_node("Sin", ["t"], ["q"], name="sin")], "const_else", [], [vi("q", F32, [2])])
    then_branch = helper.make_graph(
        [helper.make_node("Relu", ["X"], ["t"], name="relu"),
         helper.make_node("If", ["C"], ["a"], name="runtime_if",
                          then_branch=inner_then, else_branch=inner_else),
         helper.make_node("If", ["c"], ["b"], name="constant_if",
                          then_branch=const_then, else_branch=const_else),
         helper.make_node("Add", ["a", "b"], ["out"], name="add")],
        "then_graph", [], [vi("out", F32, [2])])
    else_branch = helper.make_graph(
        [helper.make_node("Cos", ["X"], ["out"], name="cos")], "else_graph", [],
        [vi("out", F32, [2])])
    graph = helper.make_graph(
        [bool_constant("c", True),
         helper.make_node("If", ["c"], ["Y"], name="outer",
                          then_branch=then_branch, else_branch=else_branch)],
        "if_nested",
        inputs=[vi("C", BOOL, []), vi("X", F32, [2])],
        outputs=[vi("Y", F32, [2])])
    return model(graph)


def if_in_loop():
    then_branch = helper.make_graph(
        [helper.make_node("Abs", ["carried"], ["t"], name="abs")], "then_graph", [],
        [vi("t", F32, [2])])
    else_branch = helper.make_graph(
        [helper.make_node("Add", ["carried", "X"], ["e"], name="add"),
         helper.make_node("Mul", ["e", "half"], ["e_out"], name="mul")],
        "else_graph", [], [vi("e_out", F32, [2])],
        initializer=[numpy_helper.from_array(np.array([0.5, 0.25], np.float32), "half")])
    body = helper.make_graph(
        [helper.make_node("Identity", ["cond_in"], ["cond_out"], name="keep_going"),
         helper.make_node("If", ["k"], ["next"], name="choose",
                          then_branch=then_branch, else_branch=else_branch)],
        "body",
        inputs=[vi("i", I64, []), vi("cond_in", BOOL, []), vi("carried", F32, [2])],
        outputs=[vi("cond_out", BOOL, []), vi("next", F32, [2])])
    graph = helper.make_graph(
        [bool_constant("k", False),
         helper.make_node("Loop", ["M", "C", "X"], ["Y"], name="loop", body=body)],
        "if_in_loop",
        inputs=[vi("M", I64, []), vi("C", BOOL, []), vi("X", F32, [2])],
        outputs=[vi("Y", F32, [2])])
    m = model(graph)
    return m


def flatten_nops():
    graph = helper.make_graph(
        [helper.make_node("Flatten", ["A"], ["a1"], name="axis_1", axis=1),
         helper.make_node("Flatten", ["A"], ["am1"], name="axis_minus_1", axis=-1),
         helper.make_node("Flatten", ["B"], ["b0"], name="axis_0", axis=0),
         helper.make_node("Flatten", ["Cm"], ["c2"], name="axis_2", axis=2),
         helper.make_node("Flatten", ["A"], ["a0"], name="real_flatten", axis=0),
         helper.make_node("Add", ["a1", "am1"], ["SA"], name="add_a"),
         helper.make_node("Relu", ["b0"], ["SB"], name="relu_b"),
         helper.make_node("Neg", ["c2"], ["SC"], name="neg_c")],
        "flatten_nops",
        inputs=[vi("A", F32, ["N", 4]), vi("B", F32, [1, 5]), vi("Cm", F32, ["M", 1])],
        outputs=[vi("SA", F32, ["N", 4]), vi("SB", F32, [1, 5]), vi("SC", F32, ["M", 1]),
                 vi("a0", F32, [1, None])])
    return model(graph)


def flatten_opset9():
    graph = helper.make_graph(
        [helper.make_node("Flatten", ["A"], ["a1"], name="axis_1", axis=1),
         helper.make_node("Flatten", ["B"], ["b0"], name="axis_0", axis=0),
         helper.make_node("Add", ["a1", "a1"], ["SA"], name="add_a"),
         helper.make_node("Relu", ["b0"], ["SB"], name="relu_b")],
        "flatten_opset9",
        inputs=[vi("A", F32, ["N", 3]), vi("B", F32, [1, "K"])],
        outputs=[vi("SA", F32, ["N", 3]), vi("SB", F32, [1, "K"])])
    return model(graph, opset=9)


def main():
    os.makedirs(HERE, exist_ok=True)
    for make in (if_then_collisions, if_else_initializer, if_nested, if_in_loop, flatten_nops,
                 flatten_opset9):
        onnx.save(make(), os.path.join(HERE, make.__name__ + ".onnx"))


if __name__ == "__main__":
    main()
